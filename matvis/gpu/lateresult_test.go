package gpu

import (
	"context"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// lateBenchSim has prodslice's result size at 64 channels × 16 times
// (350 antennas, all pairs, polarized, fp32: 2.0 GB) with a fifth of its
// sky and one analytic beam: a few ms of device work per integration, more
// than the host's, so that a stall of the host shows in the run's wall.
func lateBenchSim(t *testing.T) *matvis.Simulation {
	rng := rand.New(rand.NewPCG(350, 64))
	var freqs []float64
	for f := range 64 {
		freqs = append(freqs, 100e6+float64(f)*97.65625e3)
	}
	cfg := benchConfig(rng, 350, 200000, 16, freqs, 0)
	cfg.Beams = []beam.Beam{beam.Gaussian{DiameterM: 14}}
	return backendtest.NewSim(t, cfg)
}

// benchConfig is a polarized fp32 configuration of nant antennas in a
// 400 m square and nsrc sources of flat spectra at freqs over ntimes
// times, chunks its MinChunks; the beams are the caller's.
func benchConfig(rng *rand.Rand, nant, nsrc, ntimes int, freqs []float64, chunks int) matvis.Config {
	cfg := matvis.Config{Freqs: freqs}
	for range nant {
		cfg.Antennas = append(cfg.Antennas, [3]float64{rng.Float64()*400 - 200, rng.Float64()*400 - 200, 0})
	}
	cfg.RA, cfg.Dec, cfg.Flux = make([]float64, nsrc), make([]float64, nsrc), make([]float64, nsrc*len(freqs))
	for s := range cfg.Flux {
		cfg.Flux[s] = rng.Float64() + 0.1
	}
	cfg.Coords = backendtest.NewRotation(rng, ntimes, nsrc)
	cfg.Options = matvis.Options{Precision: 1, Polarized: true, MinChunks: chunks}
	return cfg
}

// sameVis fails t when got differs from want by more than 1e-6 of want's
// peak (or is NaN) and logs the difference.
func sameVis(t *testing.T, round int, want, got *matvis.Result) {
	t.Helper()
	var worst, peak float64
	for i, v := range got.Vis64 {
		worst = max(worst, cmplx.Abs(complex128(v-want.Vis64[i])))
		peak = max(peak, cmplx.Abs(complex128(want.Vis64[i])))
	}
	if worst > 1e-6*peak || math.IsNaN(worst) {
		t.Fatalf("round %d: max|Δ| = %g against the first round's, max|V| = %g", round, worst, peak)
	}
	t.Logf("  max|Δ|/max|V| against the first round: %.2e", worst/peak)
}

// TestBenchLateResult (with -gpu-bench) times runs whose 2 GB result is
// allocated in a heap that has just freed a span of that size — the state
// in which the Go runtime zeroes the whole allocation at once, on one
// thread — with the result allocated before the set-up (as before
// matvis.LateResult) and beside it (the default), alternately; it checks
// the two give the same visibilities (≤ 1e-6 of the peak; equal when the
// products are deterministic).
func TestBenchLateResult(t *testing.T) {
	if !*benchFlag {
		t.Skip("timing: run with -gpu-bench")
	}
	g := openGPU(t)
	defer func(tu tuning) { g.tune = tu }(g.tune)
	sim := lateBenchSim(t)
	var first *matvis.Result
	for round := 0; round < 4; round++ {
		before := round%2 == 0
		g.tune.backgroundResult = 64 << 20
		if before {
			g.tune.backgroundResult = math.MaxInt64
		}
		garbage := make([]complex64, sim.OutputBytes()/8)
		garbage[len(garbage)/2] = 1
		runtime.KeepAlive(garbage)
		garbage = nil
		runtime.GC()
		start := time.Now()
		res, err := g.Run(context.Background(), sim)
		wall := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		var resultStep time.Duration
		for _, st := range res.Stats.SetupSteps {
			if st.Name == "result" {
				resultStep = st.Time
			}
		}
		var gpu time.Duration
		for _, c := range res.Stats.Chunks {
			gpu += c.Stages.Total()
		}
		n := sim.NFreq() * sim.NTime()
		mode := map[bool]string{true: "result before set-up", false: "result beside the run"}[before]
		t.Logf("%-22s run wall %.3f s (%.3f ms per integration), set-up %.3f s of which result %.3f s, GPU chunk time %.3f ms per integration, ratio %.2f",
			mode, wall.Seconds(), wall.Seconds()*1e3/float64(n), res.Stats.Setup.Seconds(), resultStep.Seconds(), gpu.Seconds()*1e3/float64(n), wall.Seconds()/gpu.Seconds())
		if first == nil {
			first = res
			continue
		}
		sameVis(t, round, first, res)
		res = nil
		runtime.GC()
	}
}

// streamBenchSim is prodslice (350 antennas, 350 distinct gridded beams
// of 360 × 181, 10⁶ sources, polarized, fp32, 30 chunks) with 16 beam
// channels and nfreq channels across them, ntimes times each, the beams
// interpolated in frequency as interp says.
func streamBenchSim(t *testing.T, nfreq, ntimes int, interp string) *matvis.Simulation {
	rng := rand.New(rand.NewPCG(350, 16))
	const nant = 350
	var beamFreqs, freqs []float64
	for k := range 16 {
		beamFreqs = append(beamFreqs, 100e6+float64(k)*1e6)
	}
	for f := range nfreq {
		freqs = append(freqs, 100.2e6+float64(f)*14.6e6/float64(nfreq))
	}
	cfg := benchConfig(rng, nant, 1000000, ntimes, freqs, 30)
	proto, err := newTestGrid(t, "gauss14x16", 360, 181, beam.Gaussian{DiameterM: 14}.Sigma(100e6), 3, 1, beamFreqs).WithFreqInterp(interp)
	if err != nil {
		t.Fatal(err)
	}
	for range nant {
		b, err := proto.WithOrder(3) // a distinct beam object on the shared grid
		if err != nil {
			t.Fatal(err)
		}
		cfg.Beams = append(cfg.Beams, b)
	}
	return backendtest.NewSim(t, cfg)
}

// TestBenchStreamedBases (with -gpu-bench) runs prodslice with 16 beam
// channels, 350 distinct beams linear in frequency, 32 channels × 4 times,
// with every used beam channel's base held (11.9 GB) and with them
// streamed through a window of 4 per beam (forced), alternately, and
// reports each run's wall and GPU time per integration; the two must
// agree to 1e-6 of the peak.
func TestBenchStreamedBases(t *testing.T) {
	if !*benchFlag {
		t.Skip("timing: run with -gpu-bench")
	}
	g := openGPU(t)
	defer func(tu tuning) { g.tune = tu }(g.tune)
	sim := streamBenchSim(t, 32, 4, "linear")
	var first *matvis.Result
	for round := range 4 {
		g.tune.streamBases = round%2 == 1
		start := time.Now()
		res, err := g.Run(context.Background(), sim)
		wall := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		var gpu time.Duration
		for _, c := range res.Stats.Chunks {
			gpu += c.Stages.Total()
		}
		n := float64(sim.NFreq() * sim.NTime())
		t.Logf("streamed %v: run wall %.3f s (%.3f ms per integration), set-up %.3f s, GPU %.3f ms per integration, ratio %.2f; channel changes %d, %.3f ms of GPU each; host time on channel changes %.3f s; %s",
			g.tune.streamBases, wall.Seconds(), wall.Seconds()*1e3/n, res.Stats.Setup.Seconds(), gpu.Seconds()*1e3/n, wall.Seconds()/gpu.Seconds(),
			res.Stats.ChannelPreps, res.Stats.ChannelPrepGPU.Seconds()*1e3/float64(max(res.Stats.ChannelPreps, 1)), res.Stats.Prepare.Seconds(), res.Stats.ChannelPrep)
		if first == nil {
			first = res
			continue
		}
		sameVis(t, round, first, res)
	}
}
