package input

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/matvis/astro/iersdata"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// TestObsPoleDecision: a pyuvsim configuration's beamfits beams get the
// zenith treatment asked for; unasked, a polarized sky under the IAU
// rotation (also the default, "") is continued through the pole and
// every other case — a Stokes-I sky, or pyradiosky's rotation — ends at
// the edge, as obsPole's doc states it.
func TestObsPoleDecision(t *testing.T) {
	for _, c := range []struct {
		asked     string
		polarized bool
		rot       matvis.CoherencyRotation
		want      string
	}{
		{beam.PoleEdge, true, matvis.RotationIAU, beam.PoleEdge},
		{beam.PoleContinued, false, matvis.RotationPyradiosky, beam.PoleContinued},
		{"", true, matvis.RotationIAU, beam.PoleContinued},
		{"", true, "", beam.PoleContinued},
		{"", true, matvis.RotationPyradiosky, beam.PoleEdge},
		{"", false, matvis.RotationIAU, beam.PoleEdge},
		{"", false, "", beam.PoleEdge},
		{"", false, matvis.RotationPyradiosky, beam.PoleEdge},
	} {
		if got := obsPole(c.asked, c.polarized, c.rot); got != c.want {
			t.Errorf("asked %q, polarized %v, rotation %q: %q, want %q", c.asked, c.polarized, c.rot, got, c.want)
		}
	}
}

// TestWithPoleReachesWrappedBeams: the treatment reaches a gridded beam
// bare or under a DiagonalJones wrapper, leaves the beam it was given
// unchanged, and GriddedPole names the treatment of a wrapped beam as of
// a bare one.
func TestWithPoleReachesWrappedBeams(t *testing.T) {
	g, err := beam.NewGriddedFromAnalytic(beam.Gaussian{DiameterM: 14}, []float64{1e8, 2e8}, 36, 30)
	if err != nil {
		t.Fatal(err)
	}
	if g.Pole() != beam.PoleEdge {
		t.Fatalf("a new gridded beam's pole: %q, want %q", g.Pole(), beam.PoleEdge)
	}
	bare, err := withPole(g, beam.PoleContinued)
	if err != nil {
		t.Fatal(err)
	}
	if p := bare.(*beam.Gridded).Pole(); p != beam.PoleContinued {
		t.Errorf("bare: pole %q, want %q", p, beam.PoleContinued)
	}
	wrapped, err := withPole(beam.DiagonalJones{Beam: g}, beam.PoleContinued)
	if err != nil {
		t.Fatal(err)
	}
	inner, ok := wrapped.(beam.DiagonalJones).Beam.(*beam.Gridded)
	if !ok || inner.Pole() != beam.PoleContinued {
		t.Errorf("under DiagonalJones: %v, want a gridded beam continued through the pole", wrapped)
	}
	if g.Pole() != beam.PoleEdge {
		t.Errorf("the beam given was changed: pole %q", g.Pole())
	}
	if same, err := withPole(g, ""); err != nil || same != beam.Beam(g) {
		t.Errorf(`withPole(""): %v %v, want the beam itself`, same, err)
	}
	for _, mode := range []beam.Mode{{}, {Polarized: true}} {
		want := GriddedPole([]beam.Beam{bare}, mode)
		if want == "" {
			t.Fatalf("GriddedPole of a gridded beam is empty")
		}
		if got := GriddedPole([]beam.Beam{wrapped}, mode); got != want {
			t.Errorf("mode %+v: GriddedPole under DiagonalJones %q, bare %q", mode, got, want)
		}
	}
}

// TestEOPJSONMatching: an EOP JSON file's entry serves a time within
// 1 ms of its jd_utc (ReadEOPFile's doc) and no other; the nearest entry
// is taken even when an earlier one precedes it; an entry without
// ut1_utc_s is refused.
func TestEOPJSONMatching(t *testing.T) {
	const jd0 = 2459845.0
	const ms = 1e-3 / 86400
	file := writeTemp(t, "eop.json", `{"times": [
		{"jd_utc": 2459845.0, "ut1_utc_s": -0.1, "xp_arcsec": 0.21, "yp_arcsec": 0.31},
		{"jd_utc": 2459845.5, "ut1_utc_s": -0.2, "xp_arcsec": 0.22, "yp_arcsec": 0.32}]}`)
	got, err := ReadEOPFile(file, []float64{jd0 + 0.5 + 0.4*ms, jd0 - 0.4*ms})
	if err != nil {
		t.Fatal(err)
	}
	if want := []astro.EOP{{UT1MinusUTCSec: -0.2, XpArcsec: 0.22, YpArcsec: 0.32}, {UT1MinusUTCSec: -0.1, XpArcsec: 0.21, YpArcsec: 0.31}}; got[0] != want[0] || got[1] != want[1] {
		t.Errorf("got %+v, want %+v", got, want)
	}
	for _, jd := range []float64{jd0 + 0.5 + 5*ms, jd0 - 5*ms, jd0 + 0.25} {
		if _, err := ReadEOPFile(file, []float64{jd}); err == nil || !strings.Contains(err.Error(), "no entry for time") {
			t.Errorf("jd %.9f (no entry within 1 ms): error %v, want no entry", jd, err)
		}
	}
	bad := writeTemp(t, "bad.json", `{"times": [{"jd_utc": 2459845.0, "xp_arcsec": 0.2, "yp_arcsec": 0.3}]}`)
	if _, err := ReadEOPFile(bad, []float64{jd0}); err == nil || !strings.Contains(err.Error(), "ut1_utc_s are required") {
		t.Errorf("an entry without ut1_utc_s: error %v", err)
	}
}

// TestEOPC04OutsideRefused: a C04 file that does not cover a run's time
// is an error naming the time and wrapping astro.ErrOutsideEOPTable —
// never astropy's silent fallback (UT1 − UTC = 0, mean polar motion).
func TestEOPC04OutsideRefused(t *testing.T) {
	text, err := iersdata.Text()
	if err != nil {
		t.Fatal(err)
	}
	file := writeTemp(t, iersdata.File, string(text))
	const jd1941 = 2400000.5 + 30000
	_, err = ReadEOPFile(file, []float64{2459845.0, jd1941})
	if !errors.Is(err, astro.ErrOutsideEOPTable) || !strings.Contains(err.Error(), "times_jd[1]") {
		t.Errorf("a time in 1941: error %v, want ErrOutsideEOPTable naming times_jd[1]", err)
	}
}

// TestBuiltinEOPWarnsForOneOutside: a single time outside the embedded
// table is warned of, naming it.
func TestBuiltinEOPWarnsForOneOutside(t *testing.T) {
	const jd1941 = 2400000.5 + 30000
	var warned []string
	if _, err := BuiltinEOP([]float64{2459845.0, jd1941}, func(s string) { warned = append(warned, s) }); err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "1 of 2 times") || !strings.Contains(warned[0], "times_jd[1]") {
		t.Errorf("warnings %q, want one naming 1 of 2 times, times_jd[1]", warned)
	}
}

func writeTemp(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSpatialInterpReachesWrappedBeams: the spatial interpolation asked
// for reaches a gridded beam under a DiagonalJones wrapper as it does a
// bare one, and GriddedInterp names it for both.
func TestSpatialInterpReachesWrappedBeams(t *testing.T) {
	g, err := beam.NewGriddedFromAnalytic(beam.Gaussian{DiameterM: 14}, []float64{1e8, 2e8}, 36, 30)
	if err != nil {
		t.Fatal(err)
	}
	wrapped, err := withSpatialInterp(beam.DiagonalJones{Beam: g}, beam.SpatialAzZaSimple)
	if err != nil {
		t.Fatal(err)
	}
	inner, ok := wrapped.(beam.DiagonalJones).Beam.(*beam.Gridded)
	if !ok || inner.SpatialInterp() != beam.SpatialAzZaSimple {
		t.Errorf("under DiagonalJones: %v, want a gridded beam with %s", wrapped, beam.SpatialAzZaSimple)
	}
	if g.SpatialInterp() != beam.SpatialMapCoordinates {
		t.Errorf("the beam given was changed: %s", g.SpatialInterp())
	}
	if got := GriddedInterp([]beam.Beam{wrapped}); got != beam.SpatialAzZaSimple {
		t.Errorf("GriddedInterp under DiagonalJones: %q, want %q", got, beam.SpatialAzZaSimple)
	}
}

// TestEOPJSONRepeatedTime (issue 41 item 4): two eop.json entries for one
// time (within the 1 ms a time matches) with other values are refused
// naming both — which one a time took depended on their order — wherever
// they are in the list; the same values twice are read.
func TestEOPJSONRepeatedTime(t *testing.T) {
	const jd0 = 2459845.0
	entry := func(jd, ut1 float64) string {
		return fmt.Sprintf(`{"jd_utc": %.10f, "ut1_utc_s": %v, "xp_arcsec": 0.1, "yp_arcsec": 0.3}`, jd, ut1)
	}
	for _, c := range []struct {
		name    string
		entries []string
		want    string // "" read
	}{
		{"same values twice", []string{entry(jd0, -0.1), entry(jd0+1, -0.2), entry(jd0, -0.1)}, ""},
		{"other values", []string{entry(jd0, -0.1), entry(jd0+1, -0.2), entry(jd0, -0.15)}, "times[0] and times[2] are both for jd 2459845.000000000, with other values (ut1_utc_s -0.1 and -0.15"},
		{"within 1 ms", []string{entry(jd0+1, -0.2), entry(jd0, -0.1), entry(jd0+0.5e-3/86400, -0.12)}, "times[1] and times[2] are both for jd"},
		{"2 ms apart", []string{entry(jd0, -0.1), entry(jd0+2e-3/86400, -0.12)}, ""},
	} {
		file := writeTemp(t, "eop.json", `{"times": [`+strings.Join(c.entries, ", ")+`]}`)
		_, err := ReadEOPFile(file, []float64{jd0})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), file)):
			t.Errorf("%s: error %v, want %q and the file", c.name, err, c.want)
		}
	}
}
