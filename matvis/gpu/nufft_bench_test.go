package gpu

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

var nufftBenchFlag = flag.Bool("gpu-nufft-bench", false, "run the transform path's side-by-side timing and precision gate at 350 antennas × 10⁶ sources")

// The side-by-side shape of issue 29's GPU bar: 350 antennas uniform in a
// 400 m square (no lattice), 10⁶ sources uniform on the sphere, one
// gridded E-field beam (a 14 m Gaussian on 360 az × 181 za) shared by
// every antenna, polarized, two channels of three times.
const (
	sbsAnts  = 350
	sbsSrcs  = 1_000_000
	sbsTimes = 3
)

var sbsFreqs = []float64{100e6, 100.1e6}

// The auto check's run: five times of four channels.
const autoTimes = 5

var autoFreqs = []float64{100e6, 100.1e6, 100.2e6, 100.3e6}

// sbsSim is the side-by-side simulation in precision prec with the
// fluxes of sky (the precision gate's skies), over ntimes times and the
// channels freqs.
func sbsSim(t *testing.T, prec int, sky string, ntimes int, freqs []float64) *matvis.Simulation {
	rng := rand.New(rand.NewPCG(29, 350))
	cfg := matvis.Config{Freqs: freqs}
	for range sbsAnts {
		cfg.Antennas = append(cfg.Antennas, [3]float64{rng.Float64()*400 - 200, rng.Float64()*400 - 200, 0})
	}
	sigma := beam.Gaussian{DiameterM: 14}.Sigma(freqs[0])
	cfg.Beams = []beam.Beam{newTestGrid(t, "gauss14", 360, 181, sigma, 3, prec, freqs)}
	cfg.BeamIdx = make([]int, sbsAnts)
	cfg.RA, cfg.Dec = make([]float64, sbsSrcs), make([]float64, sbsSrcs)
	for s := range sbsSrcs {
		cfg.RA[s] = rng.Float64() * 2 * math.Pi
		cfg.Dec[s] = math.Asin(rng.Float64()*2 - 1)
		for range freqs {
			cfg.Flux = append(cfg.Flux, skyFlux(rng, sky, s))
		}
	}
	cfg.Coords = backendtest.NewRotation(rng, ntimes, sbsSrcs)
	cfg.Options = matvis.Options{Precision: prec, Polarized: true}
	return backendtest.NewSim(t, cfg)
}

// runTimes are one run's GPU time per integration (its chunk samples'
// stage times, CUDA events) and wall time per integration, in ms, sorted.
type runTimes struct {
	gpu, wall []float64
	total     time.Duration
	impl      string
	setup     string // the run's timed set-up steps
}

func timesOf(res *matvis.Result, total time.Duration) runTimes {
	per := map[[2]int]time.Duration{}
	for _, c := range res.Stats.Chunks {
		per[[2]int{c.Freq, c.Time}] += c.Stages.Total()
	}
	var rt runTimes
	for _, d := range per {
		rt.gpu = append(rt.gpu, d.Seconds()*1e3)
	}
	for _, d := range res.Stats.Integrations {
		rt.wall = append(rt.wall, d.Seconds()*1e3)
	}
	slices.Sort(rt.gpu)
	slices.Sort(rt.wall)
	rt.total, rt.impl = total, res.Stats.MatProdImpl.String()
	var steps []string
	for _, st := range res.Stats.SetupSteps {
		steps = append(steps, fmt.Sprintf("%s %.1f ms", st.Name, st.Time.Seconds()*1e3))
	}
	rt.setup = strings.Join(steps, ", ")
	return rt
}

// TestNUFFTSideBySide: on the bar's shape in fp32, the direct path and
// the transform path of this backend, in one process, alternating (a
// warm-up run each first): GPU time per integration (CUDA-event medians)
// and wall time, against the bar of 0.5 × the direct path's GPU time;
// NUFFTAuto's choice there; and the precision gate's measure on its three
// skies (one time, one channel): the fp32 transform against the fp64
// direct path, max|Δ|/max|V| ≤ 1e-5.
func TestNUFFTSideBySide(t *testing.T) {
	if !*nufftBenchFlag {
		t.Skip("SKIPPED: run with -gpu-nufft-bench for the transform path's side-by-side timing")
	}
	direct, nu := nufftGPU(t, NUFFTOff, 0), nufftGPU(t, NUFFTOn, 0)
	sim := sbsSim(t, 1, uniformSky, sbsTimes, sbsFreqs)
	run := func(g *Backend) runTimes {
		t0 := time.Now()
		res, err := g.Run(context.Background(), sim)
		if err != nil {
			t.Fatal(err)
		}
		return timesOf(res, time.Since(t0))
	}
	wd, wn := run(direct), run(nu) // warm-ups: compiling, the strategy and fused choices
	t.Logf("NUFFTSBS warm-up runs (compiling their programs): direct %.3f s, transform %.3f s", wd.total.Seconds(), wn.total.Seconds())
	for round := range 2 {
		d, n := run(direct), run(nu)
		ratio := median(n.gpu) / median(d.gpu)
		t.Logf("NUFFTSBS round %d: direct GPU ms/integration %.3f (%v), wall ms/integration %.3f, run %.3f s [%s]", round, median(d.gpu), d.gpu, median(d.wall), d.total.Seconds(), d.impl)
		t.Logf("NUFFTSBS round %d: nufft  GPU ms/integration %.3f (%v), wall ms/integration %.3f, run %.3f s [%s]", round, median(n.gpu), n.gpu, median(n.wall), n.total.Seconds(), n.impl)
		t.Logf("NUFFTSBS round %d: set-up steps: direct %s; transform %s", round, d.setup, n.setup)
		t.Logf("NUFFTSBS round %d: GPU time ratio nufft/direct %.3f (bar 0.5), wall per integration %.3f", round, ratio, median(n.wall)/median(d.wall))
		if !(ratio <= 0.5) {
			t.Errorf("round %d: the transform's GPU time per integration is %.3f × the direct path's, over the bar 0.5", round, ratio)
		}
	}
	// Many channels of one time each: the wall time per integration
	// with a channel change (the host's plan and Retarget) every time.
	chans := make([]float64, 8)
	for i := range chans {
		chans[i] = 100e6 + float64(i)*0.1e6
	}
	csim := sbsSim(t, 1, uniformSky, 1, chans)
	chooser := nufftGPU(t, NUFFTAuto, 0)
	chooser.opts.NoStrategyCache = true
	var walls []float64
	for i, g := range []*Backend{direct, nu, chooser, chooser} {
		t0 := time.Now()
		res, err := g.Run(context.Background(), csim)
		if err != nil {
			t.Fatal(err)
		}
		ct := timesOf(res, time.Since(t0))
		walls = append(walls, median(ct.wall))
		t.Logf("NUFFTSBS %d channels × 1 time, %s: GPU ms/integration %.3f, wall ms/integration %.3f, run %.3f s [%s]", len(chans), []string{"direct", "transform", "auto (first)", "auto (again)"}[i], median(ct.gpu), median(ct.wall), ct.total.Seconds(), ct.impl)
	}
	if w := walls[3] / walls[0]; !(w <= 1.05) {
		t.Errorf("%d channels × 1 time: auto's wall per integration is %.3f × the direct path's (bar 1.05)", len(chans), w)
	}
	// Two runs of the transform: the spread's atomics add in an order
	// that changes from run to run, so they agree to rounding.
	r1, err1 := nu.Run(context.Background(), csim)
	r2, err2 := nu.Run(context.Background(), csim)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	t.Logf("NUFFTSBS two transform runs of one input: max|Δ|/max|V| = %.3g", backendtest.RelErr(backendtest.Vis(r1), backendtest.Vis(r2)))
	// Auto's choice, in a fresh backend (it compiles its programs, as a
	// new process does) on the bar's shape over autoTimes × autoFreqs
	// integrations (a HERA run has thousands), measured afresh.
	auto := nufftGPU(t, NUFFTAuto, 0)
	auto.opts.NoStrategyCache = true
	t0 := time.Now()
	res, err := auto.Run(context.Background(), sbsSim(t, 1, uniformSky, autoTimes, autoFreqs))
	if err != nil {
		t.Fatal(err)
	}
	at := timesOf(res, time.Since(t0))
	t.Logf("NUFFTSBS auto: %d integrations in %.3f s (GPU ms/integration %.3f, set-up steps %s): %s", len(at.wall), at.total.Seconds(), median(at.gpu), at.setup, res.Stats.MatProdImpl)
	if !usedNUFFT(res) {
		t.Errorf("NUFFTAuto did not choose the transform on the bar's shape: %s", res.Stats.MatProdImpl)
	}
	for _, sky := range []string{uniformSky, brightFaint, allFaint} {
		r2, err := direct.Run(context.Background(), sbsSim(t, 2, sky, 1, sbsFreqs[:1]))
		if err != nil {
			t.Fatal(err)
		}
		r1, err := nu.Run(context.Background(), sbsSim(t, 1, sky, 1, sbsFreqs[:1]))
		if err != nil {
			t.Fatal(err)
		}
		e := backendtest.RelErr(backendtest.Vis(r1), backendtest.Vis(r2))
		t.Logf("NUFFTSBS precision gate %s: fp32 transform vs fp64 direct max|Δ|/max|V| = %.3g (gate 1e-5) [%s]", sky, e, strings.SplitN(r1.Stats.MatProdImpl.String(), " (", 2)[0])
		if !(e <= 1e-5) {
			t.Errorf("precision gate %s: %.3g over 1e-5", sky, e)
		}
	}
}
