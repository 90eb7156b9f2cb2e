package gpu

import (
	"context"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
	"github.com/gomatvis/gomatvis/matvis/nufftgpu"
)

// TestKeptTransformAcrossBlocks: the blocks of a streamed run (times of
// every channel, then channels of one time, as output.Plan cuts them) run
// one after another on one backend. The second and later take the
// transform the first made, pointed at their channels from the targets it
// kept, and each block equals the plain loop over the block and the whole
// run on a fresh backend within the transform's parity bar (its spread
// adds with atomics, so not bit for bit). A run of another array replaces
// the kept transform; a run that does not use the transform leaves none.
func TestKeptTransformAcrossBlocks(t *testing.T) {
	ctx := context.Background()
	rng := sharedtest.RNG(t, 31)
	for _, p1 := range []bool{true, false} {
		c := nufftCase{p1: p1, coplanar: p1, nant: 10, nsrc: 1500 + rng.IntN(1000)}
		tol := 10 * 10 * nufftEpsDouble
		if p1 {
			tol = 1e-5
		}
		sim := sharedBeamSim(t, rng, c) // 2 channels × 3 times
		whole, err := nufftGPU(t, NUFFTOn, 0).Run(ctx, sim)
		if err != nil {
			t.Fatal(err)
		}
		g := nufftGPU(t, NUFFTOn, 0)
		var first *nufftgpu.Transform
		for i, b := range []matvis.Block{{F0: 0, F1: 2, T0: 0, T1: 1}, {F0: 0, F1: 2, T0: 1, T1: 2}, {F0: 1, F1: 2, T0: 2, T1: 3}, {F0: 0, F1: 1, T0: 2, T1: 3}} {
			sub, err := sim.Subset(b)
			if err != nil {
				t.Fatal(err)
			}
			res, err := g.Run(ctx, sub)
			if err != nil {
				t.Fatalf("%v, block %v: %v", c, b, err)
			}
			if !usedNUFFT(res) {
				t.Fatalf("%v, block %v: forced, but the run used %q", c, b, res.Stats.MatProdImpl.Strategy)
			}
			k := g.keep.transform
			if k == nil || k.tr == nil {
				t.Fatalf("%v, block %v: no transform kept after the run", c, b)
			}
			if i == 0 {
				first = k.tr
			} else if k.tr != first {
				t.Errorf("%v, block %v: a new transform, not the first block's", c, b)
			}
			got := backendtest.Vis(res)
			e1 := backendtest.RelErr(got, backendtest.Plain(t, sub))
			e2 := backendtest.RelErr(got, blockOf(backendtest.Vis(whole), sim, b))
			t.Logf("%v, block %v: vs plain loop %.2e, vs the whole run %.2e (bar %.0e)", c, b, e1, e2, tol)
			if !(e1 <= tol) || !(e2 <= tol) {
				t.Errorf("%v, block %v: %.3e from the plain loop, %.3e from the whole run, over %.0e", c, b, e1, e2, tol)
			}
		}
		if n := len(g.keep.transform.targets); n != 2 {
			t.Errorf("%v: targets of %d channels kept, want the 2 channels'", c, n)
		}
		other := sharedBeamSim(t, rng, c)
		res, err := g.Run(ctx, other)
		if err != nil {
			t.Fatal(err)
		}
		if k := g.keep.transform; k == nil || k.tr == nil || k.tr == first {
			t.Errorf("%v: another array's run kept %v, want a transform of its own", c, k)
		}
		if e := backendtest.RelErr(backendtest.Vis(res), backendtest.Plain(t, other)); !(e <= tol) {
			t.Errorf("%v: another array after the kept transform: %.3e from the plain loop", c, e)
		}
		g.opts.NUFFT = NUFFTOff
		if _, err := g.Run(ctx, other); err != nil {
			t.Fatal(err)
		}
		if g.keep.transform != nil {
			t.Errorf("%v: a run without the transform left one kept", c)
		}
	}
}

// blockOf is block b's integrations of a whole run's visibilities v.
func blockOf(v []complex128, sim *matvis.Simulation, b matvis.Block) []complex128 {
	per := len(v) / (sim.NFreq() * sim.NTime())
	var out []complex128
	for f := b.F0; f < b.F1; f++ {
		for ti := b.T0; ti < b.T1; ti++ {
			k := (f*sim.NTime() + ti) * per
			out = append(out, v[k:k+per]...)
		}
	}
	return out
}
