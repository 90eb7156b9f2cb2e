package nufft

import (
	"math"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// TestTableWeights compares the tabulated weights with the kernel's exact
// ones at fresh random positions, for every width: within ε/20 of the
// peak (1), or 2e-14 (rounding). The square-root branch of φ at the
// support's ends, where φ is e^{−β}, limits the cubic to about ε/100.
func TestTableWeights(t *testing.T) {
	rng := sharedtest.RNG(t, 27)
	for p := 1; p <= 14; p++ {
		eps := math.Pow(10, -float64(p))
		k := newKernel(eps)
		tab := newKernelTable(k)
		exact := make([]float64, k.w)
		got := make([]float64, k.w)
		var worst float64
		for range 20000 {
			x := 1000 * (rng.Float64() - 0.5)
			if f1, f2 := k.weights(exact, x), tab.weights(got, x); f1 != f2 {
				t.Fatalf("w=%d x=%g: first index %d exact, %d tabulated", k.w, x, f1, f2)
			}
			for a := range exact {
				worst = math.Max(worst, math.Abs(exact[a]-got[a]))
			}
		}
		t.Logf("w=%d beta=%.3g: max |table - exact| = %.3g", k.w, k.beta, worst)
		if bar := max(eps/20, 2e-14); worst > bar {
			t.Errorf("w=%d: max |table - exact| = %.3g > %g", k.w, worst, bar)
		}
	}
}
