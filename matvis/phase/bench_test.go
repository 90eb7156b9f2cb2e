package phase

import (
	"math/rand/v2"
	"testing"

	"github.com/gomatvis/gomatvis/matvis/astro"
)

// BenchmarkApply phases one time of a 350-antenna array (61425 baselines
// with autos) × 64 channels × 4 polarizations: the Measurement Set bar's
// block size.
func BenchmarkApply(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	s, enu := randomArray(rng, 350, 1000)
	p, err := New(s, ECEFFromENU(s, enu), Centre{RA: 1, Dec: -0.5})
	if err != nil {
		b.Fatal(err)
	}
	var a1, a2 []int
	for i := range enu {
		for j := range i + 1 {
			a1, a2 = append(a1, i), append(a2, j)
		}
	}
	freqs := make([]float64, 64)
	for i := range freqs {
		freqs[i] = 100e6 + float64(i)*97656.25
	}
	vis := make([]complex128, len(a1)*len(freqs)*4)
	uvw := make([][3]float64, len(a1))
	b.ResetTimer()
	for range b.N {
		tm, err := p.At(2459845, 1, astro.EOP{})
		if err != nil {
			b.Fatal(err)
		}
		if err := tm.Apply(a1, a2, freqs, 4, vis, uvw); err != nil {
			b.Fatal(err)
		}
	}
}
