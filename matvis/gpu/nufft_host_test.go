package gpu

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/nufft"
	"github.com/gomatvis/gomatvis/matvis/nufft/nufftest"
)

// The transform path's host part, tested without a device: which runs
// may take it and why not, and every channel's plan — the targets the
// device transform is retargeted to.

// hostRun is a run holding only what the transform path's host part
// reads (no device).
func hostRun(sim *matvis.Simulation, mode NUFFTMode) *run {
	r := &run{sim: sim, opt: Options{NUFFT: mode}, tune: defaultTuning(), keep: newResident(nil)}
	r.p1, r.nf, r.nant, r.nsrc = sim.Options.Precision == 1, sim.NFeed(), sim.NAnt(), sim.NSrc()
	r.npairs, r.polSky = len(sim.Pairs), sim.SkyPolarized()
	return r
}

// TestNUFFTEligibilityHost: a shared beam (two equal list entries) is
// eligible, with its index; another beam for one antenna, source chunks
// and Off are not, the first two saying why (Off says nothing).
func TestNUFFTEligibilityHost(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 29))
	base := nufftCase{pol: true, gridded: true, coplanar: true, nant: 8, nsrc: 300}
	other, chunked := base, base
	other.otherBeam, chunked.minChunks = true, 4
	for _, c := range []struct {
		name     string
		sim      *matvis.Simulation
		mode     NUFFTMode
		eligible bool
		why      string
	}{
		{"shared", sharedBeamSim(t, rng, base), NUFFTAuto, true, ""},
		{"shared, on", sharedBeamSim(t, rng, base), NUFFTOn, true, ""},
		{"another beam", sharedBeamSim(t, rng, other), NUFFTOn, false, "different beams (2 beams"},
		{"chunks", sharedBeamSim(t, rng, chunked), NUFFTAuto, false, "MinChunks = 4"},
		{"off", sharedBeamSim(t, rng, base), NUFFTOff, false, ""},
	} {
		r := hostRun(c.sim, c.mode)
		if err := r.nufftEligibility(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if (r.nu != nil) != c.eligible || !strings.Contains(r.nufftWhy, c.why) || (c.why == "") != (r.nufftWhy == "") {
			t.Errorf("%s: eligible %v (want %v), why %q (want %q)", c.name, r.nu != nil, c.eligible, r.nufftWhy, c.why)
		}
		if r.nu != nil && c.sim.BeamOf[0] != int(r.nu.beam) && !beam.Same(c.sim.Beams[r.nu.beam], c.sim.Beams[c.sim.BeamOf[0]]) {
			t.Errorf("%s: shared beam %d is not antenna 0's", c.name, r.nu.beam)
		}
	}
}

// TestNUFFTPlansHost: for coplanar and non-coplanar arrays in both
// precisions and both feed counts, every channel's plan (the highest
// channel's grids, nufft.Options.MinGrid) has the grids, kernel and
// centring the device transform's Retarget requires, the accuracy and
// vectors of the precision, and transforms — run here on the CPU from
// the same plan — to the direct sum over targets ω·(x_j − x_i) computed
// here from the antennas, for every output pair; the ahead planner makes
// every channel's device targets, and the measured choice's channel
// bound is max(device time, host time ÷ (workers × times)).
func TestNUFFTPlansHost(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 29))
	for _, c := range []nufftCase{
		{pol: true, gridded: false, coplanar: true, nant: 9, nsrc: 10},
		{pol: false, p1: true, gridded: false, coplanar: false, nant: 7, nsrc: 10, pairs: true},
		{pol: true, p1: true, gridded: false, coplanar: false, nant: 6, nsrc: 10},
	} {
		sim := sharedBeamSim(t, rng, c)
		sim.Freqs = []float64{100e6, 150e6, 125e6} // the highest not last
		r := hostRun(sim, NUFFTOn)
		if err := r.nufftEligibility(); err != nil || r.nu == nil {
			t.Fatalf("%v: not eligible: %v %s", c, err, r.nufftWhy)
		}
		if _, why, err := r.planNUFFT(); err != nil || why != "" {
			t.Fatalf("%v: %v %s", c, err, why)
		}
		nu := r.nu
		wantDim, wantEps, wantNV := 3, nufftEpsDouble, 1
		if c.coplanar {
			wantDim = 2
		}
		if c.p1 {
			wantEps = nufftEpsSingle
		}
		if c.pol {
			wantNV = 4
		}
		if nu.dim != wantDim || nu.eps != wantEps || nu.nv != wantNV {
			t.Errorf("%v: dim %d eps %g vectors %d, want %d %g %d", c, nu.dim, nu.eps, nu.nv, wantDim, wantEps, wantNV)
		}
		for fi, f := range sim.Freqs {
			pl, err := r.nufftPlan(fi, 1)
			if err != nil {
				t.Fatal(err)
			}
			l := pl.Layout()
			if l.NF != nu.lay.NF || l.N2 != nu.lay.N2 || l.W != nu.lay.W || l.Beta != nu.lay.Beta || l.PrePhased || l.M != len(sim.Pairs) || l.Dim != nu.dim {
				t.Errorf("%v: channel %d: grids %v %v, kernel %d %g, pre-phased %v, %d targets, %d-D; the highest channel's %v %v %d %g, %d pairs",
					c, fi, l.NF, l.N2, l.W, l.Beta, l.PrePhased, l.M, l.Dim, nu.lay.NF, nu.lay.N2, nu.lay.W, nu.lay.Beta, len(sim.Pairs))
			}
			checkPlanTargets(t, rng, pl, sim, f, nu)
			if tg, err := r.channelTargets(fi); err != nil || tg == nil {
				t.Errorf("%v: channel %d: the ahead planner's targets: %v", c, fi, err)
			}
		}
		// The pipeline's bound: the device's time, or the host's channel
		// targets over the workers and the times a channel.
		for _, nuMs := range []float64{0, 1e-9, 1e3} {
			perInt, prep, err := r.channelBound(nuMs)
			if err != nil || !(prep > 0) {
				t.Fatalf("%v: channelBound: prep %g ms, %v", c, prep, err)
			}
			if want := max(nuMs, prep/float64(aheadWorkers()*sim.NTime())); perInt != want {
				t.Errorf("%v: channelBound(%g) = %g, want max(%g, %g ms / (%d workers × %d times))", c, nuMs, perInt, nuMs, prep, aheadWorkers(), sim.NTime())
			}
		}
	}
}

// checkPlanTargets transforms random directions above the horizon with
// pl on the CPU and compares with the direct sum at ω·(x_j − x_i).
func checkPlanTargets(t *testing.T, rng *rand.Rand, pl *nufft.Plan, sim *matvis.Simulation, freq float64, nu *nufftStage) {
	t.Helper()
	const n = 400
	x := make([][]float64, nu.dim)
	for d := range x {
		x[d] = make([]float64, n)
	}
	c := make([]complex128, n)
	for i := range n {
		e, nn := 2*rng.Float64()-1, 2*rng.Float64()-1
		for e*e+nn*nn >= 1 {
			e, nn = 2*rng.Float64()-1, 2*rng.Float64()-1
		}
		x[0][i], x[1][i] = e, nn
		if nu.dim == 3 {
			x[2][i] = math.Sqrt(1 - e*e - nn*nn)
		}
		c[i] = complex(rng.NormFloat64(), rng.NormFloat64())
	}
	omega := 2 * math.Pi * freq / beam.SpeedOfLight
	s := make([][]float64, nu.dim)
	for d := range s {
		for _, p := range sim.Pairs {
			s[d] = append(s[d], omega*(sim.Antennas[p[1]][d]-sim.Antennas[p[0]][d]))
		}
	}
	want, err := nufft.Direct(x, c, s, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := pl.SetPoints(x); err != nil {
		t.Fatal(err)
	}
	got := make([]complex128, len(want))
	if err := pl.Execute(c, got); err != nil {
		t.Fatal(err)
	}
	if e := nufftest.RelErr(got, want); !(e <= 10*nu.eps) {
		t.Errorf("%g Hz: the plan's transform differs from the direct sum at ω·(x_j − x_i) by %.3g (bar %.3g)", freq, e, 10*nu.eps)
	}
}
