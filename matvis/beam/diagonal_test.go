package beam

import (
	"math"
	"testing"
)

// TestDiagonalJones: each feed sees only its own axis (pyuvsim's: x the za
// axis, vec 1; y the az axis, vec 0), with the power of
// the wrapped beam (Σ_k |E_fk|² = P as for matvis's convention) and the
// sign of the amplitude kept (an Airy sidelobe is negative).
func TestDiagonalJones(t *testing.T) {
	const f = 150e6
	za := []float64{0, 0.1, 0.4, 0.9, 1.3}
	az := []float64{0, 1, 2, 3, 4}
	n := len(za)
	for _, b := range []Beam{Uniform{}, Gaussian{SigmaRad: 0.3}, Gaussian{DiameterM: 8}, Airy{DiameterM: 14}} {
		d := DiagonalJones{b}
		pol, err := d.At(f, Mode{Polarized: true})
		if err != nil {
			t.Fatal(err)
		}
		unp, err := d.At(f, Mode{})
		if err != nil {
			t.Fatal(err)
		}
		ref, err := b.At(f, Mode{})
		if err != nil {
			t.Fatal(err)
		}
		p, u, r := make([]complex128, 4*n), make([]complex128, n), make([]complex128, n)
		pol.Eval(az, za, p)
		unp.Eval(az, za, u)
		ref.Eval(az, za, r)
		for s := range za {
			g := real(u[s])
			if math.Abs(math.Abs(g)-real(r[s])) > 1e-15 || imag(u[s]) != 0 {
				t.Errorf("%v za=%g: unpolarized %v, |g| should be matvis's %v", b, za[s], u[s], r[s])
			}
			if p[n+s] != complex(g, 0) || p[2*n+s] != complex(g, 0) || p[s] != 0 || p[3*n+s] != 0 {
				t.Errorf("%v za=%g: E[feed, vec] = [%v %v; %v %v], want [0 %g; %g 0] (J = diag over (za, az))", b, za[s], p[s], p[n+s], p[2*n+s], p[3*n+s], g, g)
			}
		}
	}
	// An Airy sidelobe keeps its sign: x = kD/2·sin(za) past the first null.
	a := DiagonalJones{Airy{DiameterM: 14}}
	r, _ := a.At(f, Mode{})
	k := 14.0 / 2 * 2 * math.Pi * f / SpeedOfLight
	zaSide := math.Asin(5.0 / k) // 2·J1(5)/5 < 0
	out := make([]complex128, 1)
	r.Eval([]float64{0}, []float64{zaSide}, out)
	if !(real(out[0]) < 0) {
		t.Errorf("airy sidelobe at za=%g: %v, want negative", zaSide, out[0])
	}
	if _, err := (DiagonalJones{ShortDipole{}}).At(f, Mode{}); err == nil {
		t.Error("diagonal Jones of a short dipole: no error")
	}
}
