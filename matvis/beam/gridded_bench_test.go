package beam

import (
	"math"
	"math/rand/v2"
	"testing"
)

// BenchmarkGriddedAt prepares the profiler's gridded beam (14 m Gaussian,
// 360 × 181) at one frequency: frequency weights, 4 planes × re/im,
// azimuth extension and spline prefilter.
func BenchmarkGriddedAt(b *testing.B) {
	g, err := NewGriddedFromAnalytic(Gaussian{DiameterM: 14}, []float64{100e6, 150e6}, 360, 181)
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		order int
		mode  Mode
	}{{"cubic/polarized", 3, Mode{Polarized: true}}, {"cubic/unpolarized", 3, Mode{}}, {"bilinear/polarized", 1, Mode{Polarized: true}}} {
		b.Run(tc.name, func(b *testing.B) {
			gg, _ := g.WithOrder(tc.order)
			for b.Loop() {
				if _, err := gg.At(100e6, tc.mode); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGriddedEval evaluates the prepared beam at 100 000 directions.
func BenchmarkGriddedEval(b *testing.B) {
	g, err := NewGriddedFromAnalytic(Gaussian{DiameterM: 14}, []float64{100e6}, 360, 181)
	if err != nil {
		b.Fatal(err)
	}
	n := 100000
	rng := rand.New(rand.NewPCG(1, 1))
	az, za := make([]float64, n), make([]float64, n)
	for i := range az {
		az[i], za[i] = rng.Float64()*2*math.Pi, rng.Float64()*math.Pi/2
	}
	for _, tc := range []struct {
		name      string
		order, pr int
		mode      Mode
	}{
		{"cubic/polarized/fp64", 3, 2, Mode{Polarized: true}},
		{"cubic/polarized/fp32", 3, 1, Mode{Polarized: true}},
		{"cubic/unpolarized/fp64", 3, 2, Mode{}},
		{"bilinear/polarized/fp64", 1, 2, Mode{Polarized: true}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			gg, _ := g.WithOrder(tc.order)
			gg, _ = gg.WithPrecision(tc.pr)
			r, err := gg.At(100e6, tc.mode)
			if err != nil {
				b.Fatal(err)
			}
			out := make([]complex128, tc.mode.Components()*n)
			for b.Loop() {
				r.Eval(az, za, out)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/source")
		})
	}
}
