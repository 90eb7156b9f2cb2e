package astro

import (
	"math"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// TestObserverRoundTripAndZenith: ApparentToICRS inverts ICRSToApparent
// (ERFA's atoc13 inverts atco13 by iteration), and the ICRS zenith lies at
// ENU (0, 0, 1) in this package's own astropy chain. Random sites, times,
// Earth orientations and positions. Both inverses stop after ERFA's two
// aberration iterations, which leaves about (v/c)³ ≈ 1e-12 rad: seen 4.1e-13
// and 3.9e-13 rad.
func TestObserverRoundTripAndZenith(t *testing.T) {
	rng := sharedtest.RNG(t, 1)
	var worstTrip, worstZen float64
	for range 50 {
		site := Site{LatDeg: -89 + 178*rng.Float64(), LonDeg: -180 + 360*rng.Float64(), HeightM: 4000 * rng.Float64()}
		jd := 2440000 + 25000*rng.Float64()
		eop := EOP{UT1MinusUTCSec: 0.9 * (2*rng.Float64() - 1), XpArcsec: 0.5 * (2*rng.Float64() - 1), YpArcsec: 0.5 * (2*rng.Float64() - 1)}
		o, err := NewObserver(site, jd, eop)
		if err != nil {
			t.Fatal(err)
		}
		ra, dec := 2*math.Pi*rng.Float64(), math.Asin(0.98*(2*rng.Float64()-1))
		ar, ad := o.ICRSToApparent(ra, dec)
		r2, d2 := o.ApparentToICRS(ar, ad)
		a, b := s2c(ra, dec), s2c(r2, d2)
		sep := math.Sqrt(dot(vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]}, vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]}))
		worstTrip = math.Max(worstTrip, sep)
		// The apparent place's distance from the ICRS one, on the sphere:
		// RA wraps at 2π (seed 6606373970395626393: RA 6.2799 → 0.0025).
		c := s2c(ar, ad)
		shift := math.Sqrt(dot(vec3{a[0] - c[0], a[1] - c[1], a[2] - c[2]}, vec3{a[0] - c[0], a[1] - c[1], a[2] - c[2]}))
		if sep > 1e-11 || shift > 0.1 {
			t.Errorf("site %+v JD %v: (%v, %v) → apparent (%v, %v) → (%v, %v): %.3g rad", site, jd, ra, dec, ar, ad, r2, d2, sep)
		}
		zr, zd := o.ZenithICRS()
		rot, err := New(Config{Site: site, TimesJD: []float64{jd}, EOP: []EOP{eop}}, []float64{zr}, []float64{zd})
		if err != nil {
			t.Fatal(err)
		}
		e, n, u := make([]float64, 1), make([]float64, 1), make([]float64, 1)
		if err := rot.ENU(0, e, n, u); err != nil {
			t.Fatal(err)
		}
		off := math.Hypot(e[0], n[0])
		worstZen = math.Max(worstZen, off)
		if off > 2e-12 || u[0] < 0 {
			t.Errorf("site %+v JD %v: the zenith (%v, %v) is at ENU (%v, %v, %v)", site, jd, zr, zd, e[0], n[0], u[0])
		}
	}
	t.Logf("largest round-trip separation %.3g rad, zenith offset %.3g rad", worstTrip, worstZen)
}

func TestObserverErrors(t *testing.T) {
	if _, err := NewObserver(Site{LatDeg: 95}, 2459845, EOP{}); err == nil {
		t.Error("latitude 95 accepted")
	}
	if _, err := NewObserver(Site{}, math.NaN(), EOP{}); err == nil {
		t.Error("NaN JD accepted")
	}
	if _, err := NewObserver(Site{}, 2459845, EOP{XpArcsec: 20}); err == nil {
		t.Error("xp of 20 arcsec accepted")
	}
}
