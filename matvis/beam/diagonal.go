package beam

import (
	"fmt"
	"reflect"
)

// DiagonalJones is an analytic beam (Uniform, Gaussian or Airy) with
// pyuvsim's E-field convention (pyuvsim ≤ 1.2's AnalyticBeam): the Jones
// matrix is diag(g, g), each feed seeing only its own E-field axis with the
// signed amplitude g = ±√P. pyuvdata 3's analytic beams, which matvis uses,
// give every feed both axes at g/√2 instead: the parallel-feed visibilities
// agree, but an unpolarized sky then has cross-feed visibilities equal to
// the parallel ones, where pyuvsim's are zero. Unpolarized runs get g itself,
// keeping the sign of Airy sidelobes as pyuvsim's xx = g₁·g₂·I/2 does.
type DiagonalJones struct {
	// Beam is a Uniform, Gaussian or Airy beam (by value).
	Beam Beam
}

// String describes the beam.
func (d DiagonalJones) String() string { return fmt.Sprintf("%v with diagonal Jones", d.Beam) }

// Validate checks that the wrapped beam is one whose power has a
// one-axis amplitude: an analytic type registered as Diagonal (Uniform,
// Gaussian or Airy).
func (d DiagonalJones) Validate() error {
	if _, ok := d.inner(); ok {
		return nil
	}
	return fmt.Errorf("beam: diagonal Jones needs a uniform, gaussian or airy beam, got %v", d.Beam)
}

// inner is the wrapped beam as an Analytic of a Diagonal type, held by
// value as the field's doc asks (a pointer is refused, as it always was).
func (d DiagonalJones) inner() (Analytic, bool) {
	a, ok := d.Beam.(Analytic)
	if !ok || reflect.ValueOf(d.Beam).Kind() == reflect.Pointer {
		return nil, false
	}
	// The kind, which AnalyticForm gives at any frequency, error or not.
	f, _ := a.AnalyticForm(1e8)
	t, ok := analyticTypeOf(f.Kind)
	return a, ok && t.Diagonal
}

// At prepares the beam at freqHz.
func (d DiagonalJones) At(freqHz float64, mode Mode) (Response, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	r, err := d.Beam.At(freqHz, Mode{Polarized: false})
	if err != nil {
		return nil, err
	}
	p, ok := r.(powerResponse)
	if !ok { // a Diagonal type whose At does not keep to its registration
		return nil, fmt.Errorf("beam: diagonal Jones: %v has no one-axis amplitude", d.Beam)
	}
	return diagonalResponse{mode, p.amp}, nil
}

// AnalyticForm is the wrapped beam's form, Diagonal.
func (d DiagonalJones) AnalyticForm(freqHz float64) (Form, error) {
	a, ok := d.inner()
	if !ok {
		return Form{}, d.Validate()
	}
	f, err := a.AnalyticForm(freqHz)
	f.Diagonal = true
	return f, err
}

// diagonalResponse evaluates diag(g, g).
type diagonalResponse struct {
	mode Mode
	amp  func(za float64) float64
}

func (r diagonalResponse) Eval(az, za []float64, out []complex128) {
	n := len(za)
	if !r.mode.Polarized {
		for s, z := range za {
			out[s] = complex(r.amp(z), 0)
		}
		return
	}
	// pyuvsim's Jones J[feed, c] is diag(g, g) over c = (za, az), and
	// J[feed, c] = E[vec 1−c, feed]: feed x sees the za axis (vec 1) and y
	// the az axis (vec 0). It matters only for a polarized sky (the
	// pyuvsim-fullstokes-airy reference tells the two apart); an
	// unpolarized one gives the same sums either way.
	for s, z := range za {
		g := complex(r.amp(z), 0)
		out[s], out[n+s], out[2*n+s], out[3*n+s] = 0, g, g, 0
	}
}
