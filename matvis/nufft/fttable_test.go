package nufft

import (
	"math"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// TestFTTable compares the Chebyshev table of the kernel's transform with
// the quadrature at fresh random arguments, inside and beyond the table:
// within 1e-13 relative (both are rounding-limited to a few 1e-14 at the
// band's edge, where the transform is several times smaller than at 0;
// degree 56 measured no better than 40).
func TestFTTable(t *testing.T) {
	rng := sharedtest.RNG(t, 25)
	for _, eps := range []float64{1e-1, 1e-3, 1e-6, 1e-9, 1e-12, MinEps} {
		k := newKernel(eps)
		kmax := 1.01 * math.Pi * float64(k.w) / 4
		tab := newFTTable(k, kmax)
		var worst float64
		for range 2000 {
			kappa := 1.2 * kmax * (2*rng.Float64() - 1)
			want := k.ft(kappa)
			worst = math.Max(worst, math.Abs(tab.at(kappa)-want)/math.Abs(want))
		}
		t.Logf("eps=%g w=%d: max relative difference %.3g", eps, k.w, worst)
		if worst > 1e-13 {
			t.Errorf("eps=%g: table differs from the quadrature by %.3g relative", eps, worst)
		}
	}
}
