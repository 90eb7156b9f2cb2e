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

// TestLayoutPointMap checks that the layout's point map places every
// point where the plan placed it (P, through Perm), inside [PointLo,
// PointHi], and that PrePhased says whether the pre-phases differ from 1.
func TestLayoutPointMap(t *testing.T) {
	for _, soff := range []float64{0, 7} {
		x := [][]float64{{-1, 0.5, 2, 3}, {0.1, -0.4, 1, 2}}
		s := [][]float64{{soff - 3, soff + 3, soff}, {soff - 2, soff + 2, soff}}
		pl, err := NewPlan(x, s, Options{Eps: 1e-6, Sign: 1})
		if err != nil {
			t.Fatal(err)
		}
		l := pl.Layout()
		if l.PrePhased != (soff != 0) {
			t.Errorf("soff %g: PrePhased %v", soff, l.PrePhased)
		}
		for d := range l.Dim {
			for i, j := range l.Perm {
				got := x[d][j]*l.PointScale[d] + l.PointShift[d]
				if math.Abs(got-l.P[d][i]) > 1e-12*math.Abs(l.P[d][i]) {
					t.Errorf("axis %d point %d: mapped to %v, the plan has %v", d, j, got, l.P[d][i])
				}
				if got < l.PointLo[d]-1e-9 || got > l.PointHi[d]+1e-9 {
					t.Errorf("axis %d point %d: %v outside [%v, %v]", d, j, got, l.PointLo[d], l.PointHi[d])
				}
			}
			if l.PointLo[d] < float64(l.W)/2 || l.PointHi[d] > float64(l.NF[d])-float64(l.W)/2 {
				t.Errorf("axis %d: extent [%v, %v] leaves no room for the kernel's half width %d/2 in %d cells", d, l.PointLo[d], l.PointHi[d], l.W, l.NF[d])
			}
		}
	}
}
