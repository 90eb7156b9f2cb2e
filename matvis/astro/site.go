package astro

import (
	"fmt"
	"math"
)

// ENUToECEF rotates an east-north-up offset (metres) at site into an
// Earth-centred Earth-fixed offset, the frame of UVH5's antenna_positions
// (relative to the telescope), as pyuvdata's ECEF_from_ENU does before
// adding the telescope's position: the local tangent-plane axes at the
// site's geodetic latitude and longitude.
func ENUToECEF(site Site, enu [3]float64) [3]float64 {
	sl, cl := math.Sincos(site.LatDeg * math.Pi / 180)
	so, co := math.Sincos(site.LonDeg * math.Pi / 180)
	e, n, u := enu[0], enu[1], enu[2]
	return [3]float64{
		-so*e - sl*co*n + cl*co*u,
		co*e - sl*so*n + cl*so*u,
		cl*n + sl*u,
	}
}

// ECEF is the site's Earth-centred Earth-fixed position on the WGS84
// ellipsoid (metres).
func (s Site) ECEF() [3]float64 {
	v := gd2gc(s.LonDeg*math.Pi/180, s.LatDeg*math.Pi/180, s.HeightM)
	return [3]float64{v[0], v[1], v[2]}
}

// Geocentric radii a site may have, metres: pyuvdata's acceptable range
// for telescope_location (LocationParameter's acceptable_range, checked by
// UVData.check before every write), so that a site gomatvis simulates is
// one pyuvdata reads back. The WGS84 surface lies between 6 356 752 m
// (poles) and 6 378 137 m (equator); the range takes in every place on
// land (the Dead Sea's −430 m, Everest's 8 849 m) and a balloon's height,
// and refuses the unit slips that would put the array in space or at the
// Earth's centre (a height of 1e30 m makes every visibility 0).
const (
	MinSiteRadiusM = 6.35e6
	MaxSiteRadiusM = 6.39e6
)

// CheckSite checks that the site's latitude, longitude and height are
// finite, the latitude within ±90°, the longitude within ±360° and that
// its geocentric radius lies within [MinSiteRadiusM, MaxSiteRadiusM]. The
// error names the field ("lat_deg", "lon_deg", "height_m") and the
// allowed range; the caller adds the file.
func CheckSite(s Site) error {
	switch {
	case !finite(s.LatDeg) || math.Abs(s.LatDeg) > 90:
		return fmt.Errorf("latitude %v degrees: must be finite and within [-90, 90]", s.LatDeg)
	case !finite(s.LonDeg) || math.Abs(s.LonDeg) > 360:
		return fmt.Errorf("longitude %v degrees: must be finite and within [-360, 360]", s.LonDeg)
	case !finite(s.HeightM):
		return fmt.Errorf("height %v m: must be finite", s.HeightM)
	}
	p := s.ECEF()
	r := math.Sqrt(p[0]*p[0] + p[1]*p[1] + p[2]*p[2])
	if !(r >= MinSiteRadiusM && r <= MaxSiteRadiusM) {
		lo, hi := SiteHeightRange(s.LatDeg)
		return fmt.Errorf("height %v m above the WGS84 ellipsoid puts the site %.6g m from the Earth's centre, outside pyuvdata's acceptable %.4g–%.4g m: at latitude %v the height must be within [%.0f, %.0f] m (metres, not km or mm?)",
			s.HeightM, r, MinSiteRadiusM, MaxSiteRadiusM, s.LatDeg, lo, hi)
	}
	return nil
}

// SiteHeightRange is the heights, metres above the WGS84 ellipsoid, that
// CheckSite accepts at geodetic latitude latDeg (to a metre).
func SiteHeightRange(latDeg float64) (lo, hi float64) {
	radius := func(h float64) float64 {
		p := Site{LatDeg: latDeg, HeightM: h}.ECEF()
		return math.Sqrt(p[0]*p[0] + p[1]*p[1] + p[2]*p[2])
	}
	// The radius grows with the height (by 1 m a metre, to within the
	// ellipsoid's flattening), so the ends are the heights where it meets
	// the range's ends: found by bisection between the Earth's centre and
	// well above the range.
	solve := func(target float64) float64 {
		a, b := -7e6, 1e5
		for b-a > 0.5 {
			m := (a + b) / 2
			if radius(m) < target {
				a = m
			} else {
				b = m
			}
		}
		return (a + b) / 2
	}
	return math.Ceil(solve(MinSiteRadiusM)), math.Floor(solve(MaxSiteRadiusM))
}
