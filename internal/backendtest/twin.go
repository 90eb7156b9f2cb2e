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
func Plain(t testing.TB, sim *matvis.Simulation) []complex128 {
	t.Helper()
	nsrc, nf, nt := sim.NSrc(), sim.NFeed(), sim.NTime()
	out := make([]complex128, 0, sim.NFreq()*nt*len(sim.Pairs)*nf*nf)
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
			if pol {
				if err := sim.PolBasis.Basis(ti, cosX, sinX); err != nil {
					t.Fatal(err)
				}
				for s := range nsrc {
					coh[s] = matvis.LocalCoherency(stokes[0][s], stokes[1][s], stokes[2][s], stokes[3][s], cosX[s], sinX[s], sim.Options.Rotation)
				}
			}
			for s := range nsrc {
				az[s], za[s] = matvis.AzZa(e[s], n[s])
			}
			// resp[b][(feed·nf + axis)·nsrc + s] is beam b's response.
			resp := make([][]complex128, len(sim.Beams))
			for b, bm := range sim.Beams {
				r, err := bm.At(freq, sim.Mode)
				if err != nil {
					t.Fatal(err)
				}
				resp[b] = make([]complex128, nsrc*nf*nf)
				r.Eval(az, za, resp[b])
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
						var v complex128
						for s := range nsrc {
							if !(u[s] > 0) {
								continue
							}
							pi, pj := phase[i][s], phase[j][s]
							if pol {
								// V = Σ_s J_j[p]·C_s·J_i[q]ᴴ·P_j·conj(P_i).
								for ax := range nf {
									for bx := range nf {
										zj := rj[(p*nf+ax)*nsrc+s] * pj
										zi := ri[(q*nf+bx)*nsrc+s] * pi
										v += zj * coh[s][ax][bx] * cmplx.Conj(zi)
									}
								}
								continue
							}
							for ax := range nf {
								zi := ri[(q*nf+ax)*nsrc+s] * pi
								zj := rj[(p*nf+ax)*nsrc+s] * pj
								v += complex(0.5*flux[s], 0) * cmplx.Conj(zi) * zj
							}
						}
						out = append(out, v)
					}
				}
			}
		}
	}
	return out
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
