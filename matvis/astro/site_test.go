package astro

import (
	"math"
	"testing"
)

// TestENUToECEF: pyuvsim's layout offsets (layout.csv) against the
// antenna_positions pyuvdata 2.4.2 wrote for them in
// testdata/reference/pyuvsim-stokesI-gaussian (HERA site), and the
// rotation keeps lengths.
func TestENUToECEF(t *testing.T) {
	site := Site{LatDeg: -30.72152612068957, LonDeg: 21.428303826863015, HeightM: 1051.69}
	for _, c := range []struct{ enu, want [3]float64 }{
		{[3]float64{14.6, 0, 0.3}, [3]float64{-5.09384445, 13.68500128, -0.15325978}},
		{[3]float64{7.3, 12.644, -0.5}, [3]float64{2.94581038, 8.99820973, 11.12497905}},
		{[3]float64{-80, 60, -1}, [3]float64{56.95985066, -63.58581821, 52.09048988}},
	} {
		got := ENUToECEF(site, c.enu)
		var l2a, l2b float64
		for k := range got {
			if math.Abs(got[k]-c.want[k]) > 1e-7 {
				t.Errorf("ENU %v: ECEF %v, pyuvdata %v", c.enu, got, c.want)
				break
			}
			l2a += got[k] * got[k]
			l2b += c.enu[k] * c.enu[k]
		}
		if math.Abs(l2a-l2b) > 1e-9*l2b {
			t.Errorf("ENU %v: length changed", c.enu)
		}
	}
	// The site's ECEF position lies at its longitude, between the WGS84
	// polar and equatorial radii (plus its height).
	x := site.ECEF()
	if lon := math.Atan2(x[1], x[0]) * 180 / math.Pi; math.Abs(lon-site.LonDeg) > 1e-12 {
		t.Errorf("ECEF %v: longitude %v, want %v", x, lon, site.LonDeg)
	}
	if r := math.Hypot(math.Hypot(x[0], x[1]), x[2]); r < 6356752 || r > 6378137+site.HeightM {
		t.Errorf("ECEF %v: radius %v m off the ellipsoid", x, r)
	}
}
