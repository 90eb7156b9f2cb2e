package beam

import (
	"math"
	"testing"
)

// responseFunc is a Response from a function of one direction.
type responseFunc func(az, za float64) complex128

func (f responseFunc) Eval(az, za []float64, out []complex128) {
	for i := range out {
		out[i] = f(az[i%len(az)], za[i%len(az)])
	}
}

// TestZeroAboveHorizon: a response that is 0 at every direction above the
// horizon is found, in both modes; one nonzero anywhere above the horizon
// (the zenith only, a narrow beam; one azimuth near the horizon), NaN, or
// the analytic beams are not taken for zero. A response only below the
// horizon is zero above it.
func TestZeroAboveHorizon(t *testing.T) {
	pol, unpol := Mode{Polarized: true}, Mode{}
	for _, c := range []struct {
		name string
		r    responseFunc
		want bool
	}{
		{"zero", func(float64, float64) complex128 { return 0 }, true},
		{"below the horizon only", func(_, za float64) complex128 {
			if za > math.Pi/2 {
				return 1
			}
			return 0
		}, true},
		{"zenith only", func(_, za float64) complex128 {
			if za == 0 {
				return 1
			}
			return 0
		}, false},
		{"one azimuth near the horizon", func(az, za float64) complex128 {
			if az == 0 && za > 1.5 {
				return 1e-300
			}
			return 0
		}, false},
		{"NaN", func(float64, float64) complex128 { return complex(math.NaN(), 0) }, false},
	} {
		for _, m := range []Mode{pol, unpol} {
			if got := ZeroAboveHorizon(c.r, m); got != c.want {
				t.Errorf("%s (polarized %v): %v, want %v", c.name, m.Polarized, got, c.want)
			}
		}
	}
	for _, b := range []Beam{Uniform{}, Gaussian{SigmaRad: 1e-9}, Airy{DiameterM: MaxDiameterM}, ShortDipole{}} {
		r, err := b.At(1e10, unpol)
		if err != nil {
			t.Fatal(err)
		}
		if ZeroAboveHorizon(r, unpol) {
			t.Errorf("%v taken for zero above the horizon", b)
		}
	}
}
