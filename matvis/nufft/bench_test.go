package nufft

import (
	"math"
	"math/rand/v2"
	"testing"
)

// BenchmarkVisShape is the visibility backend's shape: 2·10⁵ directions in
// the unit disk, 350² baselines of a 300 m array at 2 m wavelength
// (|s| ≤ 2π·150), ε = 1e-12.
func BenchmarkVisShape(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n, nant = 200000, 350
	x := [][]float64{make([]float64, n), make([]float64, n)}
	for j := range n {
		r, th := math.Sqrt(rng.Float64()), 2*math.Pi*rng.Float64()
		x[0][j], x[1][j] = r*math.Cos(th), r*math.Sin(th)
	}
	ant := make([][2]float64, nant)
	for a := range ant {
		r, th := 75*math.Sqrt(rng.Float64()), 2*math.Pi*rng.Float64()
		ant[a] = [2]float64{r * math.Cos(th), r * math.Sin(th)}
	}
	s := [][]float64{make([]float64, 0, nant*nant), make([]float64, 0, nant*nant)}
	for i := range ant {
		for j := range ant {
			s[0] = append(s[0], 2*math.Pi*(ant[j][0]-ant[i][0]))
			s[1] = append(s[1], 2*math.Pi*(ant[j][1]-ant[i][1]))
		}
	}
	c := make([]complex128, n)
	for j := range c {
		c[j] = complex(rng.Float64(), 0)
	}
	f := make([]complex128, nant*nant)
	b.ResetTimer()
	for b.Loop() {
		pl, err := NewPlan(x, s, Options{Eps: 1e-12, Sign: 1})
		if err != nil {
			b.Fatal(err)
		}
		if err := pl.Execute(c, f); err != nil {
			b.Fatal(err)
		}
		st := pl.Stats()
		b.Logf("grid %v, spread %v, fft %v, interp %v", pl.Grid(), st.Spread, st.FFT, st.Interp)
	}
}
