package backendtest

import (
	"math"
	"math/cmplx"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// Plain computes every visibility of sim by a direct sum of the
// visibility equation (docs/matvis-conventions.md §1), in float64, without
// matrices, chunks or sorting: the obviously-right twin of every fast
// path. A polarized sky (matvis.Simulation.SkyPolarized) is summed as the
// 2×2 product J_j·C·J_iᴴ of each source's local coherency. The result is in
// matvis.Result's flat order.
//
// It shares with the backends only the simulation's inputs: az/za (twinAzZa)
// and the analytic beams' closed forms (twinBeam) are written again here
// from the conventions, taking only each form's parameters (k from σ or D)
// from the beam, whose derivations package beam checks against their
// definitions (TestGaussianDiameterWidth, TestAnalyticFormParams); gridded
// beams, and analytic kinds not restated here, are evaluated by package
// beam. In precision 1 the ENU vectors are rounded to float32 first, as
// matvis stores them (§1); everything after is float64.
func Plain(t testing.TB, sim *matvis.Simulation) []complex128 {
	t.Helper()
	v, _ := PlainScaled(t, sim)
	return v
}

// PlainScaled is Plain with, for every visibility, the root-sum-square of
// its per-source terms: the scale of its rounding error (a sum of terms of
// random phase has |V| of about this size; an auto-correlation's |V| is
// far larger, a long baseline's can be smaller), against which
// PerBaselineErr measures each visibility.
func PlainScaled(t testing.TB, sim *matvis.Simulation) (vis []complex128, scale []float64) {
	t.Helper()
	nsrc, nf, nt := sim.NSrc(), sim.NFeed(), sim.NTime()
	out := make([]complex128, 0, sim.NFreq()*nt*len(sim.Pairs)*nf*nf)
	scale = make([]float64, 0, cap(out))
	e, n, u := make([]float64, nsrc), make([]float64, nsrc), make([]float64, nsrc)
	az, za := make([]float64, nsrc), make([]float64, nsrc)
	flux := make([]float64, nsrc)
	pol := sim.SkyPolarized()
	var stokes [4][]float64
	for k := range stokes {
		stokes[k] = make([]float64, nsrc)
	}
	cosX, sinX := make([]float64, nsrc), make([]float64, nsrc)
	coh := make([]matvis.Coherency, nsrc)
	for fi, freq := range sim.Freqs {
		var err error
		if pol {
			err = sim.StokesAt(fi, stokes)
		} else {
			err = sim.FluxAt(fi, flux)
		}
		if err != nil {
			t.Fatal(err)
		}
		for ti := range nt {
			if err := sim.Coords.ENU(ti, e, n, u); err != nil {
				t.Fatal(err)
			}
			if sim.Options.Precision == 1 {
				for _, x := range [][]float64{e, n, u} {
					for s := range x {
						x[s] = float64(float32(x[s]))
					}
				}
			}
			if pol {
				if err := sim.PolBasis.Basis(ti, cosX, sinX); err != nil {
					t.Fatal(err)
				}
				for s := range nsrc {
					coh[s] = matvis.LocalCoherency(stokes[0][s], stokes[1][s], stokes[2][s], stokes[3][s], cosX[s], sinX[s], sim.Options.Rotation)
				}
			}
			for s := range nsrc {
				az[s], za[s] = twinAzZa(e[s], n[s])
			}
			// resp[b][(feed·nf + axis)·nsrc + s] is beam b's response.
			resp := make([][]complex128, len(sim.Beams))
			for b, bm := range sim.Beams {
				resp[b] = make([]complex128, nsrc*nf*nf)
				twinBeam(t, bm, freq, sim.Mode, az, za, resp[b])
			}
			phase := make([][]complex128, sim.NAnt())
			for a, x := range sim.Antennas {
				phase[a] = make([]complex128, nsrc)
				for s := range nsrc {
					phase[a][s] = cmplx.Exp(complex(0, 2*math.Pi*freq/beam.SpeedOfLight*(x[0]*e[s]+x[1]*n[s]+x[2]*u[s])))
				}
			}
			for _, pr := range sim.Pairs {
				i, j := pr[0], pr[1]
				ri, rj := resp[sim.BeamOf[i]], resp[sim.BeamOf[j]]
				// Feed p belongs to the unconjugated antenna j, q to i.
				for p := range nf {
					for q := range nf {
						v, rss := twinSum(twinPair{nf, u, ri, rj, phase[i], phase[j], coh, flux, pol}, p, q)
						out = append(out, v)
						scale = append(scale, rss)
					}
				}
			}
		}
	}
	return out, scale
}

// twinPair is what the twin sums over the sources for one antenna pair
// (i, j): the up components, both antennas' responses and phases, the
// sources' coherencies (polarized sky) or fluxes.
type twinPair struct {
	nf        int
	u         []float64
	ri, rj    []complex128
	pi, pj    []complex128
	coh       []matvis.Coherency
	flux      []float64
	polarized bool
}

// twinSum is V[p][q] of the pair, and the root-sum-square of its
// per-source terms (the scale of its rounding).
func twinSum(t twinPair, p, q int) (v complex128, rss float64) {
	nsrc, nf := len(t.u), t.nf
	var ss float64
	for s := range nsrc {
		if !(t.u[s] > 0) {
			continue
		}
		var term complex128
		if t.polarized {
			// V = Σ_s J_j[p]·C_s·J_i[q]ᴴ·P_j·conj(P_i).
			for ax := range nf {
				for bx := range nf {
					zj := t.rj[(p*nf+ax)*nsrc+s] * t.pj[s]
					zi := t.ri[(q*nf+bx)*nsrc+s] * t.pi[s]
					term += zj * t.coh[s][ax][bx] * cmplx.Conj(zi)
				}
			}
		} else {
			for ax := range nf {
				zi := t.ri[(q*nf+ax)*nsrc+s] * t.pi[s]
				zj := t.rj[(p*nf+ax)*nsrc+s] * t.pj[s]
				term += complex(0.5*t.flux[s], 0) * cmplx.Conj(zi) * zj
			}
		}
		v += term
		a := cmplx.Abs(term)
		ss += a * a
	}
	return v, math.Sqrt(ss)
}

// twinAzZa is az (from east towards north, in [0, 2π)) and za of the unit
// vector with east and north components e and n (conventions §4.3),
// written apart from matvis.AzZa. The up component is sqrt(1 − e² − n²)
// as §4.3 defines it, not 1 − hypot(e, n)²: near the horizon that
// difference is ill-conditioned (the square root of a difference of
// nearly equal numbers): a source 2.25e-8 above the horizon had a
// cos(za) some 20 % apart between the twin and the convention, 1e-11 of
// a run's visibilities through a short dipole (seed 7175451030323123479,
// stream 11, of StokesPlainLoop).
func twinAzZa(e, n float64) (az, za float64) {
	az = math.Atan2(n, e)
	if az < 0 {
		az += 2 * math.Pi
	}
	return az, math.Atan2(math.Hypot(e, n), math.Sqrt(math.Max(0, 1-e*e-n*n)))
}

// twinBeam writes the response of bm at (az, za) in Response.Eval's layout
// ((feed·nf + axis)·n + s). An analytic beam (beam.Analytic) is evaluated
// from its form: the closed forms of the kinds below written again here
// from conventions §5.2 and beam.DiagonalJones's doc, from the form's
// parameters, so that each backend's own evaluation of a form (the GPU's
// kernel cases) and the CPU's At are checked against the definition. A
// kind not restated here, and a gridded beam (whose interpolation has its
// own tests in package beam), are evaluated through bm.At: a new analytic
// beam's Go evaluation is then the reference its kernel case is checked
// against.
func twinBeam(t testing.TB, bm beam.Beam, freq float64, m beam.Mode, az, za []float64, out []complex128) {
	t.Helper()
	n := len(za)
	form := beam.Form{Kind: -1} // not analytic
	if a, ok := bm.(beam.Analytic); ok {
		var err error
		if form, err = a.AnalyticForm(freq); err != nil {
			t.Fatal(err)
		}
	}
	// g is a power-derived beam's signed E-field amplitude (P = g²).
	var g func(za float64) float64
	switch form.Kind {
	case beam.KindUniform:
		g = func(float64) float64 { return 1 }
	case beam.KindGaussian:
		// k = 1/(2σ²), σ the E-field width.
		k := form.Params[0]
		g = func(za float64) float64 { return math.Exp(-za * za * k) }
	case beam.KindAiry:
		// k = πD/λ.
		k := form.Params[0]
		g = func(za float64) float64 {
			x := k * math.Sin(za)
			if x == 0 {
				return 1
			}
			return 2 * math.J1(x) / x
		}
	case beam.KindShortDipole:
		for s := range n {
			// The feeds' wires (east, north) projected on the sky's
			// unit vectors along az and za.
			eAz := [2]float64{-math.Sin(az[s]), math.Cos(az[s])}
			eZa := [2]float64{math.Cos(za[s]) * math.Cos(az[s]), math.Cos(za[s]) * math.Sin(az[s])}
			if !m.Polarized {
				f := int(m.Feed)
				out[s] = complex(math.Hypot(eAz[f], eZa[f]), 0)
				continue
			}
			out[s], out[n+s] = complex(eAz[0], 0), complex(eZa[0], 0)
			out[2*n+s], out[3*n+s] = complex(eAz[1], 0), complex(eZa[1], 0)
		}
		return
	default:
		r, err := bm.At(freq, m)
		if err != nil {
			t.Fatal(err)
		}
		r.Eval(az, za, out)
		return
	}
	for s := range n {
		v := g(za[s])
		switch {
		case !m.Polarized && form.Diagonal:
			out[s] = complex(v, 0)
		case !m.Polarized:
			out[s] = complex(math.Abs(v), 0)
		case form.Diagonal:
			// Feed x sees the za axis, feed y the az axis.
			out[s], out[n+s], out[2*n+s], out[3*n+s] = 0, complex(v, 0), complex(v, 0), 0
		default:
			c := complex(v/math.Sqrt2, 0)
			out[s], out[n+s], out[2*n+s], out[3*n+s] = c, c, c, c
		}
	}
}

// Visible counts the sources strictly above the horizon at time ti.
func Visible(t testing.TB, sim *matvis.Simulation, ti int) int {
	t.Helper()
	nsrc := sim.NSrc()
	e, n, u := make([]float64, nsrc), make([]float64, nsrc), make([]float64, nsrc)
	if err := sim.Coords.ENU(ti, e, n, u); err != nil {
		t.Fatal(err)
	}
	k := 0
	for _, x := range u {
		if x > 0 {
			k++
		}
	}
	return k
}
