package phase

import (
	"errors"
	"testing"

	"github.com/gomatvis/gomatvis/matvis/astro"
)

// TestTargetCentreFor: a given centre is used as it is; without one the
// centre is ZenithCentre of the first time with that time's Earth
// orientation (pyuvdata's force_phase); no times, or a failing EOP, is an
// error.
func TestTargetCentreFor(t *testing.T) {
	site := astro.Site{LatDeg: -30.72152612068964, LonDeg: 21.42830382686302, HeightM: 1051.69}
	times := []float64{2459845.0, 2459845.0069444445}
	eops := map[float64]astro.EOP{times[0]: {UT1MinusUTCSec: -0.0105, XpArcsec: 0.21, YpArcsec: 0.34}, times[1]: {}}
	eop := func(jd float64) (astro.EOP, error) { return eops[jd], nil }
	given := Centre{Name: "given", RA: 1.25, Dec: -0.5}
	if c, err := (Target{Centre: &given, EOP: eop}).CentreFor(site, nil); err != nil || c != given {
		t.Errorf("a given centre: %+v, %v; want %+v", c, err, given)
	}
	want, err := ZenithCentre(site, times[0], eops[times[0]])
	if err != nil {
		t.Fatal(err)
	}
	if c, err := (Target{EOP: eop}).CentreFor(site, times); err != nil || c != want {
		t.Errorf("no centre: %+v, %v; want the first time's zenith %+v", c, err, want)
	}
	if _, err := (Target{EOP: eop}).CentreFor(site, nil); err == nil {
		t.Error("no centre and no times: no error")
	}
	bad := errors.New("no EOP")
	if _, err := (Target{EOP: func(float64) (astro.EOP, error) { return astro.EOP{}, bad }}).CentreFor(site, times); !errors.Is(err, bad) {
		t.Errorf("a failing EOP: %v, want it wrapped", err)
	}
}
