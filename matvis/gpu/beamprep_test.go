package gpu

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// prepCase is one configuration of TestDevicePrepMatchesHost.
type prepCase struct {
	name     string
	pol, p1  bool
	analytic bool   // an analytic beam among the gridded ones
	basis    bool   // unpolarized E-field beams with their own basis vectors
	power    bool   // unpolarized power beams
	halfAz   bool   // azimuths that do not wrap
	spectral bool   // a power-law sky model instead of a flux table
	interp   string // the gridded beams' freq_interp_kind ("": cubic)
	pole     bool   // the gridded beams continued through the pole (beam.PoleContinued)
	// manyFreqs: 14 beam channels and 12 channels visited back and
	// forth, more than a streamed window holds.
	manyFreqs bool
}

// powerLaw is a sky of power-law spectra, I(f) = i0·(f/100 MHz)^alpha.
type powerLaw struct{ i0, alpha []float64 }

func (p powerLaw) StokesIAt(f float64, dst []float64) error {
	for s := range dst {
		dst[s] = p.i0[s] * math.Pow(f/100e6, p.alpha[s])
	}
	return nil
}

// randomGrid is a gridded beam of random complex samples (E-field, 2
// feeds × 2 axes, or a power beam of xx and yy) on naz × nza, at freqs;
// basis adds random basis vectors, halfAz samples half the circle (no
// wrap).
func randomGrid(t *testing.T, rng *rand.Rand, c prepCase, naz, nza, order, precision int, freqs []float64) *beam.Gridded {
	t.Helper()
	spec := beam.GridSpec{Name: "random", Type: beam.EField, FreqsHz: freqs, Feeds: []string{"x", "y"}, NAxesVec: 2}
	ncomp := 2
	if c.power {
		spec.Type, spec.Feeds, spec.Pols, spec.NAxesVec = beam.Power, nil, []int{beam.PolXX, beam.PolYY}, 1
	}
	span := 2 * math.Pi
	if c.halfAz {
		span = math.Pi
	}
	for j := range naz {
		spec.AzRad = append(spec.AzRad, span*float64(j)/float64(naz))
	}
	for i := range nza {
		spec.ZaRad = append(spec.ZaRad, 0.5*math.Pi*float64(i)/float64(nza-1))
	}
	data := make([]complex128, spec.NAxesVec*ncomp*len(freqs)*nza*naz)
	for i := range data {
		data[i] = complex(rng.Float64()*2-1, rng.Float64()*2-1)
		if c.power {
			data[i] = complex(rng.Float64(), 0)
		}
	}
	if c.basis {
		spec.Basis = make([]float64, 2*2*nza*naz)
		for i := range spec.Basis {
			spec.Basis[i] = rng.Float64()*2 - 1
		}
	}
	return griddedAs(t, spec, data, order, precision)
}

// prepSim is a small simulation of case c over random gridded beams (one
// shared by two antennas' beam entries, so distinct objects and entries
// differ) at channels on and between the beam channels.
func prepSim(t *testing.T, rng *rand.Rand, c prepCase) *matvis.Simulation {
	t.Helper()
	beamFreqs := []float64{80e6, 95e6, 100e6, 112e6, 125e6, 140e6}
	cfg := matvis.Config{Freqs: []float64{100e6, 117.5e6, 80e6 + 0.3, 139.9e6, 96e6}}
	if c.manyFreqs {
		beamFreqs = nil
		for k := range 14 {
			beamFreqs = append(beamFreqs, 80e6+float64(k)*5e6)
		}
		cfg.Freqs = []float64{81e6, 143e6, 112.5e6, 84e6, 140e6, 97e6, 131e6, 88e6, 126e6, 101e6, 80e6, 145e6}
	}
	nant, nsrc, nt := 6, 50, 1
	for range nant {
		cfg.Antennas = append(cfg.Antennas, [3]float64{rng.Float64()*100 - 50, rng.Float64()*100 - 50, 0})
	}
	for range nsrc {
		cfg.RA = append(cfg.RA, rng.Float64()*2*math.Pi)
		cfg.Dec = append(cfg.Dec, math.Asin(rng.Float64()*2-1))
		for range cfg.Freqs {
			cfg.Flux = append(cfg.Flux, rng.Float64()+0.1)
		}
	}
	if c.spectral {
		pl := powerLaw{make([]float64, nsrc), make([]float64, nsrc)}
		for s := range nsrc {
			pl.i0[s], pl.alpha[s] = rng.Float64()+0.1, -2*rng.Float64()
		}
		cfg.Flux, cfg.Sky = nil, pl
	}
	cfg.Coords = backendtest.RandomTopo(t, rng, nt, nsrc)
	shared := randomGrid(t, rng, c, 36, 19, 3, 2, beamFreqs)
	grids := []*beam.Gridded{shared, randomGrid(t, rng, c, 24, 13, 3, 1, beamFreqs), randomGrid(t, rng, c, 30, 17, 1, 2, beamFreqs)}
	if c.interp != "" {
		for i, g := range grids {
			var err error
			if grids[i], err = g.WithFreqInterp(c.interp); err != nil {
				t.Fatal(err)
			}
		}
	}
	if c.pole {
		for i, g := range grids {
			var err error
			if grids[i], err = g.WithPole(beam.PoleContinued); err != nil {
				t.Fatal(err)
			}
		}
	}
	cfg.Beams = []beam.Beam{grids[0], grids[1], grids[2], grids[0]}
	if c.analytic {
		cfg.Beams = append(cfg.Beams, beam.Gaussian{DiameterM: 14})
	}
	cfg.BeamIdx = make([]int, nant)
	for a := range cfg.BeamIdx {
		cfg.BeamIdx[a] = a % len(cfg.Beams)
	}
	cfg.Options = matvis.Options{Precision: 2, Polarized: c.pol}
	if c.p1 {
		cfg.Options.Precision = 1
	}
	sim, err := matvis.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return sim
}

// TestDevicePrepMatchesHost: the tables the device prepares for each
// channel (bases prefiltered once, a weighted sum per channel) equal the
// host's (matvis/beam's Prepare, packed by buildBeamTables) within 1e-6 of
// the tables' largest value in fp32 and 1e-12 in fp64, on random beams —
// E-field and power, with and without basis vectors, wrapping and not,
// order 1 and 3, float32 and float64 grids, one object behind two beam
// entries — at channels on and between beam channels; the slots are
// poisoned before each preparation; the descriptors equal the host's and
// the per-channel bound holds the tables' largest value.
func TestDevicePrepMatchesHost(t *testing.T) {
	g := openGPU(t)
	cases := []prepCase{
		{name: "polarized fp64", pol: true},
		{name: "polarized fp32", pol: true, p1: true},
		{name: "polarized fp32 analytic", pol: true, p1: true, analytic: true},
		{name: "power from E fp64", analytic: true},
		{name: "power from E with basis fp32", basis: true, p1: true},
		{name: "power beam fp64 half azimuth", power: true, halfAz: true},
		{name: "polarized fp64 half azimuth", pol: true, halfAz: true},
		{name: "polarized fp64 linear in frequency", pol: true, interp: "linear"},
		{name: "power from E fp32 quadratic in frequency", p1: true, interp: "quadratic"},
		{name: "polarized fp64 continued through the pole", pol: true, pole: true},
		{name: "power from E with basis fp32 continued through the pole", basis: true, p1: true, pole: true},
		{name: "polarized fp64 half azimuth, continuation asked (not applied)", pol: true, halfAz: true, pole: true},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(i)+71, 5))
			sim := prepSim(t, rng, c)
			r, err := newRun(context.Background(), g, sim)
			if err != nil {
				t.Fatal(err)
			}
			defer r.close()
			if r.bp == nil {
				t.Fatalf("the run prepares on the host: %s", r.res.Stats.ChannelPrep)
			}
			for fi, f := range sim.Freqs {
				checkPrepChannel(t, r, fi, f)
			}
		})
	}
}

// checkPrepChannel prepares channel fi into its poisoned slot and
// compares it with the host's tables.
func checkPrepChannel(t *testing.T, r *run, fi int, f float64) {
	t.Helper()
	p := r.bp
	sl := fi % 2
	must(t, r.c.SyncStream(r.s))
	must(t, r.c.SyncStream(p.s))
	if p.slot[sl] == 0 {
		t.Fatalf("channel %d: no per-beam slot", fi)
	}
	must(t, r.c.Memset8(p.slot[sl], 0xFF, p.ncoef*2*int64(p.rsize), p.s))
	must(t, p.queue(fi, false))
	must(t, r.c.SyncStream(p.s))
	host, err := buildBeamTables(r.sim, f, r.p1)
	if err != nil {
		t.Fatal(err)
	}
	dev := make([]float64, 2*p.ncoef)
	if r.p1 {
		d32 := make([]float32, 2*p.ncoef)
		must(t, cuda.Download(r.c, d32, p.slot[sl], p.s))
		for i, v := range d32 {
			dev[i] = float64(v)
		}
	} else {
		must(t, cuda.Download(r.c, dev, p.slot[sl], p.s))
	}
	tol := 1e-12
	if r.p1 {
		tol = 1e-6
	}
	worst := 0.0
	for b := range r.sim.Beams {
		if p.uniq[b] < 0 {
			continue
		}
		gr := p.srcs[p.uniq[b]].Grid
		off, n := host.desc[b].Off, int64(gr.NZa*gr.NAz*p.nc)
		for i := 2 * off; i < 2*(off+n); i++ {
			h := hostCoef(host, i)
			if d := math.Abs(dev[i] - h); !(d <= tol*host.maxAbs) {
				t.Fatalf("channel %d (%g Hz), beam %d, value %d: device %v, host %v (|Δ| %.3g of the largest %.3g)", fi, f, b, i, dev[i], h, d/host.maxAbs, host.maxAbs)
			} else {
				worst = max(worst, d/host.maxAbs)
			}
		}
	}
	for b, d := range host.desc {
		if got := p.hostDesc[fi*p.nbeam+b]; got != d {
			t.Fatalf("channel %d: beam %d's descriptor is %+v, host %+v", fi, b, got, d)
		}
	}
	bound, err := p.channelBound(fi)
	must(t, err)
	if !(bound >= host.maxAbs*(1-1e-6)) {
		t.Fatalf("channel %d: bound %g below the tables' largest value %g", fi, bound, host.maxAbs)
	}
	t.Logf("channel %d (%.4f MHz): worst |Δ| %.2e of the largest value; bound/largest %.4f", fi, f/1e6, worst, bound/host.maxAbs)
}

// hostCoef is value i of the host's packed planes as a float64.
func hostCoef(t *beamTables, i int64) float64 {
	if t.coef32 != nil {
		return float64(t.coef32[i])
	}
	return t.coef64[i]
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestDevicePrepParityChannels runs many-channel simulations end to end
// with the device's preparation and compares them with the plain-loop
// twin (channels on and between beam channels, so each slot is reused;
// flux tables on the device and a sky model evaluated channel by channel
// ahead of use).
func TestDevicePrepParityChannels(t *testing.T) {
	g := openGPU(t)
	for i, c := range []prepCase{{name: "pol fp64", pol: true}, {name: "pol fp32", pol: true, p1: true}, {name: "unpol fp64 analytic", analytic: true},
		{name: "pol fp32 spectral sky", pol: true, p1: true, spectral: true},
		{name: "pol fp64 linear in frequency", pol: true, interp: "linear"}} {
		rng := rand.New(rand.NewPCG(uint64(i)+901, 3))
		sim := prepSim(t, rng, c)
		checkParity(t, g, sim, fmt.Sprintf("device prep %s", c.name), func(res *matvis.Result) string {
			return fmt.Sprintf("channel prep %s, %d preps, %v GPU", res.Stats.ChannelPrep, res.Stats.ChannelPreps, res.Stats.ChannelPrepGPU)
		})
	}
}

// TestDevicePrepStreamed: with the bases streamed through a window (as
// when every used beam channel does not fit the device; forced here), each
// channel's tables equal the host's as in TestDevicePrepMatchesHost, over
// channels visited back and forth across more beam channels than the
// window holds, so that its bases are rebuilt; and whole runs equal the
// plain-loop twin.
func TestDevicePrepStreamed(t *testing.T) {
	g := openGPU(t)
	defer func(tu tuning) { g.tune = tu }(g.tune)
	g.tune.streamBases = true
	cases := []prepCase{
		{name: "polarized fp64", pol: true, manyFreqs: true},
		{name: "polarized fp32 linear in frequency", pol: true, p1: true, interp: "linear", manyFreqs: true},
		{name: "power from E with basis fp32", basis: true, p1: true, manyFreqs: true},
		{name: "power beam fp64 half azimuth nearest", power: true, halfAz: true, interp: "nearest", manyFreqs: true},
		{name: "polarized fp32 analytic", pol: true, p1: true, analytic: true, manyFreqs: true},
		{name: "polarized fp64 continued through the pole", pol: true, pole: true, manyFreqs: true},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(i)+171, 9))
			sim := prepSim(t, rng, c)
			r, err := newRun(context.Background(), g, sim)
			if err != nil {
				t.Fatal(err)
			}
			defer r.close()
			if r.bp == nil || r.bp.win == nil {
				t.Fatalf("the bases are not streamed: %s", r.res.Stats.ChannelPrep)
			}
			for fi, f := range sim.Freqs {
				checkPrepChannel(t, r, fi, f)
			}
			used := 0
			for u := range r.bp.srcs {
				used += len(r.bp.used[u])
			}
			if local := c.interp == "linear" || c.interp == "nearest"; local && r.bp.win.builds <= used {
				t.Fatalf("%d builds for %d used beam channels: the window never rebuilt a base", r.bp.win.builds, used)
			} else if !local && len(r.bp.win.holds) != used {
				t.Fatalf("a window of %d bases for %d used beam channels of a global frequency interpolation", len(r.bp.win.holds), used)
			}
			t.Logf("%s; %d builds, %.1f MB of raw planes uploaded", r.res.Stats.ChannelPrep, r.bp.win.builds, float64(r.bp.win.uploadB)/1e6)
		})
	}
	// The power cases' random samples make cubic splines that ring below
	// zero, whose square root is NaN on both backends (as in matvis:
	// TestGriddedNegativePowerIsNaN), so whole runs take the E-field ones.
	for i, c := range []prepCase{cases[0], cases[1], cases[4]} {
		rng := rand.New(rand.NewPCG(uint64(i)+907, 3))
		sim := prepSim(t, rng, c)
		for _, streamed := range []bool{false, true} {
			g.tune.streamBases = streamed
			checkParity(t, g, sim, fmt.Sprintf("streamed %v %s", streamed, c.name), func(res *matvis.Result) string {
				return fmt.Sprintf("channel prep %s, %d preps", res.Stats.ChannelPrep, res.Stats.ChannelPreps)
			})
		}
	}
}
