package beam

import (
	"fmt"
	"math"
)

// Airy is pyuvdata's AiryBeam of a uniformly illuminated dish of DiameterM.
type Airy struct {
	DiameterM float64
}

// KindAiry is Airy's form: g = 2·J1(x)/x (1 at x = 0), x = k·sin(za),
// Params [k], k = (D/2)·2πν/c (Airy.Param).
const KindAiry Kind = 2

var _ = registerAnalytic(AnalyticType{
	Kind: KindAiry, Name: "airy", Class: "AiryBeam", Shape: []ShapeParam{ShapeDiameter},
	NParams: 1, Diagonal: true,
	// Not validated here: simspec and obsparam have checked the diameter,
	// and At and AnalyticForm refuse a bad one.
	New: func(s Shape) (Beam, error) { return Airy{DiameterM: s.DiameterM}, nil },
})

// String describes the beam.
func (a Airy) String() string { return fmt.Sprintf("airy(diameter=%g m)", a.DiameterM) }

// Param is the Airy beam's k = (D/2)·2πν/c at freqHz, its amplitude being
// 2·J1(x)/x with x = k·sin(za): the one derivation At and AnalyticForm
// use.
func (a Airy) Param(freqHz float64) (float64, error) {
	if !(a.DiameterM > 0) || math.IsInf(a.DiameterM, 0) {
		return 0, fmt.Errorf("beam: airy: diameter_m = %g: must be positive and finite", a.DiameterM)
	}
	return a.DiameterM / 2 * 2 * math.Pi * freqHz / SpeedOfLight, nil
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

// AnalyticForm is KindAiry with Param's k.
func (a Airy) AnalyticForm(freqHz float64) (Form, error) {
	k, err := a.Param(freqHz)
	return Form{Kind: KindAiry, Params: []float64{k}}, err
}
