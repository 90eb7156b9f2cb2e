package beam

import (
	"fmt"
	"math"
)

// SpeedOfLight is the speed of light in m/s (astropy's constant, which
// matvis and pyuvdata use).
const SpeedOfLight = 299792458.0

// Uniform is pyuvdata's UniformBeam: power 1 everywhere.
type Uniform struct{}

// Gaussian is pyuvdata's GaussianBeam. Exactly one of SigmaRad (achromatic,
// the E-field sigma) and DiameterM (chromatic, sigma from an Airy-matched
// width) is set.
type Gaussian struct {
	SigmaRad  float64
	DiameterM float64
}

// Airy is pyuvdata's AiryBeam of a uniformly illuminated dish of DiameterM.
type Airy struct {
	DiameterM float64
}

// ShortDipole is pyuvdata's ShortDipoleBeam with feeds x (east) and y (north).
type ShortDipole struct{}

// String describes the beam.
func (Uniform) String() string { return "uniform" }

// String describes the beam.
func (g Gaussian) String() string {
	if g.DiameterM > 0 {
		return fmt.Sprintf("gaussian(diameter=%g m)", g.DiameterM)
	}
	return fmt.Sprintf("gaussian(sigma=%g rad)", g.SigmaRad)
}

// String describes the beam.
func (a Airy) String() string { return fmt.Sprintf("airy(diameter=%g m)", a.DiameterM) }

// String describes the beam.
func (ShortDipole) String() string { return "short_dipole" }

// Validate reports a Gaussian that is neither sigma- nor diameter-defined.
func (g Gaussian) Validate() error {
	switch {
	case g.SigmaRad > 0 && g.DiameterM > 0:
		return fmt.Errorf("beam: gaussian: give sigma_rad (%g) or diameter_m (%g), not both", g.SigmaRad, g.DiameterM)
	case g.SigmaRad > 0 && !math.IsInf(g.SigmaRad, 0):
		return nil
	case g.DiameterM > 0 && !math.IsInf(g.DiameterM, 0):
		return nil
	}
	return fmt.Errorf("beam: gaussian: sigma_rad = %g, diameter_m = %g: one must be positive and finite", g.SigmaRad, g.DiameterM)
}

// Sigma is the E-field width in radians at freqHz. For a diameter-defined
// beam it follows pyuvdata: the FWHM 2·asin(2.2150894·λ/(πD)) over 2.355.
func (g Gaussian) Sigma(freqHz float64) float64 {
	if g.DiameterM > 0 {
		lambda := SpeedOfLight / freqHz
		return math.Asin(2.2150894*lambda/(math.Pi*g.DiameterM)) * 2 / 2.355
	}
	return g.SigmaRad
}

// Param is the Gaussian's k = 1/(2σ²) at freqHz, its amplitude being
// exp(−k·za²): the one derivation the CPU (At) and the GPU's analytic beam
// descriptors use.
func (g Gaussian) Param(freqHz float64) (float64, error) {
	if err := g.Validate(); err != nil {
		return 0, err
	}
	sigma := g.Sigma(freqHz)
	if !(sigma > 0) {
		return 0, fmt.Errorf("beam: %v at %g Hz: sigma %g is not positive (beam wider than the sky)", g, freqHz, sigma)
	}
	return 1 / (2 * sigma * sigma), nil
}

// Param is the Airy beam's k = (D/2)·2πν/c at freqHz, its amplitude being
// 2·J1(x)/x with x = k·sin(za): the one derivation the CPU (At) and the
// GPU's analytic beam descriptors use.
func (a Airy) Param(freqHz float64) (float64, error) {
	if !(a.DiameterM > 0) || math.IsInf(a.DiameterM, 0) {
		return 0, fmt.Errorf("beam: airy: diameter_m = %g: must be positive and finite", a.DiameterM)
	}
	return a.DiameterM / 2 * 2 * math.Pi * freqHz / SpeedOfLight, nil
}

// powerResponse is a beam whose E-field components all equal sqrt(P/2),
// so that the unpolarized value is sqrt(P) and Σ_k |E_k|² = P per feed.
type powerResponse struct {
	mode Mode
	// amp returns the E-field amplitude g with P = g², possibly negative
	// (Airy sidelobes keep their sign in polarized runs).
	amp func(za float64) float64
}

func (r powerResponse) Eval(az, za []float64, out []complex128) {
	n := len(za)
	if !r.mode.Polarized {
		for s, z := range za {
			out[s] = complex(math.Abs(r.amp(z)), 0)
		}
		return
	}
	for s, z := range za {
		v := complex(r.amp(z)/math.Sqrt2, 0)
		out[s], out[n+s], out[2*n+s], out[3*n+s] = v, v, v, v
	}
}

// At prepares the beam (frequency-independent).
func (Uniform) At(freqHz float64, mode Mode) (Response, error) {
	return powerResponse{mode, func(float64) float64 { return 1 }}, nil
}

// At prepares the beam at freqHz.
func (g Gaussian) At(freqHz float64, mode Mode) (Response, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	k, err := g.Param(freqHz)
	if err != nil {
		return nil, err
	}
	return powerResponse{mode, func(za float64) float64 { return math.Exp(-za * za * k) }}, nil
}

// At prepares the beam at freqHz.
func (a Airy) At(freqHz float64, mode Mode) (Response, error) {
	k, err := a.Param(freqHz)
	if err != nil {
		return nil, err
	}
	return powerResponse{mode, func(za float64) float64 {
		x := k * math.Sin(za)
		if x == 0 {
			return 1
		}
		return 2 * math.J1(x) / x
	}}, nil
}

type dipoleResponse struct{ mode Mode }

// At prepares the beam (frequency-independent).
func (ShortDipole) At(freqHz float64, mode Mode) (Response, error) {
	return dipoleResponse{mode}, nil
}

func (r dipoleResponse) Eval(az, za []float64, out []complex128) {
	n := len(az)
	if !r.mode.Polarized {
		for s := range az {
			sz := math.Sin(za[s])
			var c float64
			if r.mode.Feed == FeedY {
				c = sz * math.Sin(az[s])
			} else {
				c = sz * math.Cos(az[s])
			}
			out[s] = complex(math.Sqrt(1-c*c), 0)
		}
		return
	}
	for s := range az {
		sa, ca := math.Sincos(az[s])
		cz := math.Cos(za[s])
		out[s] = complex(-sa, 0)       // x feed, axis 0
		out[n+s] = complex(cz*ca, 0)   // x feed, axis 1
		out[2*n+s] = complex(ca, 0)    // y feed, axis 0
		out[3*n+s] = complex(cz*sa, 0) // y feed, axis 1
	}
}
