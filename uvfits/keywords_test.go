package uvfits

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/uvh5"
)

// createErr tries to write a tiny file after set, and returns Create's
// error (aborting the writer when there is none).
func createErr(t *testing.T, set func(h *uvh5.Header, pc *PhaseCenter, o *Options)) error {
	t.Helper()
	h := tinyHeader()
	pc := PhaseCenter{Name: "zenith", RADeg: 10, DecDeg: -30}
	var o Options
	set(h, &pc, &o)
	o.PhaseCenter = pc
	w, err := Create(filepath.Join(t.TempDir(), "x.uvfits"), h, o)
	if err == nil {
		w.Abort()
	}
	return err
}

// TestKeywordNames: an extra keyword's name follows the FITS standard
// (4.0, §4.1.2.1): at most 8 characters, each an upper-case letter, a
// digit, '-' or '_'.
func TestKeywordNames(t *testing.T) {
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"NSIM", true}, {"DATE-OBS", true}, {"A_1", true}, {"ABCDEFGH", true},
		{"ABCDEFGHI", false}, {"nsim", false}, {"Nsim", false}, {"N SIM", false}, {"N.SIM", false}, {"", false},
	} {
		err := createErr(t, func(_ *uvh5.Header, _ *PhaseCenter, o *Options) {
			o.Keywords = []Keyword{{Name: c.name, Value: 3}}
		})
		if (err == nil) != c.ok {
			t.Errorf("keyword %q: %v, want accepted=%v", c.name, err, c.ok)
		}
		if err != nil && !strings.Contains(err.Error(), `"`+c.name+`"`) {
			t.Errorf("keyword %q: %v does not name it", c.name, err)
		}
	}
}

// TestHeaderDELRefused: DEL (0x7F) is outside FITS's printable ASCII
// 32–126 (standard 4.0, §4.1.2.3), as the control characters are.
func TestHeaderDELRefused(t *testing.T) {
	err := createErr(t, func(h *uvh5.Header, _ *PhaseCenter, _ *Options) { h.Instrument = "HE\x7fRA" })
	var se *StringError
	if !errors.As(err, &se) || se.Key != "INSTRUME" || !strings.Contains(err.Error(), "U+007F") || !strings.Contains(err.Error(), "byte 3") {
		t.Errorf("DEL in the instrument: %v, want a StringError naming INSTRUME, U+007F at byte 3", err)
	}
	if err := createErr(t, func(h *uvh5.Header, _ *PhaseCenter, _ *Options) { h.Instrument = "~ !" }); err != nil {
		t.Errorf("'~', ' ' and '!' (126, 32, 33) refused: %v", err)
	}
}

// TestStandardKeywordsOneCard: the standard keywords' values take one
// card (68 characters): FITS's CONTINUE convention is for other keywords
// only, so 69 are refused on each, and 68 fit. (BUNIT is left out: the
// header's check allows only Jy, K str and uncalib there.)
func TestStandardKeywordsOneCard(t *testing.T) {
	for _, c := range []struct {
		key string
		set func(h *uvh5.Header, pc *PhaseCenter, v string)
	}{
		{"OBJECT", func(_ *uvh5.Header, pc *PhaseCenter, v string) { pc.Name = v }},
		{"TELESCOP", func(h *uvh5.Header, _ *PhaseCenter, v string) { h.TelescopeName = v }},
		{"INSTRUME", func(h *uvh5.Header, _ *PhaseCenter, v string) { h.Instrument = v }},
		{"RADESYS", func(_ *uvh5.Header, pc *PhaseCenter, v string) { pc.Frame = v }},
	} {
		for _, n := range []int{68, 69} {
			err := createErr(t, func(h *uvh5.Header, pc *PhaseCenter, _ *Options) { c.set(h, pc, strings.Repeat("x", n)) })
			var se *StringError
			switch {
			case n == 68 && err != nil && errors.As(err, &se):
				t.Errorf("%s of 68 characters: %v", c.key, err)
			case n == 69 && (!errors.As(err, &se) || se.Key != c.key || !strings.Contains(err.Error(), "CONTINUE")):
				t.Errorf("%s of 69 characters: %v, want it refused naming %s and CONTINUE", c.key, err, c.key)
			}
		}
	}
}
