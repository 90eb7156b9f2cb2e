package nufft

import (
	"math"
	"math/cmplx"
	"testing"
)

// TestLayoutComplete: a plan's layout has a permutation, a pre-phase and a
// coordinate per point and per target on every active axis — also for a
// plan whose targets are centred at 0, which keeps no pre-phase of its own
// (the layout's are then ones) — and every phase has modulus 1.
func TestLayoutComplete(t *testing.T) {
	for _, c := range []struct {
		name   string
		soff   float64
		phased bool
	}{{"centred targets", 0, false}, {"offset targets", 7, true}} {
		x := [][]float64{{-1, 0.5, 2, 3}, {0.1, -0.4, 1, 2}}
		s := [][]float64{{c.soff - 3, c.soff + 3, c.soff}, {c.soff - 2, c.soff + 2, c.soff}}
		pl, err := NewPlan(x, s, Options{Eps: 1e-6, Sign: 1})
		if err != nil {
			t.Fatal(err)
		}
		if (pl.pre != nil) != c.phased {
			t.Fatalf("%s: the plan keeps a pre-phase: %v, want %v (the case no longer tests what it says)", c.name, pl.pre != nil, c.phased)
		}
		l := pl.Layout()
		if len(l.Perm) != l.N || len(l.Pre) != l.N || len(l.QOrder) != l.M || len(l.Post) != l.M || l.N != 4 || l.M != 3 {
			t.Fatalf("%s: layout sizes perm %d pre %d qorder %d post %d for N %d M %d", c.name, len(l.Perm), len(l.Pre), len(l.QOrder), len(l.Post), l.N, l.M)
		}
		for d := range l.Dim {
			if len(l.P[d]) != l.N || len(l.Q[d]) != l.M {
				t.Errorf("%s: axis %d: %d point and %d target coordinates", c.name, d, len(l.P[d]), len(l.Q[d]))
			}
		}
		for i, p := range l.Pre {
			if math.Abs(cmplx.Abs(p)-1) > 1e-15 {
				t.Errorf("%s: pre-phase %d = %v, not of modulus 1", c.name, i, p)
			}
		}
	}
}
