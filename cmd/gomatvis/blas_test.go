package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/matvis/cblas"
	"github.com/gomatvis/gomatvis/matvis/profile"
)

func TestBLASLine(t *testing.T) {
	k := cblas.Kernel{Library: "libopenblas.so.0", CoreName: "Prescott", Config: "OpenBLAS 0.3.21 Prescott"}
	cases := []struct {
		name string
		ch   cblas.Choice
		want string
	}{
		{"no system library", cblas.Choice{Herk: cblas.Gonum{}}, "gonum (pure Go; no system CBLAS loaded)"},
		{"fallback", cblas.Choice{Herk: cblas.Gonum{}, Kernel: k}, "gonum (pure Go), in place of libopenblas.so.0, kernel Prescott: OpenBLAS 0.3.21 Prescott"},
		{"openblas", cblas.Choice{Herk: &cblas.System{}, Kernel: k}, "libopenblas.so.0, kernel Prescott: OpenBLAS 0.3.21 Prescott"},
	}
	for _, c := range cases {
		if got := blasLine(c.ch); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestSimulateNamesKernel: a CPU run's summary names the Gram product's
// library and kernel.
func TestSimulateNamesKernel(t *testing.T) {
	out := filepath.Join(t.TempDir(), "v.npy")
	code, stdout, stderr := runCLI(t, "simulate", "example", "-o", out, "--backend", "cpu", "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "CPU Gram product: " + blasLine(cblas.Choose())
	if !strings.Contains(stdout, want+"\n") {
		t.Errorf("summary lacks %q:\n%s", want, stdout)
	}
}

func TestMachineBLAS(t *testing.T) {
	cases := []struct {
		name string
		m    profile.Machine
		want string
	}{
		{"gonum", profile.Machine{BLAS: "gonum"}, "gonum"},
		{"openblas", profile.Machine{BLAS: "cblas libopenblas.so.0", BLASKernel: &cblas.Kernel{CoreName: "Haswell"}}, "cblas libopenblas.so.0; kernel Haswell"},
		{"forced", profile.Machine{BLAS: "b", BLASKernel: &cblas.Kernel{CoreName: "SkylakeX", CoreType: "SkylakeX"}}, "b; kernel SkylakeX (OPENBLAS_CORETYPE=SkylakeX)"},
	}
	for _, c := range cases {
		if got := machineBLAS(c.m); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
