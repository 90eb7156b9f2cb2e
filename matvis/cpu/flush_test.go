package cpu

import (
	"context"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/cblas"
)

// deepSidelobeConfig is a sky seen through far sidelobes: sources spread
// over the upper hemisphere (all visible) behind a 0.15 rad Gaussian, whose
// E-field response falls to 2.5e-10 at za = 1 rad and 1.6e-24 at the
// horizon, so that products of Z's entries reach 1e-48, far below
// float32's normal range. One antenna in three has a short dipole, whose
// polarized components pass through zero.
func deepSidelobeConfig(t testing.TB, rng *rand.Rand, nant, nsrc, nfreq int, o matvis.Options) matvis.Config {
	c := backendtest.Random(t, rng, backendtest.Shape{NAnt: nant, NSrc: nsrc, NFreq: nfreq, NTime: 1}, backendtest.SkyPrecomputed, backendtest.BeamsAnalytic, o)
	topo := make([]float64, 3*nsrc)
	for s := range nsrc {
		u := rng.Float64()
		phi := 2 * math.Pi * rng.Float64()
		r := math.Sqrt(1 - u*u)
		topo[s], topo[nsrc+s], topo[2*nsrc+s] = r*math.Cos(phi), r*math.Sin(phi), u
	}
	c.Coords, _ = matvis.NewPrecomputed(1, nsrc, topo)
	c.Beams = []beam.Beam{beam.Gaussian{SigmaRad: 0.15}, beam.Gaussian{SigmaRad: 0.2}, beam.ShortDipole{}}
	for a := range c.BeamIdx {
		c.BeamIdx[a] = a % len(c.Beams)
	}
	return c
}

// zInputs are what buildZ takes for one chunk holding every source
// visible at time 0, at frequency 0.
type zInputs struct {
	r    *run
	vis  []int
	v    [3][]float64
	resp []beam.Response
}

// newZInputs prepares buildZ's inputs as Run would.
func newZInputs(t testing.TB, c matvis.Config, b *Backend) zInputs {
	t.Helper()
	sim, err := matvis.New(c)
	if err != nil {
		t.Fatal(err)
	}
	r := &run{b: b, sim: sim, nf: sim.NFeed(), nsrc: sim.NSrc(), topo: make([][3][]float64, sim.NTime())}
	r.flux = make([]float64, sim.NSrc())
	if err := sim.FluxAt(0, r.flux); err != nil {
		t.Fatal(err)
	}
	r.used = make([]bool, len(sim.Beams))
	for _, bi := range sim.BeamOf {
		r.used[bi] = true
	}
	in := zInputs{r: r, resp: make([]beam.Response, len(sim.Beams))}
	for i, bm := range sim.Beams {
		if in.resp[i], err = bm.At(sim.Freqs[0], sim.Mode); err != nil {
			t.Fatal(err)
		}
	}
	if in.v, err = r.enu(0); err != nil {
		t.Fatal(err)
	}
	for s, u := range in.v[2] {
		if u > 0 {
			in.vis = append(in.vis, s)
		}
	}
	return in
}

// build runs buildZ.
func (in zInputs) build(t testing.TB) zmat {
	var st matvis.StageTimes
	z, err := in.r.buildZ(context.Background(), 0, in.vis, in.v, in.resp, &st)
	if err != nil {
		t.Fatal(err)
	}
	return z
}

// chunkZ builds the Z of one chunk holding every source visible at time 0
// and frequency 0, as Run would.
func chunkZ(t *testing.T, c matvis.Config, b *Backend) zmat {
	t.Helper()
	return newZInputs(t, c, b).build(t)
}

// partRange returns the smallest and largest nonzero |part| of z's
// complex64 entries, and how many parts are zero.
func partRange(z []complex64) (lo, hi float64, zeros int) {
	lo = math.Inf(1)
	for _, v := range z {
		for _, x := range []float32{real(v), imag(v)} {
			a := math.Abs(float64(x))
			if a == 0 {
				zeros++
				continue
			}
			lo, hi = math.Min(lo, a), math.Max(hi, a)
		}
	}
	return lo, hi, zeros
}

// TestFlushedZHasNoSubnormal: on the deep-sidelobe sky, the unflushed
// complex64 Z has parts whose products are subnormal (the test's sky is
// deep enough to matter), and the flushed one has no part below 2⁻⁶⁰ of
// its peak, so none of its products is below 2⁻¹²⁰ nor subnormal.
func TestFlushedZHasNoSubnormal(t *testing.T) {
	const minNormal32 = 0x1p-126
	for _, pol := range []bool{false, true} {
		c := deepSidelobeConfig(t, rand.New(rand.NewPCG(8, 1)), 6, 3000, 1, matvis.Options{Precision: 1, Polarized: pol})
		raw := chunkZ(t, c, &Backend{herk: cblas.Gonum{}, workers: 2, noFlush: true})
		rawLo, rawHi, _ := partRange(raw.c64)
		if rawLo*rawLo >= minNormal32*rawHi*rawHi {
			t.Fatalf("pol=%v: unflushed Z spans only [%g, %g]: the sky is not deep enough to test the flush", pol, rawLo, rawHi)
		}
		z := chunkZ(t, c, &Backend{herk: cblas.Gonum{}, workers: 2})
		lo, hi, zeros := partRange(z.c64)
		switch {
		case !(hi >= 0.5 && hi < 2):
			t.Errorf("pol=%v: scaled peak part %g, want within [0.5, 2)", pol, hi)
		case !(lo >= 0x1p-61*hi):
			t.Errorf("pol=%v: smallest nonzero part %g < 2⁻⁶⁰ of the peak part %g (the threshold is 2⁻⁶⁰·P with P ≤ 2·peak part)", pol, lo, hi)
		case !(lo*lo >= 0x1p-126*64):
			t.Errorf("pol=%v: smallest product %g is within 64× of subnormal", pol, lo*lo)
		case zeros == 0:
			t.Errorf("pol=%v: nothing was flushed", pol)
		case z.alpha == 1:
			t.Errorf("pol=%v: alpha 1: Z was not scaled", pol)
		}
		t.Logf("pol=%v: flushed Z parts in [%g, %g], %d zero of %d, alpha %g; unflushed parts in [%g, %g]", pol, lo, hi, zeros, 2*len(z.c64), z.alpha, rawLo, rawHi)
	}
}

// relErrPerFreq is max over frequencies of max|Δ V|/max|V| within the
// frequency.
func relErrPerFreq(got, want *matvis.Result) float64 {
	e := 0.0
	g, w := backendtest.Vis(got), backendtest.Vis(want)
	n := len(w) / want.Shape[0] // frequency is the outermost axis
	for f := range want.Shape[0] {
		e = math.Max(e, backendtest.RelErr(g[f*n:(f+1)*n], w[f*n:(f+1)*n]))
	}
	return e
}

// TestDeepSidelobeSkyFP32: on the deep-sidelobe sky the flushed fp32
// visibilities agree with the unflushed fp64 ones at the fp32 bar the
// other tests use (1e-5 of each frequency's peak |V|), and with the
// unflushed fp32 ones to within fp32 rounding (2⁻²⁴ ≈ 6e-8; the flush's
// bound is 2⁻⁴⁴ of it here), for the herk and pairs methods, one chunk
// and several, the system BLAS and gonum.
func TestDeepSidelobeSkyFP32(t *testing.T) {
	cases := []struct {
		name  string
		pol   bool
		opt   matvis.Options
		herk  cblas.Herk
		chunk int
	}{
		{"herk", false, matvis.Options{}, cblas.Best(), 1},
		{"herk pol", true, matvis.Options{}, cblas.Best(), 1},
		{"herk pol chunked", true, matvis.Options{}, cblas.Best(), 5},
		{"herk pol gonum", true, matvis.Options{}, cblas.Gonum{}, 2},
		{"pairs pol", true, matvis.Options{MatProd: matvis.MatProdPairs}, cblas.Best(), 3},
	}
	for _, c := range cases {
		o := c.opt
		o.Polarized, o.MinChunks = c.pol, c.chunk
		base := deepSidelobeConfig(t, rand.New(rand.NewPCG(8, 2)), 9, 4000, 2, o)
		ref64 := mustRun(t, base, &Backend{herk: cblas.Gonum{}, workers: 2, noFlush: true})
		c32 := base
		c32.Options.Precision = 1
		raw32 := mustRun(t, c32, &Backend{herk: c.herk, workers: 2, noFlush: true})
		got := mustRun(t, c32, &Backend{herk: c.herk, workers: 2})
		raw64 := mustRun(t, base, &Backend{herk: c.herk, workers: 2, noFlush: true})
		got64 := mustRun(t, base, &Backend{herk: c.herk, workers: 2})
		e64, e32, e6464 := relErrPerFreq(got, ref64), relErrPerFreq(got, raw32), relErrPerFreq(got64, raw64)
		if !(e64 <= 1e-5) {
			t.Errorf("%s: flushed fp32 vs unflushed fp64: %g > 1e-5", c.name, e64)
		}
		if !(e32 <= 0x1p-24) {
			t.Errorf("%s: flushed vs unflushed fp32: %g > 2⁻²⁴", c.name, e32)
		}
		// Scaling by powers of two is exact and 2⁻⁵⁰⁰ flushes nothing here:
		// in practice the fp64 results are bit-identical.
		if !(e6464 <= 1e-13) {
			t.Errorf("%s: scaled vs unscaled fp64: %g > 1e-13", c.name, e6464)
		}
		t.Logf("%s: fp32 flushed vs fp64 %.3g, vs fp32 unflushed %.3g; fp64 scaled vs unscaled %.3g", c.name, e64, e32, e6464)
	}
}

// TestScaleZ checks the chunk scaling's exponent, alpha and floor, and
// that degenerate peaks leave Z unscaled.
func TestScaleZ(t *testing.T) {
	cases := []struct {
		name        string
		amp         float64
		beam        complex128
		p1          bool
		mul, floor  float64 // floor relative to the scaled peak
		unscaledRun bool
	}{
		{"unit", 1, 1, true, 1, 0x1p-60, false},
		{"bright", 1000, complex(0.3, -0.4), true, 0x1p-9, 0x1p-60, false},
		{"faint", 1e-12, 1i, true, 0x1p40, 0x1p-60, false},
		{"fp64", 3, 1, false, 0.5, 0x1p-500, false},
		{"beyond float32's alpha", 1e-30, 1, true, 0x1p63, 0x1p-60, false},
		{"zero", 0, 1, true, 1, 0, true},
		{"NaN flux", math.NaN(), 1, true, 1, 0, true},
		{"Inf flux", math.Inf(1), 1, true, 1, 0, true},
	}
	for _, c := range cases {
		r := &run{b: &Backend{workers: 2}, used: []bool{true}}
		amp := []float64{c.amp, c.amp / 2}
		beams := [][]complex128{{c.beam, c.beam}}
		sc := r.scaleZ(amp, beams, c.p1)
		if c.unscaledRun {
			if sc.mul != 1 || sc.alpha != 1 || sc.floor != 0 {
				t.Errorf("%s: %+v, want unscaled", c.name, sc)
			}
			continue
		}
		peak := c.amp * (math.Abs(real(c.beam)) + math.Abs(imag(c.beam)))
		if sc.mul != c.mul || sc.alpha != 1/(c.mul*c.mul) {
			t.Errorf("%s: mul %g alpha %g, want %g and %g", c.name, sc.mul, sc.alpha, c.mul, 1/(c.mul*c.mul))
		}
		if want := peak * c.mul * c.floor; sc.floor != want {
			t.Errorf("%s: floor %g, want %g", c.name, sc.floor, want)
		}
		if amp[0] != c.amp*c.mul {
			t.Errorf("%s: amp scaled to %g, want %g", c.name, amp[0], c.amp*c.mul)
		}
		if c.p1 && (float32(sc.alpha) == 0 || math.IsInf(float64(float32(sc.alpha)), 0)) {
			t.Errorf("%s: alpha %g is not a float32", c.name, sc.alpha)
		}
	}
}

// TestFlushParts checks c64 and c128 on parts at and around the floor.
func TestFlushParts(t *testing.T) {
	sc := zscale{mul: 1, alpha: 1, floor: 0x1p-60}
	cases := []struct {
		in   complex128
		want complex128
	}{
		{complex(1, 0x1p-61), 1},
		{complex(0x1p-60, -0x1p-60), complex(0x1p-60, -0x1p-60)},
		{complex(-0x1p-61, 0.5), 0.5i},
		{complex(1e-30, -1e-30), 0},
		{complex(math.NaN(), 1), complex(math.NaN(), 1)},
	}
	for _, c := range cases {
		got64, got128 := complex128(sc.c64(c.in)), sc.c128(c.in)
		for _, g := range []complex128{got64, got128} {
			same := g == c.want || (cmplx.IsNaN(g) && cmplx.IsNaN(c.want) && imag(g) == imag(c.want))
			if !same {
				t.Errorf("flush(%v) = %v, want %v", c.in, g, c.want)
			}
		}
	}
}
