package imaging

import "math"

// WCS places an image on the sky: its phase centre (ICRS, radians) and
// the spectral and polarization axes a FITS file carries.
type WCS struct {
	RA, Dec float64 // the phase centre, radians
	// Freq and Bandwidth (Hz) are the FREQ axis's value and width: the
	// band's centre and span.
	Freq, Bandwidth float64
	// Stokes is the FITS STOKES code: 1 for I, −5 XX, −6 YY, −7 XY, −8 YX.
	Stokes int
	// DateObs is the first time, ISO 8601 (UTC); "" leaves it out.
	DateObs string
}

// RADec is the ICRS position (radians) of direction cosines (l, m) from
// the centre: the inverse of the orthographic (SIN) projection.
func (w WCS) RADec(l, m float64) (ra, dec float64) {
	n := math.Sqrt(1 - l*l - m*m)
	sd, cd := math.Sincos(w.Dec)
	dec = math.Asin(m*cd + n*sd)
	ra = w.RA + math.Atan2(l, n*cd-m*sd)
	ra = math.Mod(ra, 2*math.Pi)
	if ra < 0 {
		ra += 2 * math.Pi
	}
	return ra, dec
}

// LM is the projection: the direction cosines of (ra, dec) from the
// centre; ok is false behind the centre's hemisphere.
func (w WCS) LM(ra, dec float64) (l, m float64, ok bool) {
	sd, cd := math.Sincos(dec)
	sd0, cd0 := math.Sincos(w.Dec)
	sa, ca := math.Sincos(ra - w.RA)
	l = cd * sa
	m = sd*cd0 - cd*sd0*ca
	n := sd*sd0 + cd*cd0*ca
	return l, m, n > 0
}
