package nufftest

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestProblemAndRelErr: the points and targets lie in their boxes, and
// RelErr is 0 for equal vectors, the ratio of norms by hand, NaN for NaN.
func TestProblemAndRelErr(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x, c, s := Problem(rng, 2, 50, 30, 1.5, 4, 10, -3)
	if len(x) != 2 || len(s) != 2 || len(c) != 50 || len(x[1]) != 50 || len(s[0]) != 30 {
		t.Fatalf("sizes %d %d %d %d %d", len(x), len(s), len(c), len(x[1]), len(s[0]))
	}
	for a := range 2 {
		for _, v := range x[a] {
			if v < 8.5 || v >= 11.5 {
				t.Errorf("point coordinate %g outside 10 ± 1.5", v)
			}
		}
		for _, v := range s[a] {
			if v < -7 || v >= 1 {
				t.Errorf("target coordinate %g outside −3 ± 4", v)
			}
		}
	}
	want := []complex128{3, 4i}
	if e := RelErr(want, want); e != 0 {
		t.Errorf("RelErr of equal vectors %g", e)
	}
	if e := RelErr([]complex128{3, 0}, want); math.Abs(e-0.8) > 1e-15 {
		t.Errorf("RelErr = %g, want 4/5", e)
	}
	if e := RelErr([]complex128{complex(math.NaN(), 0), 4i}, want); !math.IsNaN(e) {
		t.Errorf("RelErr with a NaN = %g, want NaN", e)
	}
}

// TestCondition checks κ = √M·‖c‖₂/‖want‖₂ against values worked by hand.
func TestCondition(t *testing.T) {
	cases := []struct {
		name    string
		c, want []complex128
		kappa   float64
	}{
		// ‖c‖₂ = 5, M = 2, ‖want‖₂ = √50: κ = √2·5/√50 = 1.
		{"no cancellation", []complex128{3, 4i}, []complex128{5, 5i}, 1},
		// ‖c‖₂ = √2, M = 4, ‖want‖₂ = √4·0.1 = 0.2: κ = 2·√2/0.2.
		{"cancelled", []complex128{1, -1}, []complex128{0.1, 0.1, 0.1i, -0.1}, 10 * math.Sqrt2},
		{"zero output", []complex128{1}, []complex128{0, 0}, math.Inf(1)},
	}
	for _, tc := range cases {
		if k := Condition(tc.c, tc.want); math.Abs(k-tc.kappa) > 1e-12*tc.kappa && k != tc.kappa {
			t.Errorf("%s: Condition = %g, want %g", tc.name, k, tc.kappa)
		}
	}
}
