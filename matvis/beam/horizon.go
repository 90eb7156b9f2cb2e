package beam

import "math"

// The grid ZeroAboveHorizon looks at: every 360/zeroGridAz degrees of
// azimuth at zeroGridZa zenith angles from 0 to just above the horizon.
const (
	zeroGridAz = 72
	zeroGridZa = 46
)

// ZeroAboveHorizon reports whether r (of a run of mode m) is exactly 0
// at every direction of a grid over the sky above the horizon, zenith
// included: a beam with no response there (a beam file of zeros, one
// whose axes are swapped into the ground) makes every visibility of its
// antennas 0, which runs without an error but is never what was meant.
// A beam narrower than the grid's 2° steps is still 1 at the zenith, so
// it is not taken for zero.
func ZeroAboveHorizon(r Response, m Mode) bool {
	n := zeroGridAz * zeroGridZa
	az, za := make([]float64, n), make([]float64, n)
	for i := range zeroGridZa {
		for k := range zeroGridAz {
			az[i*zeroGridAz+k] = 2 * math.Pi * float64(k) / zeroGridAz
			za[i*zeroGridAz+k] = (math.Pi / 2) * float64(i) / zeroGridZa
		}
	}
	out := make([]complex128, n*m.NFeed()*m.NFeed())
	r.Eval(az, za, out)
	for _, v := range out {
		if v != 0 {
			return false
		}
	}
	return true
}
