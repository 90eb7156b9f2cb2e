package main

import (
	"math/cmplx"
	"path/filepath"
	"testing"

	"github.com/gomatvis/gomatvis/npy"
)

// TestSimulateNUFFTBackend runs the example with --backend nufftcpu and
// with --backend cpu: the same visibilities within 1e-10 of the peak (the
// example's small array may run on the direct product after the cost
// model; either way the output must agree).
func TestSimulateNUFFTBackend(t *testing.T) {
	dir := t.TempDir()
	var vis [2][]complex128
	for i, be := range []string{"nufftcpu", "cpu"} {
		out := filepath.Join(dir, be+".npy")
		if code, _, stderr := runCLI(t, "simulate", "example", "-o", out, "--backend", be, "-q"); code != 0 {
			t.Fatalf("--backend %s: exit %d: %s", be, code, stderr)
		}
		a, err := npy.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if a.DType != npy.Complex128 {
			t.Fatalf("--backend %s: dtype %s", be, a.DType)
		}
		vis[i] = a.Complex128
	}
	if len(vis[0]) != len(vis[1]) || len(vis[0]) == 0 {
		t.Fatalf("%d and %d visibilities", len(vis[0]), len(vis[1]))
	}
	var d, m float64
	for k := range vis[1] {
		d = max(d, cmplx.Abs(vis[0][k]-vis[1][k]))
		m = max(m, cmplx.Abs(vis[1][k]))
	}
	if d > 1e-10*m {
		t.Errorf("max|dV|/max|V| = %.3g", d/m)
	}
}
