package gpu

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
)

// TestParityFused: the fused beam+τ+Z+Gram kernel (forced on) against
// the plain-loop twin (backendtest.Plain) on fresh random inputs, output
// NaN-poisoned by each run: polarized and not, analytic and gridded (cubic and bilinear) beams, 1–3 chunks,
// antenna pairs, M from 9 to 128 (every tile count 1–4, full and ragged
// last tiles), chunks of fewer sources than one slice per block, and a sky
// of 37 sources (partial slices); polarized runs whose beams are all
// gridded on one geometry take the stacked-beam path; bright (×10⁴) and
// faint (×10⁻⁶) skies check the FP16 split's scaling. Each case runs with
// TF32-split and FP16-split products and with the fused kernel off: every
// path must agree with the twin.
func TestParityFused(t *testing.T) {
	g := openGPU(t)
	defer func(o Options) { g.opts = o }(g.opts)
	defer func(tu tuning) { g.tune = tu }(g.tune)
	rng := sharedtest.RNG(t, 13)
	for _, c := range []caseSpec{
		{pol: true, p1: true, gridded: true, chunks: 1, nant: 64, nsrc: 3000 + rng.IntN(1000), order: 3, rot: true},
		{pol: true, p1: true, gridded: false, chunks: 3, nant: 37, nsrc: 2500 + rng.IntN(1000)},
		{pol: false, p1: true, gridded: true, chunks: 2, nant: 100 + rng.IntN(29), nsrc: 2000 + rng.IntN(1000), order: 1, pairs: true},
		{pol: false, p1: true, gridded: false, chunks: 1, nant: 9, nsrc: 700 + rng.IntN(300)},
		{pol: true, p1: true, gridded: true, chunks: 3, nant: 20, nsrc: 5000 + rng.IntN(1000), order: 1, rot: true},
		{pol: true, p1: true, gridded: false, chunks: 1, nant: 9, nsrc: 37},
		// Gridded beams only, one geometry, polarized: the stacked path.
		{pol: true, p1: true, gridded: true, gridOnly: true, chunks: 1, nant: 64, nsrc: 3000 + rng.IntN(1000), order: 3, rot: true},
		{pol: true, p1: true, gridded: true, gridOnly: true, chunks: 3, nant: 23, nsrc: 4000 + rng.IntN(1000), order: 1},
		{pol: true, p1: true, gridded: true, gridOnly: true, chunks: 1, nant: 5, nsrc: 37, order: 3},
		// Bright and faint skies (the FP16 split's scale).
		{pol: true, p1: true, gridded: true, gridOnly: true, chunks: 2, nant: 16, nsrc: 2000, order: 3, fluxScale: 1e4},
		{pol: false, p1: true, gridded: false, chunks: 1, nant: 16, nsrc: 2000, fluxScale: 1e-6},
	} {
		sim := buildSim(t, rng, c)
		want := backendtest.Plain(t, sim)
		for _, v := range []struct {
			mode FusedMode
			f16  bool
		}{{FusedOn, false}, {FusedOn, true}, {FusedOff, false}} {
			mode := v.mode
			g.opts.Fused = mode
			g.tune.fusedF16 = v.f16
			checkParityWith(t, g, sim, want, fmt.Sprintf("fused=%v f16=%v %v", mode, v.f16, c), func(r *matvis.Result) string {
				if r.Stats.MatProdImpl.Fused != (mode == FusedOn) {
					t.Errorf("fused=%v: Stats.MatProdImpl.Fused = %v", mode, r.Stats.MatProdImpl.Fused)
				}
				if stacked := r.Stats.MatProdImpl.Stacked; mode == FusedOn && stacked != c.gridOnly {
					t.Errorf("fused=%v gridded-only=%v: stacked path used = %v", mode, c.gridOnly, stacked)
				}
				return "(" + r.Stats.MatProdImpl.String() + ")"
			})
		}
	}
}

// TestFusedAuto: with Options.Fused auto an eligible run times both paths
// on its first chunk and says so; the result matches the twin either way.
func TestFusedAuto(t *testing.T) {
	g := openGPU(t)
	rng := sharedtest.RNG(t, 17)
	sim := buildSim(t, rng, caseSpec{pol: true, p1: true, gridded: true, chunks: 2, nant: 30, nsrc: 4000, order: 3, rot: true})
	checkParity(t, g, sim, "fused=auto", func(r *matvis.Result) string {
		g := r.Stats.MatProdImpl
		const measured = "measured on the first chunk"
		if !(g.Fused && strings.HasPrefix(g.Why, measured) || !g.Fused && strings.HasPrefix(g.NotFused, "not used: "+measured)) {
			t.Errorf("auto mode did not measure: %q", g)
		}
		return "(" + g.String() + ")"
	})
}

// TestFusedDoesNotFit: when gram_fused's block does not fit on the device
// (here made too large for its shared memory through 128-source slices),
// auto keeps the separate path, says why and still matches the twin; on is
// an error.
func TestFusedDoesNotFit(t *testing.T) {
	g := openGPU(t)
	defer func(o Options) { g.opts = o }(g.opts)
	defer func(tu tuning) { g.tune = tu }(g.tune)
	g.tune.fusedStackedSlice = 128
	rng := sharedtest.RNG(t, 19)
	sim := buildSim(t, rng, caseSpec{pol: true, p1: true, gridded: true, gridOnly: true, chunks: 1, nant: 20, nsrc: 2000, order: 3})
	g.opts.Fused = FusedAuto
	checkParity(t, g, sim, "fused kernel too large, auto", func(r *matvis.Result) string {
		if g := r.Stats.MatProdImpl; g.Fused || !strings.HasPrefix(g.NotFused, "not available on this device") {
			t.Errorf("auto with a kernel that does not fit: Fused %v, NotFused %q", g.Fused, g.NotFused)
		}
		return "(" + r.Stats.MatProdImpl.String() + ")"
	})
	g.opts.Fused = FusedOn
	if _, err := g.Run(context.Background(), sim); err == nil || !strings.Contains(err.Error(), "shared memory") {
		t.Errorf("on with a kernel that does not fit: error %v, want one about its shared memory", err)
	}
}

// TestFusedOnIneligible: forcing the fused kernel on a run it cannot do is
// an error that says why.
func TestFusedOnIneligible(t *testing.T) {
	g := openGPU(t)
	defer func(o Options) { g.opts = o }(g.opts)
	g.opts.Fused = FusedOn
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		spec caseSpec
		want string
	}{
		{caseSpec{pol: true, p1: false, chunks: 1, nant: 8, nsrc: 100}, "precision 2"},
		{caseSpec{pol: true, p1: true, chunks: 1, nant: 65, nsrc: 100}, "M = feeds × antennas = 130 over 128"},
	} {
		_, err := g.Run(context.Background(), buildSim(t, rng, c.spec))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one containing %q", c.spec, err, c.want)
		}
	}
}
