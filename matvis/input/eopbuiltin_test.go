package input

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/matvis/astro/iersdata"
)

// TestBuiltinEOPEqualsReferences: at each pyuvsim reference's times the
// embedded table gives what the reference's astropy used (its eop.json),
// to 1e-15 s and 1e-15″; and an eopc04 file passed as --eop gives the
// same.
func TestBuiltinEOPEqualsReferences(t *testing.T) {
	text, err := iersdata.Text()
	if err != nil {
		t.Fatal(err)
	}
	c04 := filepath.Join(t.TempDir(), iersdata.File)
	if err := os.WriteFile(c04, text, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"pyuvsim-stokesI-gaussian", "pyuvsim-fullstokes-airy"} {
		ref := filepath.Join(sharedtest.Dir(t), "reference", dir, "eop.json")
		times := []float64{2459845.0, 2459845.0 + 600.0/86400, 2459845.0 + 1200.0/86400}
		want, err := ReadEOPFile(ref, times)
		if err != nil {
			t.Fatal(err)
		}
		var warned []string
		got, err := BuiltinEOP(times, func(s string) { warned = append(warned, s) })
		if err != nil {
			t.Fatal(err)
		}
		fromFile, err := ReadEOPFile(c04, times)
		if err != nil {
			t.Fatal(err)
		}
		if len(warned) != 0 {
			t.Errorf("%s: warnings %q", dir, warned)
		}
		for i := range times {
			for _, g := range []astro.EOP{got[i], fromFile[i]} {
				if math.Abs(g.UT1MinusUTCSec-want[i].UT1MinusUTCSec) > 1e-15 || math.Abs(g.XpArcsec-want[i].XpArcsec) > 1e-15 || math.Abs(g.YpArcsec-want[i].YpArcsec) > 1e-15 {
					t.Errorf("%s: time %d: %+v, eop.json %+v", dir, i, g, want[i])
				}
			}
		}
	}
}

// TestBuiltinEOPOutsideWarns: times after the table's end (or before its
// start) get astropy's fallback — UT1 − UTC = 0, the 50-year mean polar
// motion — and one warning naming the table's end, --eop and the refresh
// script; times inside keep the table's values.
func TestBuiltinEOPOutsideWarns(t *testing.T) {
	for _, c := range []struct {
		name    string
		times   []float64
		outside []bool
	}{
		{"after", []float64{2459845.0, 2460000.5, 2461000.25}, []bool{false, true, true}},
		{"the last row", []float64{59912 + 2400000.5}, []bool{true}},
		{"before", []float64{37000 + 2400000.5, 2459845.0}, []bool{true, false}},
		{"inside", []float64{59911.9 + 2400000.5}, []bool{false}},
	} {
		var warned []string
		got, err := BuiltinEOP(c.times, func(s string) { warned = append(warned, s) })
		if err != nil {
			t.Fatal(err)
		}
		any := false
		for i, out := range c.outside {
			any = any || out
			fallback := got[i] == astro.EOP{XpArcsec: 0.035, YpArcsec: 0.29}
			if fallback != out {
				t.Errorf("%s: times[%d]: %+v, outside %v", c.name, i, got[i], out)
			}
		}
		if !any {
			if len(warned) != 0 {
				t.Errorf("%s: warnings %q", c.name, warned)
			}
			continue
		}
		if len(warned) != 1 {
			t.Fatalf("%s: %d warnings, want 1: %q", c.name, len(warned), warned)
		}
		for _, want := range []string{"outside the embedded IERS table", "2022-11-29", "MJD 37665 to 59912", "--eop FILE", "scripts/refresh-iers.sh"} {
			if !strings.Contains(warned[0], want) {
				t.Errorf("%s: warning %q lacks %q", c.name, warned[0], want)
			}
		}
	}
}

// TestObsParamDefaultEOP: a pyuvsim configuration without EOP takes the
// embedded table, the history names it, and a time past it warns.
func TestObsParamDefaultEOP(t *testing.T) {
	path := filepath.Join(sharedtest.Dir(t), "reference", "pyuvsim-stokesI-gaussian", "obsparam.yaml")
	var warned []string
	_, obs, err := FromObsParam(path, &ObsOptions{Warn: func(s string) { warned = append(warned, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if obs.EOPSource != BuiltinEOPSource || !strings.Contains(obs.History, BuiltinEOPSource) || len(obs.EOP) != 3 || obs.EOP[0].XpArcsec == 0 {
		t.Errorf("EOPSource %q, history %q, EOP %+v", obs.EOPSource, obs.History, obs.EOP)
	}
	for _, w := range warned {
		if strings.Contains(w, "IERS") || strings.Contains(w, "Earth-orientation") {
			t.Errorf("warning %q for times inside the table", w)
		}
	}
}
