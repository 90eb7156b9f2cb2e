package backendtest

import (
	"math"
	"math/cmplx"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// ZenithSource checks one zenith source seen by a uniform beam against
// the closed form, in both precisions, polarized and not: x_a·ŝ = u_a, so
// V_ij = I/2 · exp(i·2πν/c·(u_j − u_i)) for every feed pair (uniform
// E-field components are all √½, cross feeds included), within the
// suite's Tolerance of |V| (a transform backend's fp32 error is a few ε
// of 1e-6 here: 2.2e-6 measured on the H200's, 2026-12-02).
func ZenithSource(t *testing.T, be matvis.Backend) {
	const flux, freq = 3.5, 150e6
	for _, pol := range []bool{false, true} {
		for _, prec := range []int{1, 2} {
			crd, err := matvis.NewPrecomputed(1, 1, []float64{0, 0, 1})
			if err != nil {
				t.Fatal(err)
			}
			ants := [][3]float64{{0, 0, 0}, {14, 0, 0}, {3, -20, 1}}
			sim := NewSim(t, matvis.Config{
				Antennas: ants, Freqs: []float64{freq},
				RA: []float64{0}, Dec: []float64{0}, Flux: []float64{flux},
				Beams: []beam.Beam{beam.Uniform{}}, Coords: crd,
				Options: matvis.Options{Precision: prec, Polarized: pol},
			})
			res := MustRun(t, be, sim)
			for k, pr := range sim.Pairs {
				du := ants[pr[1]][2] - ants[pr[0]][2]
				want := complex(flux/2, 0) * cmplx.Exp(complex(0, 2*math.Pi*freq/beam.SpeedOfLight*du))
				for p := range sim.NFeed() {
					for q := range sim.NFeed() {
						if v := res.At(0, 0, k, p, q); !(cmplx.Abs(v-want) <= Tolerance(prec)*flux/2) {
							t.Fatalf("polarized %v precision %d pair %v feeds (%d,%d): V = %v, want %v", pol, prec, pr, p, q, v, want)
						}
					}
				}
			}
		}
	}
}

// Hermitian checks V_ij[p,q] = conj(V_ji[q,p]) on a random polarized sky.
func Hermitian(t *testing.T, be matvis.Backend) {
	rng := NewRNG(t, 8)
	sim := NewSim(t, Random(t, rng, Shape{NAnt: 6, NSrc: 300, NFreq: 2, NTime: 2}, SkyPrecomputed, BeamsAnalytic, matvis.Options{Polarized: true}))
	res := MustRun(t, be, sim)
	nant := sim.NAnt()
	for f := range sim.NFreq() {
		for ti := range sim.NTime() {
			for i := range nant {
				for j := range nant {
					for p := range 2 {
						for q := range 2 {
							a, b := res.At(f, ti, i*nant+j, p, q), res.At(f, ti, j*nant+i, q, p)
							if cmplx.Abs(a-cmplx.Conj(b)) > 1e-12*(1+cmplx.Abs(a)) {
								t.Fatalf("V_%d%d[%d%d] = %v, conj(V_%d%d[%d%d]) = %v", i, j, p, q, a, j, i, q, p, cmplx.Conj(b))
							}
						}
					}
				}
			}
		}
	}
}
