package backendtest

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// stokesSky is a polarized matvis.PolarizedSpectrum: each Stokes
// parameter a power law S_k·(f/f0)^α, α per source and parameter.
type stokesSky struct {
	s, alpha [4][]float64
	f0       float64
	pol      bool
}

func (p stokesSky) StokesAt(f float64, k int, dst []float64) error {
	for s := range dst {
		dst[s] = p.s[k][s] * math.Pow(f/p.f0, p.alpha[k][s])
	}
	return nil
}

func (p stokesSky) StokesIAt(f float64, dst []float64) error { return p.StokesAt(f, 0, dst) }
func (p stokesSky) Polarized() bool                          { return p.pol }

// randomStokes draws a sky of n sources: mostly physical (I ≥ |P|),
// every seventh over-polarized and every eleventh with a negative I, so
// that both Gram products are exercised.
func randomStokes(rng *rand.Rand, n int) stokesSky {
	p := stokesSky{f0: 120e6, pol: true}
	for k := range 4 {
		p.s[k] = make([]float64, n)
		p.alpha[k] = make([]float64, n)
	}
	for s := range n {
		i := 0.1 + 10*rng.Float64()
		frac := rng.Float64()
		if s%7 == 3 {
			frac = 1 + rng.Float64()
		}
		q, u, v := unitVector(rng)
		p.s[0][s], p.s[1][s], p.s[2][s], p.s[3][s] = i, frac*i*q, frac*i*u, frac*i*v
		if s%11 == 5 {
			p.s[0][s] = -i
		}
		for k := range 4 {
			p.alpha[k][s] = -2 + 2*rng.Float64()
		}
	}
	return p
}

// tableBasis is a matvis.PolBasis of fixed angles per time and source.
type tableBasis struct {
	nt, ns int
	x      []float64
}

func (b tableBasis) NSources() int { return b.ns }
func (b tableBasis) NTimes() int   { return b.nt }
func (b tableBasis) Basis(ti int, c, s []float64) error {
	for i := range c {
		s[i], c[i] = math.Sincos(b.x[ti*b.ns+i])
	}
	return nil
}

func randomBasis(rng *rand.Rand, nt, ns int) tableBasis {
	b := tableBasis{nt, ns, make([]float64, nt*ns)}
	for i := range b.x {
		b.x[i] = 2 * math.Pi * rng.Float64()
	}
	return b
}

// StokesPlainLoop runs fresh random full-Stokes skies (random Stokes with
// over-polarized and negative-I sources, random basis angles, random
// spectra) through every option case of PlainLoop that has both feeds,
// with both rotations, and compares with the plain loop's per-source
// 2×2 product J_j·C·J_iᴴ.
func StokesPlainLoop(t *testing.T, be matvis.Backend) {
	rng := NewRNG(t, 11)
	for _, oc := range optionCases() {
		if !oc.o.Polarized {
			continue
		}
		for _, rot := range []matvis.CoherencyRotation{matvis.RotationPyradiosky, matvis.RotationIAU} {
			t.Run(oc.name+" "+string(rot), func(t *testing.T) {
				o := oc.o
				o.Rotation = rot
				if oc.pairs {
					o.AntPairs = randomPairs(rng, oc.sh.NAnt)
				}
				c := Random(t, rng, oc.sh, oc.sky, oc.beams, o)
				c.Flux, c.Sky = nil, randomStokes(rng, oc.sh.NSrc)
				c.PolBasis = randomBasis(rng, oc.sh.NTime, oc.sh.NSrc)
				sim := NewSim(t, c)
				res := MustRun(t, be, sim)
				checkResultShape(t, sim, res)
				checkTwin(t, be, sim, res)
			})
		}
	}
}

// rigidSky is the sky turned rigidly at latitude lat by the local
// sidereal times lst (no precession, nutation or aberration): the
// textbook ENU of an (hour angle, dec) direction, for analytic checks.
type rigidSky struct {
	lat     float64
	lst     []float64
	ra, dec []float64
}

func (r rigidSky) NSources() int { return len(r.ra) }
func (r rigidSky) NTimes() int   { return len(r.lst) }
func (r rigidSky) ENU(ti int, e, n, u []float64) error {
	sl, cl := math.Sincos(r.lat)
	for s := range r.ra {
		sh, ch := math.Sincos(r.lst[ti] - r.ra[s])
		sd, cd := math.Sincos(r.dec[s])
		e[s] = -cd * sh
		n[s] = cl*sd - sl*cd*ch
		u[s] = sl*sd + cl*cd*ch
	}
	return nil
}

// skyAxes returns the ENU vectors of the IAU sky axes North (deĉ) and
// East (râ) at source s, time ti: the analytic derivatives of ENU.
func (r rigidSky) skyAxes(ti, s int) (north, east [3]float64) {
	sl, cl := math.Sincos(r.lat)
	sh, ch := math.Sincos(r.lst[ti] - r.ra[s])
	sd, cd := math.Sincos(r.dec[s])
	north = [3]float64{sd * sh, cl*cd + sl*sd*ch, sl*cd - cl*sd*ch}
	east = [3]float64{ch, -sl * sh, cl * sh}
	return north, east
}

// stokesConfig is a one-antenna run (autocorrelations: no phase) of a
// polarized sky on rigid coordinates with the FD basis.
func stokesConfig(t *testing.T, sky rigidSky, st stokesSky, bm beam.Beam, prec int, rot matvis.CoherencyRotation) *matvis.Simulation {
	t.Helper()
	c := matvis.Config{
		Antennas: [][3]float64{{0, 0, 0}},
		Freqs:    []float64{120e6},
		RA:       sky.ra, Dec: sky.dec,
		Sky: st, Coords: sky, Beams: []beam.Beam{bm},
		Options: matvis.Options{Precision: prec, Polarized: true, Rotation: rot},
	}
	mk := func(ra, dec []float64) (matvis.Coordinates, error) {
		return rigidSky{sky.lat, sky.lst, ra, dec}, nil
	}
	var err error
	if c.PolBasis, err = matvis.NewFDBasis(mk, sky.ra, sky.dec, 0); err != nil {
		t.Fatal(err)
	}
	return NewSim(t, c)
}

func flatStokes(i, q, u, v float64) stokesSky {
	st := stokesSky{f0: 120e6, pol: true}
	for k, x := range []float64{i, q, u, v} {
		st.s[k], st.alpha[k] = []float64{x}, []float64{0}
	}
	return st
}

// StokesZenith: a source on the meridian 1e-3 rad south of the zenith
// (where the sky's θ̂ = −deĉ is the local ẑâ, X = 0) seen by pyuvsim's
// ideal dipole pair (a uniform beam with diagonal Jones: x sees the za
// axis, y the az axis). With C = ½[[I+Q, U−iV], [U+iV, I−Q]], a pure-Q
// source (I = 0: a negative eigenvalue) gives xx − yy = Q and xy = yx = 0;
// pure U gives xy = yx = U/2; pure V gives xy = −iV/2, yx = +iV/2: with
// pyradiosky's rotation, and the cross terms negated with the IAU one.
func StokesZenith(t *testing.T, be matvis.Backend) {
	const lat = -0.5361 // HERA
	sky := rigidSky{lat: lat, lst: []float64{1.1}, ra: []float64{1.1}, dec: []float64{lat - 1e-3}}
	cases := []struct {
		name       string
		i, q, u, v float64
	}{{"Q", 0, 2, 0, 0}, {"U", 0, 0, 1.5, 0}, {"V", 0, 0, 0, 1.5}, {"IQUV", 6, 3, -2.5, 2}}
	for _, cs := range cases {
		for _, rot := range []matvis.CoherencyRotation{matvis.RotationPyradiosky, matvis.RotationIAU} {
			for _, prec := range []int{2, 1} {
				sim := stokesConfig(t, sky, flatStokes(cs.i, cs.q, cs.u, cs.v), beam.DiagonalJones{Beam: beam.Uniform{}}, prec, rot)
				res := MustRun(t, be, sim)
				cross := complex(cs.u/2, -cs.v/2)
				if rot == matvis.RotationIAU {
					cross = -cross
				}
				want := [2][2]complex128{{complex((cs.i+cs.q)/2, 0), cross}, {cmplx.Conj(cross), complex((cs.i-cs.q)/2, 0)}}
				tol := 1e-12
				if prec == 1 {
					tol = 1e-6
				}
				for p := range 2 {
					for q := range 2 {
						if got := res.At(0, 0, 0, p, q); !(cmplx.Abs(got-want[p][q]) <= tol*6) {
							t.Errorf("pure %s, %s, precision %d: V[%d][%d] = %v, want %v", cs.name, rot, prec, p, q, got, want[p][q])
						}
					}
				}
				if d := real(res.At(0, 0, 0, 0, 0) - res.At(0, 0, 0, 1, 1)); !(math.Abs(d-cs.q) <= tol*6) {
					t.Errorf("pure %s, %s, precision %d: xx − yy = %g, want Q = %g", cs.name, rot, prec, d, cs.q)
				}
			}
		}
	}
}

// StokesFirstPrinciples: sources anywhere above the horizon with a random
// fully polarized field E = a·N̂ + b·Ê (IAU: position angle from North
// through East; I = |a|²+|b|², Q = |a|²−|b|², U − iV = 2ab*), seen by
// short dipoles along East (x) and North (y): V_pq = (d̂_p·E)·conj(d̂_q·E)
// summed over the sources, the field projected in 3-D onto the dipoles.
// The IAU rotation must reproduce it; pyradiosky's must not (its local
// cross terms have the other sign).
func StokesFirstPrinciples(t *testing.T, be matvis.Backend) {
	rng := NewRNG(t, 12)
	const n = 40
	sky := rigidSky{lat: -0.5361, lst: []float64{0.3, 2.0}}
	st := stokesSky{f0: 120e6, pol: true}
	for k := range 4 {
		st.s[k], st.alpha[k] = make([]float64, n), make([]float64, n)
	}
	ab := make([][2]complex128, n)
	for s := range n {
		sky.ra = append(sky.ra, 2*math.Pi*rng.Float64())
		sky.dec = append(sky.dec, math.Asin(2*rng.Float64()-1)*0.98)
		a := complex(rng.NormFloat64(), rng.NormFloat64())
		b := complex(rng.NormFloat64(), rng.NormFloat64())
		ab[s] = [2]complex128{a, b}
		aa, bb := real(a*cmplx.Conj(a)), real(b*cmplx.Conj(b))
		x := 2 * a * cmplx.Conj(b)
		st.s[0][s], st.s[1][s], st.s[2][s], st.s[3][s] = aa+bb, aa-bb, real(x), -imag(x)
	}
	e, nn, u := make([]float64, n), make([]float64, n), make([]float64, n)
	for _, rot := range []matvis.CoherencyRotation{matvis.RotationIAU, matvis.RotationPyradiosky} {
		sim := stokesConfig(t, sky, st, beam.ShortDipole{}, 2, rot)
		res := MustRun(t, be, sim)
		var worst, peak float64
		for ti := range sky.lst {
			_ = sky.ENU(ti, e, nn, u)
			var want [2][2]complex128
			for s := range n {
				if !(u[s] > 0) {
					continue
				}
				north, east := sky.skyAxes(ti, s)
				// E·x̂ (East) and E·ŷ (North) of the 3-D field.
				var f [2]complex128
				for d := range 2 {
					f[d] = ab[s][0]*complex(north[d], 0) + ab[s][1]*complex(east[d], 0)
				}
				for p := range 2 {
					for q := range 2 {
						want[p][q] += f[p] * cmplx.Conj(f[q])
					}
				}
			}
			for p := range 2 {
				for q := range 2 {
					peak = max(peak, cmplx.Abs(want[p][q]))
					worst = max(worst, cmplx.Abs(res.At(0, ti, 0, p, q)-want[p][q]))
				}
			}
		}
		t.Logf("%s rotation: max|V − 3-D projection| = %.3g of the peak", rot, worst/peak)
		if rot == matvis.RotationIAU && !(worst <= 1e-8*peak) {
			t.Errorf("IAU rotation: max|V − 3-D projection| = %.3g of the peak, want ≤ 1e-8", worst/peak)
		}
		if rot == matvis.RotationPyradiosky && !(worst > 1e-2*peak) {
			t.Errorf("pyradiosky rotation agrees with the 3-D projection to %.3g: the check cannot tell the rotations apart", worst/peak)
		}
	}
}

// StokesPositionAngle: turning every source's polarization angle by θ
// turns (Q, U) by 2θ, and the visibilities equal those of the original
// sky with the basis angle X turned by θ (a spin-2 quantity; V and I
// unchanged), for both rotations, random skies and basis angles.
func StokesPositionAngle(t *testing.T, be matvis.Backend) {
	rng := NewRNG(t, 13)
	sh := Shape{NAnt: 4, NSrc: 300, NFreq: 2, NTime: 2}
	for _, rot := range []matvis.CoherencyRotation{matvis.RotationPyradiosky, matvis.RotationIAU} {
		theta := 2 * math.Pi * rng.Float64()
		c := Random(t, rng, sh, SkyPrecomputed, BeamsAnalytic, matvis.Options{Polarized: true, Rotation: rot})
		st := randomStokes(rng, sh.NSrc)
		// Q and U share one spectral index here, so that the turn holds
		// at every channel.
		st.alpha[2] = st.alpha[1]
		b := randomBasis(rng, sh.NTime, sh.NSrc)
		c.Flux, c.Sky, c.PolBasis = nil, st, b
		want := Vis(MustRun(t, be, NewSim(t, c)))
		// (Q, U) turned by 2θ, X turned back by θ: the same visibilities.
		s2, c2 := math.Sincos(2 * theta)
		turned := st // the arrays of slices are copied; Q and U replaced
		turned.s[1], turned.s[2] = make([]float64, sh.NSrc), make([]float64, sh.NSrc)
		for s := range sh.NSrc {
			q, u := st.s[1][s], st.s[2][s]
			turned.s[1][s], turned.s[2][s] = q*c2-u*s2, q*s2+u*c2
		}
		back := tableBasis{b.nt, b.ns, make([]float64, len(b.x))}
		for i, x := range b.x {
			back.x[i] = x - theta
		}
		c.Sky, c.PolBasis = turned, back
		got := Vis(MustRun(t, be, NewSim(t, c)))
		e := RelErr(got, want)
		t.Logf("%s: θ = %.3f rad: max|ΔV|/max|V| = %.3g", rot, theta, e)
		if !(e <= 1e-9) {
			t.Errorf("%s: (Q, U) turned by 2θ with X − θ differ from the original by %.3g", rot, e)
		}
	}
}

// StokesIUnchanged: a Stokes-I sky given as a PolarizedSpectrum with no
// Q, U, V takes today's path: bit-identical to the same fluxes as a
// table. The same sky declared polarized goes through the coherency
// path and agrees to rounding. A polarized sky in an unpolarized run is
// refused, as pyuvsim refuses it.
func StokesIUnchanged(t *testing.T, be matvis.Backend) {
	rng := NewRNG(t, 14)
	sh := Shape{NAnt: 5, NSrc: 400, NFreq: 2, NTime: 2}
	for _, prec := range []int{2, 1} {
		c := Random(t, rng, sh, SkyRotation, BeamsGridded, matvis.Options{Polarized: true, Precision: prec, MinChunks: 2})
		st := randomStokes(rng, sh.NSrc)
		for k := 1; k < 4; k++ {
			clear(st.s[k])
		}
		for s := range sh.NSrc {
			st.s[0][s] = math.Abs(st.s[0][s])
			for fi, f := range c.Freqs {
				c.Flux[s*sh.NFreq+fi] = st.s[0][s] * math.Pow(f/st.f0, st.alpha[0][s])
			}
		}
		table := MustRun(t, be, NewSim(t, c))
		st.pol = false
		c.Flux, c.Sky = nil, st
		checkSameVis(t, table, MustRun(t, be, NewSim(t, c)))
		st.pol = true
		c.Sky, c.PolBasis = st, randomBasis(rng, sh.NTime, sh.NSrc)
		e := RelErr(Vis(MustRun(t, be, NewSim(t, c))), Vis(table))
		t.Logf("precision %d: Stokes I through the coherency path: max|ΔV|/max|V| = %.3g", prec, e)
		if !(e <= Tolerance(prec)) {
			t.Errorf("precision %d: Stokes I through the coherency path differs by %.3g", prec, e)
		}
		c.Options.Polarized = false
		if _, err := matvis.New(c); err == nil || !strings.Contains(err.Error(), "polarized") {
			t.Errorf("a polarized sky in an unpolarized run: error %v, want one asking for a polarized run", err)
		}
	}
}
