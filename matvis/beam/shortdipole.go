package beam

import "math"

// ShortDipole is pyuvdata's ShortDipoleBeam with feeds x (east) and y (north).
type ShortDipole struct{}

// KindShortDipole is ShortDipole's form: the feeds' wires projected on
// the sky's unit vectors, no parameters. It has no one-axis amplitude, so
// no diagonal Jones.
const KindShortDipole Kind = 3

var _ = registerAnalytic(AnalyticType{
	Kind: KindShortDipole, Name: "short_dipole", Class: "ShortDipoleBeam",
	New: func(Shape) (Beam, error) { return ShortDipole{}, nil },
})

// String describes the beam.
func (ShortDipole) String() string { return "short_dipole" }

// AnalyticForm is KindShortDipole.
func (ShortDipole) AnalyticForm(float64) (Form, error) { return Form{Kind: KindShortDipole}, nil }

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
