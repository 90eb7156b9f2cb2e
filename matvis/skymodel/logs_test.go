package skymodel

import (
	"math"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// TestLogsTwin: logs, which reuses the logarithm of a repeated value, is
// math.Log of every element, bit for bit, on fresh random frequencies
// with runs of repeats, alternations and ±0 (equal, with different
// logarithms' signs never reached: frequencies are checked positive
// first, but logs must not rely on that).
func TestLogsTwin(t *testing.T) {
	rng := sharedtest.RNG(t, 1)
	for range 200 {
		n := rng.IntN(300)
		f := make([]float64, n)
		for i := range f {
			switch {
			case i > 0 && rng.IntN(3) > 0:
				f[i] = f[i-1]
			case rng.IntN(10) == 0:
				f[i] = []float64{0, math.Copysign(0, -1), math.Inf(1), math.NaN(), 1}[rng.IntN(5)]
			default:
				f[i] = 1e8 * (1 + rng.Float64())
			}
		}
		got := logs(f)
		for i, v := range f {
			want := math.Log(v)
			if math.Float64bits(got[i]) != math.Float64bits(want) && !(math.IsNaN(got[i]) && math.IsNaN(want)) {
				t.Fatalf("logs(%v)[%d] = %v, want math.Log(%v) = %v", f, i, got[i], v, want)
			}
		}
	}
}
