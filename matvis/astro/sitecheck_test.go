package astro

import (
	"math"
	"strings"
	"testing"
)

// TestCheckSite: CheckSite takes every site on the Earth's surface and a
// balloon's height, and refuses NaN, ±Inf, latitudes beyond ±90°,
// longitudes beyond ±360° and heights that put the site outside
// pyuvdata's 6.35e6–6.39e6 m geocentric range (issue 41: 1e30 m made
// every visibility 0, −7e6 m ran silently). The limits at the equator
// and the pole come from WGS84's radii (6 378 137 m, 6 356 752.314 m),
// not from the code under test.
func TestCheckSite(t *testing.T) {
	const a, b = 6378137.0, 6356752.314245
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name string
		s    Site
		want string // "" accepted
	}{
		{"HERA", Site{-30.72, 21.43, 1051.7}, ""},
		{"Dead Sea", Site{31.5, 35.5, -430}, ""},
		{"Everest", Site{27.99, 86.93, 8849}, ""},
		{"balloon at the equator", Site{0, 0, 11000}, ""},
		{"equator just below the range", Site{0, 0, 6.35e6 - a - 2}, "outside pyuvdata's acceptable"},
		{"equator just inside the bottom", Site{0, 0, 6.35e6 - a + 2}, ""},
		{"equator just above the range", Site{0, 0, 6.39e6 - a + 2}, "outside pyuvdata's acceptable"},
		{"equator just inside the top", Site{0, 0, 6.39e6 - a - 2}, ""},
		{"pole just below", Site{90, 0, 6.35e6 - b - 2}, "outside pyuvdata's acceptable"},
		{"pole just inside", Site{-90, 0, 6.35e6 - b + 2}, ""},
		{"pole top", Site{90, 0, 6.39e6 - b - 2}, ""},
		{"1e30 m", Site{-30.7, 21.4, 1e30}, "height 1e+30 m"},
		{"-7e6 m", Site{-30.7, 21.4, -7e6}, "height -7e+06 m"},
		{"km slip", Site{-30.7, 21.4, 1.0517e6}, "outside"},
		{"NaN height", Site{0, 0, nan}, "height NaN m: must be finite"},
		{"Inf height", Site{0, 0, inf}, "height +Inf m: must be finite"},
		{"NaN latitude", Site{nan, 0, 0}, "latitude NaN"},
		{"latitude 91", Site{91, 0, 0}, "within [-90, 90]"},
		{"latitude -Inf", Site{-inf, 0, 0}, "latitude -Inf"},
		{"longitude 361", Site{0, 361, 0}, "within [-360, 360]"},
		{"longitude NaN", Site{0, nan, 0}, "longitude NaN"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckSite(tc.s)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && err == nil:
				t.Fatalf("accepted, want an error with %q", tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Fatalf("error %q lacks %q", err, tc.want)
			}
		})
	}
}

// TestSiteHeightRange: the heights the range allows at the equator and
// the pole are the range's radii less WGS84's radii there.
func TestSiteHeightRange(t *testing.T) {
	const a, b = 6378137.0, 6356752.314245
	for _, tc := range []struct {
		lat    float64
		lo, hi float64
	}{{0, 6.35e6 - a, 6.39e6 - a}, {90, 6.35e6 - b, 6.39e6 - b}, {-90, 6.35e6 - b, 6.39e6 - b}} {
		lo, hi := SiteHeightRange(tc.lat)
		if math.Abs(lo-tc.lo) > 1.5 || math.Abs(hi-tc.hi) > 1.5 {
			t.Errorf("latitude %v: [%v, %v], want [%.1f, %.1f]", tc.lat, lo, hi, tc.lo, tc.hi)
		}
	}
}
