package gpu

import (
	"context"
	"errors"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/cpu"
)

// TestCancelKeepsFinishedWork cancels a GPU run from its progress callback
// and checks that the result says which integrations finished, that those
// equal the CPU's, and that the run reports the cancellation.
func TestCancelKeepsFinishedWork(t *testing.T) {
	g := openGPU(t)
	defer g.Close()
	rng := rand.New(rand.NewPCG(rand.Uint64(), 21))
	sim := buildSim(t, rng, caseSpec{pol: true, gridded: true, order: 3, chunks: 2, nant: 6, nsrc: 1500})
	want, err := cpu.New().Run(context.Background(), sim)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopAt := 2
	sim.Options.Progress = func(p matvis.Progress) {
		if p.Done == stopAt {
			cancel()
		}
	}
	got, err := g.Run(ctx, sim)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if got == nil {
		t.Fatal("no result after cancellation")
	}
	done := 0
	per := len(flatVis(got)) / len(got.Done)
	gv, wv := flatVis(got), flatVis(want)
	for i, d := range got.Done {
		if !d {
			continue
		}
		done++
		var dmax, vmax float64
		for k := i * per; k < (i+1)*per; k++ {
			dmax = max(dmax, cmplx.Abs(gv[k]-wv[k]))
			vmax = max(vmax, cmplx.Abs(wv[k]))
		}
		if !(dmax <= parityTol(sim)*vmax) {
			t.Fatalf("finished integration %d differs from the CPU: %.3g of %.3g", i, dmax, vmax)
		}
	}
	if done < stopAt || done == len(got.Done) {
		t.Fatalf("%d of %d integrations marked done after cancelling at %d", done, len(got.Done), stopAt)
	}
	t.Logf("cancelled after %d of %d integrations; the finished ones equal the CPU's", done, len(got.Done))
}
