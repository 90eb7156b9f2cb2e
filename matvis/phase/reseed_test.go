package phase

import (
	"math"
	"math/cmplx"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// TestWTermsLongBandStaysExact: over a long evenly spaced band (4096
// channels) the phasors stay within the bound of a recurrence re-seeded
// every 16 channels (the package's contract; at most 15 steps from a
// WTerm, each adding a few ulps of the unit phasor and of w·df/c's
// phase), worked here with the literal 16 rather than the code's constant.
// A recurrence never re-seeded drifts by its per-step rounding times the
// channel count: ~10² ulps by the band's end, past that bound.
func TestWTermsLongBandStaysExact(t *testing.T) {
	rng := sharedtest.RNG(t, 11)
	const eps, block, nf = 0x1p-52, 16, 4096
	worst := 0.0
	for trial := range 8 {
		f0 := 100e6 + 100e6*rng.Float64()
		df := 1e3 + 1e5*rng.Float64()
		freqs := make([]float64, nf)
		for c := range freqs {
			freqs[c] = f0 + float64(c)*df
		}
		df = spacingOf(freqs)
		if df == 0 {
			t.Fatalf("trial %d: %v + c·%v Hz not taken as evenly spaced", trial, f0, df)
		}
		w := (2*rng.Float64() - 1) * math.Pow(10, -1+2*rng.Float64())
		ph := make([]complex128, nf)
		wTerms(ph, w, freqs, df)
		for c, f := range freqs {
			turns := math.Abs(w * f / SpeedOfLight)
			bound := 4 * eps * float64(1+c%block) * (1 + 2*math.Pi*turns)
			e := cmplx.Abs(ph[c] - WTerm(w, f))
			worst = max(worst, e/bound)
			if e > bound {
				t.Fatalf("trial %d (w = %v m, df = %v Hz), channel %d: |Δ| = %.3g, bound %.3g", trial, w, df, c, e, bound)
			}
		}
	}
	t.Logf("worst |Δ|: %.3g of the bound", worst)
}
