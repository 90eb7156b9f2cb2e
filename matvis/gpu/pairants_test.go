package gpu

import (
	"context"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/cpu"
)

// TestHugeArrayOnePair (issue 28): 150 000 antennas at random positions
// with one antenna pair, a small sky, run on the device. The full array's
// Gram product would be (nfeed·150 000)² complex values (360 GB in fp64
// for one feed); Run simulates the pair's antennas alone
// (matvis.Simulation.OverPairAntennas), so the run must succeed within
// 4 GB of device memory — used (free memory before the run less the
// least seen during it), allocated by the backend at its peak, and the
// Gram-strategy measurement's scratch — with a memory plan that fits, and
// its visibilities must be the CPU backend's for the full array (which
// forms the asked pairs only) within backendtest.Tolerance (4e-6 fp32, 1e-11 fp64) of the
// pair's larger autocorrelation, which bounds |V_ij| and the sum of its
// terms' sizes (Cauchy–Schwarz). The CPU reference asks for the pair and
// both autocorrelations at once, the device for the pair alone. The CPU
// reference over all 150 000 antennas takes 5–9 s a case (it builds Z for
// every antenna); the device run, milliseconds.
func TestHugeArrayOnePair(t *testing.T) {
	g := openGPU(t)
	const nant, nsrc = 150_000, 300
	rng := backendtest.NewRNG(t, 28)
	grid, err := beam.NewGriddedFromAnalytic(beam.Gaussian{SigmaRad: 0.4}, []float64{100e6, 125e6, 150e6, 175e6, 200e6}, 72, 37)
	if err != nil {
		t.Fatal(err)
	}
	i, j := rng.IntN(nant), rng.IntN(nant-1)
	if j >= i {
		j++
	}
	for _, c := range []struct {
		prec    int
		pol     bool
		gridded bool
		auto    bool
	}{
		// M = feeds × antennas of the device's Gram product: 2, 4, 2,
		// 1 and 1.
		{prec: 1},
		{prec: 2, pol: true, gridded: true},
		{prec: 1, pol: true, auto: true},
		{prec: 2, gridded: true, auto: true},
		{prec: 1, gridded: true, auto: true},
	} {
		pair := [2]int{i, j}
		if c.auto {
			pair[1] = i
		}
		t.Run(fmt.Sprintf("fp%d polarized=%v gridded=%v pair %v", 32*c.prec, c.pol, c.gridded, pair), func(t *testing.T) {
			cfg := hugeArray(t, rng, nant, nsrc, c.gridded, grid)
			cfg.Options = matvis.Options{Precision: c.prec, Polarized: c.pol, AntPairs: [][2]int{pair}}
			sim, err := matvis.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			t0 := time.Now()
			res, err := g.Run(context.Background(), sim)
			if err != nil {
				t.Fatalf("gpu: %v", err)
			}
			wall := time.Since(t0)
			if !res.Complete() || fmt.Sprint(res.Shape) != fmt.Sprint(sim.OutputShape()) || res.Precision != c.prec {
				t.Fatalf("result: complete %v, shape %v precision %d; want %v, %d", res.Complete(), res.Shape, res.Precision, sim.OutputShape(), c.prec)
			}
			d := res.Stats.Device
			if d == nil {
				t.Fatal("no Stats.Device from a GPU run")
			}
			const limit = 4e9
			if float64(d.UsedPeakBytes) > limit || float64(d.AllocatedPeakBytes) > limit || float64(d.ScratchBytes) > limit {
				t.Errorf("device memory: used %d B, allocated %d B (%v), strategy scratch %d B; want each ≤ 4 GB",
					d.UsedPeakBytes, d.AllocatedPeakBytes, d.AllocatedTerms, d.ScratchBytes)
			}
			if !res.Plan.Fits || float64(res.Plan.Total) > limit {
				t.Errorf("memory plan: fits %v, %d B in %d chunks", res.Plan.Fits, res.Plan.Total, res.Plan.NChunks)
			}

			// The CPU reference: the full array, the pair and both
			// autocorrelations, only those pairs formed.
			rc := cfg
			rc.Options.AntPairs = [][2]int{pair, {pair[0], pair[0]}, {pair[1], pair[1]}}
			rc.Options.MatProd = matvis.MatProdPairs
			ref, err := matvis.New(rc)
			if err != nil {
				t.Fatal(err)
			}
			t1 := time.Now()
			want, err := cpu.New().Run(context.Background(), ref)
			if err != nil {
				t.Fatalf("cpu: %v", err)
			}
			// The backends' parity bar (fp32: the FP16-split products
			// of the GPU's product reach ~1e-6 of the peak on their own).
			bar := backendtest.Tolerance(c.prec)
			nf := sim.NFeed()
			worst := 0.0
			for f := range sim.NFreq() {
				for ti := range sim.NTime() {
					scale := 0.0
					for _, k := range []int{1, 2} {
						for p := range nf {
							scale = math.Max(scale, cmplx.Abs(want.At(f, ti, k, p, p)))
						}
					}
					if !(scale > 0) {
						t.Fatalf("freq %d time %d: autocorrelations %v: no visible source?", f, ti, scale)
					}
					for p := range nf {
						for q := range nf {
							got, w := res.At(f, ti, 0, p, q), want.At(f, ti, 0, p, q)
							e := cmplx.Abs(got-w) / scale
							if math.IsNaN(e) || e > bar {
								t.Errorf("freq %d time %d feeds (%d, %d): gpu %v, cpu %v: |Δ| = %.3g of the larger autocorrelation, bar %g", f, ti, p, q, got, w, e, bar)
							}
							worst = math.Max(worst, e)
						}
					}
				}
			}
			t.Logf("gpu %v (cpu over all %d antennas %v): |Δ| ≤ %.3g of the autocorrelation; device used %.3g MB, allocated %.3g MB, scratch %.3g MB; plan %d B in %d chunk(s); %s",
				wall, nant, time.Since(t1), worst, float64(d.UsedPeakBytes)/1e6, float64(d.AllocatedPeakBytes)/1e6, float64(d.ScratchBytes)/1e6,
				res.Plan.Total, res.Plan.NChunks, res.Stats.MatProdImpl)
		})
	}
}

// hugeArray is a configuration of nant antennas at random positions in a
// 100 m square, nsrc random sources seen at two times in two channels,
// and either three analytic beams or grid (a cubic-spline Gaussian: no
// zero for the spline to overshoot into a NaN power beam) and an analytic
// one, assigned to the antennas at random.
func hugeArray(t *testing.T, rng *rand.Rand, nant, nsrc int, gridded bool, grid beam.Beam) matvis.Config {
	c := matvis.Config{Freqs: []float64{110e6, 160e6}}
	c.Antennas = make([][3]float64, nant)
	for a := range c.Antennas {
		c.Antennas[a] = [3]float64{rng.Float64()*100 - 50, rng.Float64()*100 - 50, rng.Float64() - 0.5}
	}
	c.RA, c.Dec = make([]float64, nsrc), make([]float64, nsrc)
	c.Flux = make([]float64, nsrc*len(c.Freqs))
	for k := range c.Flux {
		c.Flux[k] = 0.1 + 10*rng.Float64()
	}
	c.Coords = backendtest.RandomTopo(t, rng, 2, nsrc)
	c.Beams = []beam.Beam{beam.Gaussian{SigmaRad: 0.4}, beam.Airy{DiameterM: 14}, beam.ShortDipole{}}
	if gridded {
		c.Beams = []beam.Beam{grid, beam.Gaussian{SigmaRad: 0.5}}
	}
	c.BeamIdx = make([]int, nant)
	for a := range c.BeamIdx {
		c.BeamIdx[a] = rng.IntN(len(c.Beams))
	}
	return c
}
