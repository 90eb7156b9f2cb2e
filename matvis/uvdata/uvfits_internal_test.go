package uvdata

import (
	"math"
	"testing"

	"github.com/gomatvis/gomatvis/matvis/astro"
)

// TestZenithICRS: the phase center written into a UVFITS header is the
// ICRS direction that the simulator's astrometry puts at the zenith of
// the first time (what pyuvdata's phase_to_time phases to), within the
// precession-nutation distance of the apparent (LST, latitude).
func TestZenithICRS(t *testing.T) {
	site := astro.Site{LatDeg: -30.72152612068925, LonDeg: 21.428303826863233, HeightM: 1051.6900000218302}
	jd := 2460000.25
	eop := astro.EOP{UT1MinusUTCSec: -0.0171, XpArcsec: 0.04, YpArcsec: 0.35}
	ra, dec, err := zenithICRS(site, jd, eop)
	if err != nil {
		t.Fatal(err)
	}
	rot, err := astro.New(astro.Config{Method: astro.MethodAstropy, Site: site, TimesJD: []float64{jd}, EOP: []astro.EOP{eop}}, []float64{ra}, []float64{dec})
	if err != nil {
		t.Fatal(err)
	}
	e, n, u := make([]float64, 1), make([]float64, 1), make([]float64, 1)
	if err := rot.ENU(0, e, n, u); err != nil {
		t.Fatal(err)
	}
	if math.Hypot(e[0], n[0]) > 1e-12 || u[0] < 1-1e-12 {
		t.Errorf("ENU of the zenith found (%v, %v): (%g, %g, %.15f)", ra, dec, e[0], n[0], u[0])
	}
	lst, err := astro.ApparentLST(jd, site.LonDeg*math.Pi/180, eop)
	if err != nil {
		t.Fatal(err)
	}
	dRA := math.Remainder(ra-lst, 2*math.Pi) * math.Cos(dec)
	if off := math.Hypot(dRA, dec-site.LatDeg*math.Pi/180) * 180 / math.Pi; off > 0.6 {
		t.Errorf("ICRS zenith %.6f°, %.6f° is %.3f° from the apparent (LST, latitude)", ra*180/math.Pi, dec*180/math.Pi, off)
	}
}
