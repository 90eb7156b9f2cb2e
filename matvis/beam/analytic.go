package beam

import (
	"fmt"
	"math"
	"slices"
)

// SpeedOfLight is the speed of light in m/s (astropy's constant, which
// matvis and pyuvdata use).
const SpeedOfLight = 299792458.0

// Kind identifies an analytic beam's closed form: the case of a backend's
// own evaluation that computes it (the GPU's beam_analytic kernel switches
// on it). Each analytic beam's file declares its Kind; the values are
// stable, since the GPU passes them to its kernels as they are.
type Kind int

// String is the kind's registered name ("gaussian"), or "kind N" for a
// kind no type registered.
func (k Kind) String() string {
	if t, ok := analyticTypeOf(k); ok {
		return t.Name
	}
	return fmt.Sprintf("kind %d", int(k))
}

// Form is what an analytic beam is at one frequency: its closed form and
// that form's parameters.
type Form struct {
	Kind Kind
	// Params are the form's parameters at the frequency, as its Kind's
	// constant documents them (at most AnalyticType.NParams of them).
	Params []float64
	// Diagonal is pyuvsim's diag(g, g) Jones convention (DiagonalJones)
	// instead of pyuvdata 3's g/√2 on both axes of both feeds.
	Diagonal bool
}

// Analytic is the optional interface of a Beam that is a closed-form
// function of direction and frequency. A backend with an evaluation of its
// own for the form's Kind (the GPU's kernels) evaluates the beam from
// AnalyticForm rather than from tables, the way gonum's RawMatrixer hands
// a routine a matrix's storage; At and AnalyticForm are the same beam, and
// a backend that does not know the Kind uses At. backendtest's plain-loop
// twin restates the forms it knows, so each backend's evaluation of a form
// is checked against its definition.
type Analytic interface {
	Beam
	// AnalyticForm returns the beam's form at freqHz, or the error that
	// At would return there. The form's Kind does not depend on the
	// frequency and is set even with an error, so that a caller can ask
	// what kind a beam is.
	AnalyticForm(freqHz float64) (Form, error)
}

// ShapeParam names one of the shape values the input formats give an
// analytic beam (Shape's fields).
type ShapeParam int

const (
	// ShapeSigma is a Gaussian's E-field width, radians (simspec's
	// sigma_rad, an obsparam's sigma).
	ShapeSigma ShapeParam = iota
	// ShapeDiameter is a dish diameter, metres (simspec's diameter_m, an
	// obsparam's diameter).
	ShapeDiameter
)

// Shape is the shape values an input gives an analytic beam; zero is a
// value not given.
type Shape struct {
	SigmaRad  float64
	DiameterM float64
}

// Value is the shape value p.
func (s Shape) Value(p ShapeParam) float64 {
	if p == ShapeSigma {
		return s.SigmaRad
	}
	return s.DiameterM
}

// AnalyticType is an analytic beam type as the input formats name it:
// what they need to read one and build it. Each analytic beam's file
// registers its type (registerAnalytic), and the formats take the list of
// types from AnalyticTypes and LookupAnalytic instead of a switch of their
// own.
type AnalyticType struct {
	Kind Kind
	// Name is the type in simspec ("type": "gaussian") and in an
	// obsparam's untagged forms.
	Name string
	// Class is pyuvdata's class, an obsparam's !AnalyticBeam class
	// ("GaussianBeam").
	Class string
	// Shape lists the shape values the type takes, of which an input
	// gives exactly one; none for a type without shape.
	Shape []ShapeParam
	// NParams is the number of Form.Params of the type.
	NParams int
	// Diagonal says whether DiagonalJones may wrap the type: its power
	// has a one-axis amplitude and its At answers with a powerResponse.
	Diagonal bool
	// New builds the beam from the shape values an input gave (the
	// others zero).
	New func(Shape) (Beam, error)
}

// analyticTypes are the registered types, in Kind order.
var analyticTypes []AnalyticType

// registerAnalytic adds t to the registered types, at package
// initialisation (each analytic beam's file: var _ = registerAnalytic(…));
// a repeated kind, name or class is a programming error.
func registerAnalytic(t AnalyticType) bool {
	for _, o := range analyticTypes {
		if o.Kind == t.Kind || o.Name == t.Name || o.Class == t.Class {
			panic(fmt.Sprintf("beam: analytic type %q (kind %d) registered twice, or beside %q (kind %d)", t.Name, t.Kind, o.Name, o.Kind))
		}
	}
	analyticTypes = append(analyticTypes, t)
	slices.SortFunc(analyticTypes, func(a, b AnalyticType) int { return int(a.Kind) - int(b.Kind) })
	return true
}

// AnalyticTypes returns the analytic beam types, in Kind order.
func AnalyticTypes() []AnalyticType { return slices.Clone(analyticTypes) }

// LookupAnalytic returns the analytic beam type called name.
func LookupAnalytic(name string) (AnalyticType, bool) {
	for _, t := range analyticTypes {
		if t.Name == name {
			return t, true
		}
	}
	return AnalyticType{}, false
}

func analyticTypeOf(k Kind) (AnalyticType, bool) {
	for _, t := range analyticTypes {
		if t.Kind == k {
			return t, true
		}
	}
	return AnalyticType{}, false
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

// Ranges of the analytic beams' shape values (CheckShape).
const (
	// MaxDiameterM is the largest dish diameter accepted, metres: twenty
	// times the largest single apertures built (FAST's 500 m illuminated
	// 300 m, Arecibo's 305 m). A larger value is a unit slip (mm for m)
	// or a mistake: an Airy beam of 1e300 m is zero everywhere but the
	// exact zenith, and silently zeroes every baseline.
	MaxDiameterM = 1e4
	// MaxSigmaRad is the largest Gaussian sigma accepted, radians: one
	// full turn. A larger sigma is almost surely degrees given where
	// radians are wanted (sigma: 10 for 10°).
	MaxSigmaRad = 2 * math.Pi
)

// CheckShape checks shape value p (v, in its unit) against its physical
// range: a positive, finite diameter up to MaxDiameterM, a positive,
// finite sigma up to MaxSigmaRad. The message says the range; the caller
// names the field and the file.
func CheckShape(p ShapeParam, v float64) error {
	switch {
	case p == ShapeDiameter && !(v > 0 && v <= MaxDiameterM):
		return fmt.Errorf("diameter %g m: must be positive and at most %g m (the largest dishes are 300–500 m; was millimetres meant?)", v, float64(MaxDiameterM))
	case p == ShapeSigma && !(v > 0 && v <= MaxSigmaRad):
		return fmt.Errorf("sigma %g rad: must be positive and at most 2π rad (radians, not degrees)", v)
	}
	return nil
}
