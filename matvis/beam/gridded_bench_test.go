package beam

import (
	"cmp"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
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
		pole  string
	}{{"cubic/polarized", 3, Mode{Polarized: true}, PoleEdge}, {"cubic/unpolarized", 3, Mode{}, PoleEdge}, {"bilinear/polarized", 1, Mode{Polarized: true}, PoleEdge},
		{"cubic/polarized/continued", 3, Mode{Polarized: true}, PoleContinued}, {"cubic/unpolarized/continued", 3, Mode{}, PoleContinued}} {
		b.Run(tc.name, func(b *testing.B) {
			gg, _ := g.WithOrder(tc.order)
			gg, _ = gg.WithPole(tc.pole)
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

// manyBeams prepares nb polarized cubic fp32 copies of the profiler's
// gridded beam (each its own planes, as the CPU backend prepares every
// beam of the prodslice preset) and n directions uniform on the upper
// hemisphere in random order.
func manyBeams(b *testing.B, nb, n int) (resp []*GriddedResponse, az, za []float64) {
	g, err := NewGriddedFromAnalytic(Gaussian{DiameterM: 14}, []float64{100e6}, 360, 181)
	if err != nil {
		b.Fatal(err)
	}
	if g, err = g.WithPrecision(1); err != nil {
		b.Fatal(err)
	}
	resp = make([]*GriddedResponse, nb)
	for i := range resp {
		if resp[i], err = g.Prepare(100e6, Mode{Polarized: true}); err != nil {
			b.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(2, 3))
	az, za = make([]float64, n), make([]float64, n)
	for i := range az {
		az[i], za[i] = rng.Float64()*2*math.Pi, math.Acos(1-rng.Float64())
	}
	return resp, az, za
}

// BenchmarkGriddedEvalBeams is the CPU backend's beam stage for one
// prodslice chunk: 350 polarized cubic fp32 beams, each on its own planes,
// at the ≈ 16 667 visible sources of a chunk, beam after beam, the
// sources split over the cores.
func BenchmarkGriddedEvalBeams(b *testing.B) {
	const nb, n = 350, 16667
	resp, az, za := manyBeams(b, nb, n)
	workers := runtime.GOMAXPROCS(0)
	out := make([]complex128, 4*n)
	b.Run("eval", func(b *testing.B) {
		for b.Loop() {
			for _, r := range resp {
				var wg sync.WaitGroup
				per := (n + workers - 1) / workers
				for lo := 0; lo < n; lo += per {
					hi := min(lo+per, n)
					wg.Add(1)
					go func() {
						defer wg.Done()
						tmp := make([]complex128, 4*(hi-lo))
						r.Eval(az[lo:hi], za[lo:hi], tmp)
						for c := range 4 {
							copy(out[c*n+lo:c*n+hi], tmp[c*(hi-lo):(c+1)*(hi-lo)])
						}
					}()
				}
				wg.Wait()
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n*nb), "ns/beam-source")
	})
	// The directions located once for all beams, each beam evaluated in
	// place over the cores' blocks; then the same with the directions in
	// azimuth-column order (sky order within a column), as the CPU backend
	// orders a chunk's sources.
	points := func(az, za []float64) func(b *testing.B) {
		return func(b *testing.B) {
			var pts GridPoints
			for b.Loop() {
				if err := pts.Reset(resp[0].Grid(), n); err != nil {
					b.Fatal(err)
				}
				pts.Locate(0, az, za)
				for _, r := range resp {
					var wg sync.WaitGroup
					per := (n + workers - 1) / workers
					for lo := 0; lo < n; lo += per {
						wg.Add(1)
						go func() {
							defer wg.Done()
							if err := r.EvalPoints(&pts, lo, min(lo+per, n), out); err != nil {
								b.Error(err)
							}
						}()
					}
					wg.Wait()
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n*nb), "ns/beam-source")
		}
	}
	b.Run("points", points(az, za))
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	grid := resp[0].Grid()
	col := func(i int) int { return grid.Cell(az[i], za[i]) % grid.NAz }
	slices.SortStableFunc(idx, func(i, j int) int { return cmp.Compare(col(i), col(j)) })
	saz, sza := make([]float64, n), make([]float64, n)
	for i, j := range idx {
		saz[i], sza[i] = az[j], za[j]
	}
	b.Run("points/column-order", points(saz, sza))
}
