package nufftcpu

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// TestCancelWithinIntegration: a run of one integration that takes over
// 0.7 s (200 antennas, 2.5·10⁶ sources, polarized, as transforms)
// cancelled 100 ms in returns within 0.5 s of the cancel, and within half
// the time the integration had left — the transforms
// stop inside the integration, which used to run to its end (3.3 s after a
// cancel at 0.3 s, 2026-12-02) — with the context's error and the
// integration not marked done.
func TestCancelWithinIntegration(t *testing.T) {
	if testing.Short() {
		t.Skip("a seconds-long transform")
	}
	rng := rand.New(rand.NewPCG(7, 2))
	const nsrc = 2_500_000
	c := hexConfig(t, rng, 200, nsrc)
	c.Options.Polarized = true
	sim := backendtest.NewSim(t, c)
	be, err := New(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	be.Force = true
	t0 := time.Now()
	if _, err := be.Run(context.Background(), sim); err != nil {
		t.Fatal(err)
	}
	full := time.Since(t0)
	ctx, cancel := context.WithCancel(context.Background())
	var at time.Time
	timer := time.AfterFunc(100*time.Millisecond, func() { at = time.Now(); cancel() })
	defer timer.Stop()
	res, err := be.Run(ctx, sim)
	after := time.Since(at)
	// An integration run to its end returns about full − 100 ms after the
	// cancel; one stopped inside returns within a few of its checks' blocks
	// (stageCancelBar). The bar, half of what was left and at most 0.5 s,
	// tells them apart whenever that is at least 0.3 s: on a machine
	// where this run takes 0.7 s or more (0.88–1.09 s on a quiet 2-core
	// machine, where a bar fixed at 0.5 s had it skip below 1 s).
	bar := min(500*time.Millisecond, (full-100*time.Millisecond)/2)
	t.Logf("uncancelled %v; cancelled at 100 ms: returned %v after the cancel (bar %v): %v", full, after, bar, err)
	if bar < 300*time.Millisecond {
		t.Skipf("SKIPPED, not checked: the uncancelled run took %v here, too short to show a cancel inside an integration", full)
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: error %v, want context.Canceled", err)
	}
	if after > bar {
		t.Errorf("returned %v after the cancel, want under %v (half the %v the integration had left)", after, bar, full-100*time.Millisecond)
	}
	if res != nil && slices.Contains(res.Done, true) {
		t.Errorf("the interrupted integration is marked done")
	}
}

// stageCancelBar is how soon after a cancel inside a stage the run must
// return. Every stage checks the context once per block of
// blocks.Grain = 2^16 sources a worker (placing the transform's points
// every 2^16 points and between its passes, spreading every 4096 points,
// interpolating per block): the dearest block, a cubic-gridded polarized
// beam's 2^16 directions, takes ~15 ms on an idle core; beside a CPU hog
// and the other engineers' jobs (load 10–15 on 2 cores) a worker gets a
// fifth of a core or less, ~75 ms, and the run's return (the workers'
// join, the tally) adds a few scheduler slices. 0.25 s holds that with
// room, and each stage here lasts over 0.4 s unloaded (several times that
// loaded), so a stage without its checks fails it.
const stageCancelBar = 250 * time.Millisecond

// astropySky is a polarized one-integration run of 200 antennas and
// 10⁶ sources placed by astropy's chain (the CLI's coordinates, over a
// second here: ENU by ENUContext, then the horizon cut and az/za).
func astropySky(t *testing.T) *matvis.Simulation {
	rng := rand.New(rand.NewPCG(7, 3))
	const nsrc = 1_000_000
	c := hexConfig(t, rng, 200, nsrc)
	c.Options.Polarized = true
	for s := range nsrc {
		c.RA[s] = 2 * math.Pi * rng.Float64()
		c.Dec[s] = math.Asin(2*rng.Float64() - 1)
	}
	site := astro.Site{LatDeg: -30.72, LonDeg: 21.43, HeightM: 1073}
	rot, err := astro.New(astro.Config{Method: astro.MethodAstropy, Site: site, TimesJD: []float64{2459845.0}, EOP: []astro.EOP{{}}}, c.RA, c.Dec)
	if err != nil {
		t.Fatal(err)
	}
	c.Coords = rot
	return backendtest.NewSim(t, c)
}

// griddedSky is TestCancelWithinIntegration's run (2.5·10⁶ precomputed
// directions) seen by two cubic-gridded beams (Airy dishes of 14 and
// 12 m, on alternate antennas): each an interpolation of 16 nodes and 4
// components per source, ~0.5 s unloaded for both, and three transform
// jobs (one per beam pair), each placing its points.
func griddedSky(t *testing.T) *matvis.Simulation {
	rng := rand.New(rand.NewPCG(7, 2))
	c := hexConfig(t, rng, 200, 2_500_000)
	c.Options.Polarized = true
	c.Beams = nil
	for _, d := range []float64{14, 12} {
		g, err := beam.NewGriddedFromAnalytic(beam.Airy{DiameterM: d}, []float64{150e6}, 72, 37)
		if err != nil {
			t.Fatal(err)
		}
		c.Beams = append(c.Beams, g)
	}
	c.BeamIdx = make([]int, len(c.Antennas))
	for a := range c.BeamIdx {
		c.BeamIdx[a] = a % 2
	}
	return backendtest.NewSim(t, c)
}

// stageTimes runs sim uncancelled and returns its stages' times.
func stageTimes(t *testing.T, be *Backend, sim *matvis.Simulation) matvis.StageTimes {
	full, err := be.Run(context.Background(), sim)
	if err != nil {
		t.Fatal(err)
	}
	var st matvis.StageTimes
	for _, ch := range full.Stats.Chunks {
		for i, d := range ch.Stages {
			st[i] += d
		}
	}
	t.Logf("uncancelled stages: coords %v, beam %v, transforms %v (tau_z %v, matprod %v)", st[matvis.StageCoords], st[matvis.StageBeam], st[matvis.StageTauZ]+st[matvis.StageMatProd], st[matvis.StageTauZ], st[matvis.StageMatProd])
	return st
}

// TestCancelInEachStage cancels a one-integration run 20 ms after each
// stage begins — the coordinates (astropySky), the beams and the
// transforms (griddedSky) — and half-way through the transforms (past
// placing the points: spreading, FFT, interpolation), and checks that the
// cancel landed inside that stage (the next had not begun; else the case
// is reported skipped, not passed), that the run returned within
// stageCancelBar of it with the context's error, and that the
// integration is not marked done.
func TestCancelInEachStage(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds-long runs of 10⁶ sources")
	}
	be, err := New(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	be.Force = true
	sky, gridded := astropySky(t), griddedSky(t)
	stageTimes(t, be, sky)
	st := stageTimes(t, be, gridded)
	transforms := st[matvis.StageTauZ] + st[matvis.StageMatProd]
	for _, tc := range []struct {
		name  string
		sim   *matvis.Simulation
		stage matvis.Stage
		delay time.Duration
	}{
		{"coords", sky, matvis.StageCoords, 20 * time.Millisecond},
		{"beam", gridded, matvis.StageBeam, 20 * time.Millisecond},
		{"transforms", gridded, matvis.StageMatProd, 20 * time.Millisecond},
		{"transforms half-way", gridded, matvis.StageMatProd, transforms / 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			backendtest.CancelInStage(t, tc.name, &be.onStage, func(ctx context.Context) (*matvis.Result, error) { return be.Run(ctx, tc.sim) },
				tc.stage, tc.delay, stageCancelBar)
		})
	}
}

// TestTrialSimStops: the chooser's direct trial computes every source's
// ENU before the run's first integration (seconds at 10⁷ sources); with a
// done context it returns the context's error instead of a trial sky.
func TestTrialSimStops(t *testing.T) {
	sim := backendtest.NewSim(t, hexConfig(t, rand.New(rand.NewPCG(1, 2)), 8, 1000))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if sub, err := trialSim(ctx, sim, 10); !errors.Is(err, context.Canceled) {
		t.Fatalf("trialSim with a done context: %v, %v; want context.Canceled", sub, err)
	}
	if _, err := trialSim(context.Background(), sim, 10); err != nil {
		t.Fatal(err)
	}
}
