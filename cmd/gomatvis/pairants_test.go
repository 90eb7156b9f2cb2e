package main

import (
	"math"
	"math/cmplx"
	"path/filepath"
	"testing"

	"github.com/gomatvis/gomatvis/npy"
)

// TestSimulateHugeArrayFewPairs (issue 28): `simulate` on the CPU with
// 50 000 antennas and antpairs naming two of them writes the pairs'
// visibilities, and they are those of a spec holding the two antennas
// alone (the visibilities of pair (i, j) depend on antennas i and j
// only): a cross pair given as (j, i) and an autocorrelation, whose
// size bounds the cross pair's (the bar is 1e-12 of it).
func TestSimulateHugeArrayFewPairs(t *testing.T) {
	const nant, i, j = 50_000, 123, 45_678
	dir := t.TempDir()
	// Two channels and two times of the example (its sky, beam and EOP).
	trim := func(m map[string]any) {
		m["freqs_hz"] = m["freqs_hz"].([]any)[:2]
		m["times_jd"] = m["times_jd"].([]any)[:2]
		m["eop"] = m["eop"].([]any)[:2]
		src := m["sources"].(map[string]any)
		for s, f := range src["flux_jy"].([]any) {
			src["flux_jy"].([]any)[s] = f.([]any)[:2]
		}
	}
	pos := func(a int) []any { return []any{float64(a%250) * 0.4, float64(a/250) * 0.4, 0.0} }
	run := func(name string, edit func(m map[string]any)) []complex128 {
		t.Helper()
		sub := filepath.Join(dir, name)
		spec := writeSpec(t, t.TempDir(), func(m map[string]any) { trim(m); edit(m) }, "")
		out := sub + ".npy"
		if code, _, stderr := runCLI(t, "simulate", spec, "-o", out, "--backend", "cpu"); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		a, err := npy.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Shape) != 3 || a.Shape[0] != 2 || a.Shape[1] != 2 || a.Shape[2] != 2 {
			t.Fatalf("%s: output shape %v, want (2 freqs, 2 times, 2 pairs)", name, a.Shape)
		}
		return a.AsComplex128()
	}
	huge := run("huge", func(m map[string]any) {
		ants := make([]any, nant)
		for a := range ants {
			ants[a] = pos(a)
		}
		m["antennas_enu_m"] = ants
		m["antpairs"] = []any{[]any{j, i}, []any{i, i}}
	})
	two := run("two", func(m map[string]any) {
		m["antennas_enu_m"] = []any{pos(i), pos(j)}
		m["antpairs"] = []any{[]any{1, 0}, []any{0, 0}}
	})
	for k := range two {
		if d := cmplx.Abs(huge[k] - two[k]); !(d <= 1e-12*cmplx.Abs(two[k|1])) || two[k] == 0 {
			t.Fatalf("visibility %d: %v from %d antennas, %v from the pair's two (|Δ| = %g)", k, huge[k], nant, two[k], d)
		}
	}
	if auto := huge[1]; !(real(auto) > 0) || math.Abs(imag(auto)) > 1e-12*real(auto) {
		t.Errorf("autocorrelation %v", auto)
	}
}
