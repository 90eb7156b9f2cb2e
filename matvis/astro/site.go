package astro

import "math"

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
