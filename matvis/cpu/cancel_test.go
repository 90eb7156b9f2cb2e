package cpu

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// stageCancelBar is how soon after a cancel inside a stage the run must
// return. Each stage checks the context once per block of blocks.Grain =
// 2^16 sources a worker, the Gram product once per call of
// herkBlockWork = 2^26 complex multiply-adds (0.54 Gflop: 0.1–0.2 s on
// one core for the pure-Go herk, 0.4–0.5 s measured beside a CPU hog at
// load 19), the dearest of the blocks; 0.6 s holds that with room and
// stays well inside issue 41's 1 s, and is under the Gram stage's own
// length here (1–3 s), which the old 2^30 calls fail (0.83 s at load 19).
const stageCancelBar = 600 * time.Millisecond

// cancelSky is a polarized one-integration run of 16 antennas and
// 10⁶ precomputed directions, all in one chunk, with two
// cubic-gridded beams: each stage lasts 0.2–1 s on an idle core.
func cancelSky(t *testing.T) *matvis.Simulation {
	rng := rand.New(rand.NewPCG(7, 4))
	const nsrc, nant = 1_000_000, 16
	c := matvis.Config{Options: matvis.Options{Precision: 2, Polarized: true}}
	for a := range nant {
		c.Antennas = append(c.Antennas, [3]float64{14.6 * float64(a%4), 14.6 * float64(a/4), 0})
	}
	c.Freqs = []float64{150e6}
	c.RA, c.Dec = make([]float64, nsrc), make([]float64, nsrc)
	for range nsrc {
		c.Flux = append(c.Flux, 0.1+10*rng.Float64())
	}
	c.Coords = backendtest.RandomTopo(t, rng, 1, nsrc)
	for _, d := range []float64{14, 12} {
		g, err := beam.NewGriddedFromAnalytic(beam.Airy{DiameterM: d}, []float64{150e6}, 72, 37)
		if err != nil {
			t.Fatal(err)
		}
		c.Beams = append(c.Beams, g)
	}
	c.BeamIdx = make([]int, nant)
	for a := range c.BeamIdx {
		c.BeamIdx[a] = a % 2
	}
	return backendtest.NewSim(t, c)
}

// TestCancelInEachStage cancels the run of cancelSky 20 ms after each
// stage begins — coordinates, beams, Z, the Gram product — and checks
// that the cancel landed inside the stage (the next had not begun; else
// the case is reported skipped, not passed), that the run returned within
// stageCancelBar of it with the context's error, and that the
// integration is not marked done.
func TestCancelInEachStage(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds-long runs of 10⁶ sources")
	}
	sim := cancelSky(t)
	be := New()
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
	t.Logf("uncancelled: %d chunk(s); stages %v", len(full.Stats.Chunks), st)
	for _, stage := range []matvis.Stage{matvis.StageCoords, matvis.StageBeam, matvis.StageTauZ, matvis.StageMatProd} {
		t.Run(stage.String(), func(t *testing.T) {
			backendtest.CancelInStage(t, stage.String(), &be.onStage, func(ctx context.Context) (*matvis.Result, error) { return be.Run(ctx, sim) },
				stage, 20*time.Millisecond, stageCancelBar)
		})
	}
}
