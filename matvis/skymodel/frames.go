package skymodel

import (
	"fmt"
	"math"
	"strings"

	"github.com/gomatvis/gomatvis/internal/matrix3"
)

// Frame is a celestial reference frame a catalog's positions may be in.
type Frame int

// The frames the readers convert to ICRS.
const (
	ICRS     Frame = iota
	FK5J2000       // FK5, equinox J2000.0
	Galactic       // IAU 1958 galactic coordinates, as astropy defines them
)

// ParseFrame maps astropy frame names ("icrs", "fk5", "galactic") to a Frame.
// FK5 is accepted only at equinox J2000 (the default in astropy).
func ParseFrame(s string) (Frame, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "icrs":
		return ICRS, nil
	case "fk5", "fk5_j2000", "j2000":
		return FK5J2000, nil
	case "galactic":
		return Galactic, nil
	}
	return 0, fmt.Errorf("unsupported frame %q (want icrs, fk5 (J2000) or galactic)", s)
}

type mat3 [3][3]float64

// rot returns the passive rotation by deg degrees about axis 0, 1 or 2
// (x, y, z): the matrix that re-expresses a vector in axes rotated by deg.
func rot(deg float64, axis int) mat3 {
	s, c := math.Sincos(deg * math.Pi / 180)
	m := mat3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	i, j := (axis+1)%3, (axis+2)%3
	m[i][i], m[i][j], m[j][i], m[j][j] = c, s, -s, c
	return m
}

// icrsToFK5 is the frame-bias B matrix of USNO Circular 179 (Kaplan 2005,
// eq. 3.4): η0 = −19.9 mas, ξ0 = 9.1 mas, dα0 = −22.9 mas, the rotation
// astropy uses between ICRS and FK5 J2000.
func icrsToFK5() mat3 {
	const mas = 1.0 / 3600000
	return matrix3.Mul(matrix3.Mul(rot(19.9*mas, 0), rot(9.1*mas, 1)), rot(-22.9*mas, 2))
}

// fk5ToGalactic rotates FK5 J2000 into galactic coordinates using the
// J2000 north galactic pole (α = 192.8594812065348°, δ = 27.12825118085622°)
// and the galactic longitude of the north celestial pole
// (122.9319185680026°), the constants astropy adopts for the IAU 1958
// system precessed to J2000 (Murray 1989, A&A 218, 325).
func fk5ToGalactic() mat3 {
	return matrix3.Mul(matrix3.Mul(rot(180-122.9319185680026, 2), rot(90-27.12825118085622, 1)),
		rot(192.8594812065348, 2))
}

// toICRSMatrix returns the rotation taking frame f's unit vectors to ICRS.
func (f Frame) toICRSMatrix() mat3 {
	switch f {
	case FK5J2000:
		return matrix3.Transpose(icrsToFK5())
	case Galactic:
		return matrix3.Transpose(matrix3.Mul(fk5ToGalactic(), icrsToFK5()))
	}
	return mat3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
}

// ToICRS converts longitudes/latitudes (radians) in frame f to ICRS right
// ascension/declination in place; RA is wrapped to [0, 2π).
func ToICRS(f Frame, lon, lat []float64) {
	if f == ICRS {
		return
	}
	m := f.toICRSMatrix()
	for i := range lon {
		sl, cl := math.Sincos(lon[i])
		sb, cb := math.Sincos(lat[i])
		v := [3]float64{cb * cl, cb * sl, sb}
		var w [3]float64
		for r := range 3 {
			w[r] = m[r][0]*v[0] + m[r][1]*v[1] + m[r][2]*v[2]
		}
		ra := math.Atan2(w[1], w[0])
		if ra < 0 {
			ra += 2 * math.Pi
		}
		lon[i] = ra
		lat[i] = math.Atan2(w[2], math.Hypot(w[0], w[1]))
	}
}
