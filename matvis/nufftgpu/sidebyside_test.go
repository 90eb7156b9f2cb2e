package nufftgpu

import (
	"context"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/internal/gputest"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/gpu"
	"github.com/gomatvis/gomatvis/matvis/nufft"
)

// The side-by-side shape of issue 29's GPU bar: 350 antennas (coplanar,
// uniform in a 400 m square), 10⁶ sources uniform on the sphere, one
// gridded E-field beam shared by every antenna, polarized, fp32, 100 MHz.
const (
	sbsAnts  = 350
	sbsSrcs  = 1_000_000
	sbsTimes = 2
	sbsFreq  = 100e6
)

// TestSideBySide times, in one process, the direct GPU backend
// (matvis/gpu) on that shape and this package's transforms for the same
// antennas and the sources above the horizon at the first time: the four
// feed-pair products of a polarized run as one batch of 4, and as the 2
// transforms of an all-pairs run (two real diagonal products packed into
// one complex strength, the off-diagonal pair's reverse taken from its
// conjugate, as matvis/nufftcpu does). The transforms' strengths are
// random: what the comparison leaves out is the device's coordinates, beam
// and strengths stages, which a backend would add (the direct path's
// coords, beam and tau_z stages are in its time). It also measures the
// fp32 transform's error against fp64 at ε = 1e-12, max|Δ|/max|V| (the
// precision gate's measure). Runs only when NUFFTGPU_BENCH=1.
func TestSideBySide(t *testing.T) {
	if os.Getenv("NUFFTGPU_BENCH") != "1" {
		t.Skip("SKIPPED: set NUFFTGPU_BENCH=1 for the side-by-side timing with matvis/gpu")
	}
	rng := rand.New(rand.NewPCG(29, 350))
	cfg := sbsConfig(t, rng)
	directGPU(t, cfg)
	dv := openDevice(t)
	x, s := sbsCoords(t, cfg)
	t.Logf("NUFFT: %d sources above the horizon at time 0, %d baselines", len(x[0]), len(s[0]))
	for _, nv := range []int{4, 2} {
		c := make([]complex128, nv*len(x[0]))
		for i := range c {
			c[i] = complex(rng.NormFloat64(), rng.NormFloat64())
		}
		pl, tr := newBatch(t, dv, x, s, 1e-6, 1, Single, nv)
		st, wall := timeTransform(t, dv, tr, c)
		t.Logf("SBS nufftgpu fp32 eps=1e-6 %d vectors, grid %v: event medians spread %.3f deconv %.3f fft %.3f interp %.3f total %.3f ms; wall median %.3f ms",
			nv, pl.Grid(), st.Spread, st.Deconv, st.FFT, st.Interp, st.Total(), wall.Seconds()*1e3)
		if nv == 4 {
			peakError(t, dv, tr, x, s, c)
		}
	}
}

// peakError logs max|Δ|/max|V| of tr's fp32 results against the CPU's at
// ε = 1e-12, vector by vector.
func peakError(t *testing.T, dv device, tr *Transform, x, s [][]float64, c []complex128) {
	got := runPoisoned(t, dv, tr, c)
	n, m := len(x[0]), len(s[0])
	for v := range tr.nv {
		ref, err := nufft.Type3(x, c[v*n:(v+1)*n], s, nufft.Options{Eps: 1e-12, Sign: 1})
		gputest.Must(t, err)
		var dmax, vmax float64
		for k, r := range ref {
			dmax = max(dmax, cmplx.Abs(got[v*m+k]-r))
			vmax = max(vmax, cmplx.Abs(r))
		}
		t.Logf("SBS precision vector %d: fp32 eps=1e-6 vs fp64 eps=1e-12: max|dV|/max|V| %.3g (gate 1e-5)", v, dmax/vmax)
		if !(dmax <= 1e-5*vmax) {
			t.Errorf("vector %d: max|dV|/max|V| = %.3g over the 1e-5 gate", v, dmax/vmax)
		}
	}
}

// sbsConfig is the side-by-side simulation's configuration.
func sbsConfig(t *testing.T, rng *rand.Rand) matvis.Config {
	cfg := matvis.Config{Freqs: []float64{sbsFreq}}
	for range sbsAnts {
		cfg.Antennas = append(cfg.Antennas, [3]float64{rng.Float64()*400 - 200, rng.Float64()*400 - 200, 0})
	}
	b := gaussGrid(t, beam.Gaussian{DiameterM: 14}.Sigma(sbsFreq))
	cfg.Beams = []beam.Beam{b}
	cfg.BeamIdx = make([]int, sbsAnts) // every antenna beam 0
	cfg.RA, cfg.Dec, cfg.Flux = make([]float64, sbsSrcs), make([]float64, sbsSrcs), make([]float64, sbsSrcs)
	for i := range cfg.Flux {
		cfg.Flux[i] = rng.Float64() + 0.1
	}
	cfg.Coords = backendtest.NewRotation(rng, sbsTimes, sbsSrcs)
	cfg.Options = matvis.Options{Precision: 1, Polarized: true}
	return cfg
}

// gaussGrid is a 360 × 181 gridded E-field beam: a Gaussian of width
// sigma (radians) in zenith angle with mild azimuthal structure per
// component.
func gaussGrid(t *testing.T, sigma float64) *beam.Gridded {
	const naz, nza = 360, 181
	spec := beam.GridSpec{Name: "gauss14", Type: beam.EField, FreqsHz: []float64{sbsFreq}, Feeds: []string{"x", "y"}, NAxesVec: 2}
	for j := range naz {
		spec.AzRad = append(spec.AzRad, 2*math.Pi*float64(j)/naz)
	}
	for i := range nza {
		spec.ZaRad = append(spec.ZaRad, math.Pi*float64(i)/(nza-1))
	}
	data := make([]complex128, 4*nza*naz)
	for comp := range 4 {
		for i, za := range spec.ZaRad {
			amp := math.Exp(-za * za / (2 * sigma * sigma))
			for j, az := range spec.AzRad {
				data[(comp*nza+i)*naz+j] = complex(amp*(0.7+0.1*float64(comp)*math.Cos(az)), 0.05*amp*math.Sin(az+float64(comp)))
			}
		}
	}
	g, err := beam.NewGridded(spec, data)
	gputest.Must(t, err)
	g, err = g.WithPrecision(1)
	gputest.Must(t, err)
	return g
}

// directGPU runs cfg on matvis/gpu twice (the first a warm-up: compile,
// strategy choice) and logs the second run's GPU time per integration
// (the chunks' stage times, CUDA events) and wall time per integration.
func directGPU(t *testing.T, cfg matvis.Config) {
	sim := backendtest.NewSim(t, cfg)
	be, err := gpu.Open(gpu.Options{})
	gputest.Require(t, err)
	defer be.Close()
	t0 := time.Now()
	if _, err := be.Run(context.Background(), sim); err != nil {
		t.Fatal(err)
	}
	warm := time.Since(t0)
	res, err := be.Run(context.Background(), sim)
	if err != nil {
		t.Fatal(err)
	}
	perInt := map[[2]int]time.Duration{}
	var stages matvis.StageTimes // summed over the run's chunks
	for _, c := range res.Stats.Chunks {
		perInt[[2]int{c.Freq, c.Time}] += c.Stages.Total()
		for st, d := range c.Stages {
			stages[st] += d
		}
	}
	var parts []string
	for st, d := range stages {
		parts = append(parts, fmt.Sprintf("%v %.3f", matvis.Stage(st), d.Seconds()*1e3/float64(len(perInt))))
	}
	t.Logf("SBS matvis/gpu direct: mean GPU ms per integration by stage: %s", strings.Join(parts, ", "))
	var gpuT, wall []float64
	for _, d := range perInt {
		gpuT = append(gpuT, d.Seconds()*1e3)
	}
	for _, d := range res.Stats.Integrations {
		wall = append(wall, d.Seconds()*1e3)
	}
	slices.Sort(gpuT)
	slices.Sort(wall)
	t.Logf("SBS matvis/gpu direct (%d ants, one shared gridded beam, %d sources, %d times, polarized fp32): GPU time per integration %v ms (median %.3f); wall per integration %v ms; %d chunks; Gram %s; setup %.2f s; warm-up run %.2f s",
		sbsAnts, sbsSrcs, sbsTimes, gpuT, gpuT[len(gpuT)/2], wall, res.Plan.NChunks, res.Stats.MatProdImpl, res.Stats.Setup.Seconds(), warm.Seconds())
}

// sbsCoords are the transform's points, the (east, north) directions of
// the sources above the horizon at time 0, and its targets,
// ω·(x_j − x_i) for every ordered pair (the coplanar array has no w).
func sbsCoords(t *testing.T, cfg matvis.Config) (x, s [][]float64) {
	e, n, u := make([]float64, sbsSrcs), make([]float64, sbsSrcs), make([]float64, sbsSrcs)
	gputest.Must(t, cfg.Coords.(*backendtest.Rotation).ENU(0, e, n, u))
	x = [][]float64{nil, nil}
	for i := range u {
		if u[i] > 0 {
			x[0], x[1] = append(x[0], e[i]), append(x[1], n[i])
		}
	}
	omega := 2 * math.Pi * sbsFreq / 299792458.0
	s = [][]float64{nil, nil}
	for _, a := range cfg.Antennas {
		for _, b := range cfg.Antennas {
			s[0], s[1] = append(s[0], omega*(b[0]-a[0])), append(s[1], omega*(b[1]-a[1]))
		}
	}
	return x, s
}
