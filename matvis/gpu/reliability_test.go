package gpu

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
)

// TestCancelBetweenLaunches runs with a context cancelled before the
// first chunk is queued: the run must stop between launches with the
// context's error and mark nothing done (it used to queue and finish the
// whole integration first).
func TestCancelBetweenLaunches(t *testing.T) {
	g := openGPU(t)
	defer g.Close()
	rng := rand.New(rand.NewPCG(rand.Uint64(), 31))
	sim := buildSim(t, rng, caseSpec{chunks: 8, nant: 6, nsrc: 4000})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := g.Run(ctx, sim)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if res != nil && res.Done[0] {
		t.Fatal("an integration queued after the cancellation is marked done")
	}
}

// TestNonFiniteOutputIsAnError gives the sources the largest finite flux:
// the sums overflow, and the run must fail naming the integration.
func TestNonFiniteOutputIsAnError(t *testing.T) {
	g := openGPU(t)
	defer g.Close()
	rng := rand.New(rand.NewPCG(rand.Uint64(), 32))
	sim := buildSim(t, rng, caseSpec{nant: 4, nsrc: 200, fluxScale: 1.7e308 / 5.1})
	_, err := g.Run(context.Background(), sim)
	if !errors.Is(err, matvis.ErrNonFinite) {
		t.Fatalf("error %v, want matvis.ErrNonFinite", err)
	}
}
