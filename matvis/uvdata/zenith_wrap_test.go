package uvdata

import (
	"math"
	"testing"

	"github.com/gomatvis/gomatvis/matvis/astro"
)

// TestZenithICRSRange: the phase center's right ascension is in
// [0, 2π) (FITS's RA in degrees [0, 360), as pyuvdata writes it) also
// where the ICRS zenith lies across RA 0 from the apparent LST: times
// 0.0001 days apart around the LST's passage through 0 (ICRS and
// apparent RA differ by about 0.3° of precession there, some 8 of the
// steps), each zenith checked to be at the zenith.
func TestZenithICRSRange(t *testing.T) {
	site := astro.Site{LatDeg: -30.72152612068925, LonDeg: 21.428303826863233, HeightM: 1051.6900000218302}
	eop := astro.EOP{UT1MinusUTCSec: -0.0171, XpArcsec: 0.04, YpArcsec: 0.35}
	jd0 := 2460000.25
	lst0, err := astro.ApparentLST(jd0, site.LonDeg*math.Pi/180, eop)
	if err != nil {
		t.Fatal(err)
	}
	// A sidereal day is 0.99727 solar days: the LST is 0 near jd1.
	jd1 := jd0 - lst0/(2*math.Pi)*0.99727
	for k := -40; k <= 40; k++ {
		jd := jd1 + 0.0001*float64(k)
		ra, dec, err := zenithICRS(site, jd, eop)
		if err != nil {
			t.Fatal(err)
		}
		if !(ra >= 0 && ra < 2*math.Pi) {
			t.Errorf("jd %.4f: RA %v rad outside [0, 2π)", jd, ra)
		}
		rot, err := astro.New(astro.Config{Method: astro.MethodAstropy, Site: site, TimesJD: []float64{jd}, EOP: []astro.EOP{eop}}, []float64{ra}, []float64{dec})
		if err != nil {
			t.Fatal(err)
		}
		e, n, u := make([]float64, 1), make([]float64, 1), make([]float64, 1)
		if err := rot.ENU(0, e, n, u); err != nil {
			t.Fatal(err)
		}
		if math.Hypot(e[0], n[0]) > 1e-12 {
			t.Errorf("jd %.4f: ENU of the zenith found (%v, %v): (%g, %g, %.15f)", jd, ra, dec, e[0], n[0], u[0])
		}
	}
}
