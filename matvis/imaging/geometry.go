package imaging

import (
	"errors"
	"math"
)

// Default geometry limits: the largest automatic image side, and how far
// out an automatic field may reach (sin of the angle from the centre).
const (
	maxAutoN     = 8192
	maxAutoField = 0.9
)

// DefaultGeometry chooses an image for v: a cell of a third of the finest
// fringe, 1/(3·max|uv|) at the highest channel (WSClean's advice, the
// resolution sampled three times), and a field reaching twice λ/B_min
// from the centre at the lowest channel, B_min the shortest baseline
// (about a dish's diameter in a close-packed array such as HERA: twice
// the primary beam's half width), at most to sin = 0.9 (64°).
func DefaultGeometry(v *Vis) (Geometry, error) {
	if err := v.check(false); err != nil {
		return Geometry{}, err
	}
	fmin, fmax := math.Inf(1), 0.0
	for _, f := range v.Freqs {
		fmin, fmax = min(fmin, f), max(fmax, f)
	}
	maxUV, minB := 0.0, math.Inf(1)
	for _, b := range v.UVW {
		uv := math.Hypot(b[0], b[1])
		maxUV = max(maxUV, uv)
		if r := math.Sqrt(b[0]*b[0] + b[1]*b[1] + b[2]*b[2]); r > 0 {
			minB = min(minB, r)
		}
	}
	if maxUV == 0 {
		return Geometry{}, errors.New("imaging: every baseline has u = v = 0 (autos only?): there is nothing to image")
	}
	cell := 1 / (3 * maxUV * fmax / SpeedOfLight)
	field := min(maxAutoField, 2*SpeedOfLight/fmin/minB)
	n := 2 * int(math.Ceil(field/cell))
	return Geometry{N: max(16, min(n, maxAutoN)), Cell: cell}, nil
}
