package astro

import (
	"fmt"
	"strings"
	"testing"
)

// TestSiteHeightRangeAgreesWithCheckSite: the range the message quotes is
// the whole-metre range CheckSite accepts: its ends are accepted and one
// metre beyond each is refused, at latitudes where the bounds are not
// whole metres. (Latitude 33.3 failed with the range bisected to 0.5 m.) CheckSite's radius test is the twin: the range is found by
// bisection, the check by the ECEF radius directly.
func TestSiteHeightRangeAgreesWithCheckSite(t *testing.T) {
	for _, lat := range []float64{-89.3, -60.1, -30.72152612068957, -5.5, 12.34, 33.3, 51.5, 77.7} {
		lo, hi := SiteHeightRange(lat)
		for _, tc := range []struct {
			h  float64
			ok bool
		}{{lo, true}, {lo - 1, false}, {hi, true}, {hi + 1, false}} {
			err := CheckSite(Site{LatDeg: lat, LonDeg: 21.4, HeightM: tc.h})
			if (err == nil) != tc.ok {
				t.Errorf("latitude %v, range [%v, %v]: height %v: %v, want accepted=%v", lat, lo, hi, tc.h, err, tc.ok)
			}
		}
		if err := CheckSite(Site{LatDeg: lat, HeightM: hi + 1}); err != nil && !strings.Contains(err.Error(), fmt.Sprintf("[%.0f, %.0f] m", lo, hi)) {
			t.Errorf("latitude %v: %v does not quote [%.0f, %.0f] m", lat, err, lo, hi)
		}
	}
}
