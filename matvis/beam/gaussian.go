package beam

import (
	"fmt"
	"math"
)

// Gaussian is pyuvdata's GaussianBeam. Exactly one of SigmaRad (achromatic,
// the E-field sigma) and DiameterM (chromatic, sigma from an Airy-matched
// width) is set.
type Gaussian struct {
	SigmaRad  float64
	DiameterM float64
}

// KindGaussian is Gaussian's form: g = exp(−k·za²), Params [k], k =
// 1/(2σ²) (Gaussian.Param).
const KindGaussian Kind = 1

var _ = registerAnalytic(AnalyticType{
	Kind: KindGaussian, Name: "gaussian", Class: "GaussianBeam", Shape: []ShapeParam{ShapeSigma, ShapeDiameter},
	NParams: 1, Diagonal: true,
	New: func(s Shape) (Beam, error) {
		g := Gaussian{SigmaRad: s.SigmaRad, DiameterM: s.DiameterM}
		return g, g.Validate()
	},
})

// String describes the beam.
func (g Gaussian) String() string {
	if g.DiameterM > 0 {
		return fmt.Sprintf("gaussian(diameter=%g m)", g.DiameterM)
	}
	return fmt.Sprintf("gaussian(sigma=%g rad)", g.SigmaRad)
}

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
// exp(−k·za²): the one derivation At and AnalyticForm use.
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

// AnalyticForm is KindGaussian with Param's k.
func (g Gaussian) AnalyticForm(freqHz float64) (Form, error) {
	k, err := g.Param(freqHz)
	return Form{Kind: KindGaussian, Params: []float64{k}}, err
}
