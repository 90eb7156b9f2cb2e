package skymodel

import (
	"strings"
	"testing"
)

// TestTextHeaderUnits (issue 41 item 4): a text catalog's header units
// are read, not dropped: "Flux [mJy]" is a thousandth of "Flux [Jy]"
// (it was read as Jy, 1000× too bright), μJy a millionth, a Frequency in
// MHz is 10⁶ Hz, and a unit the reader does not know ("[furlong]"), a
// coordinate in radians (pyradiosky reads degrees) or a unit on
// source_id is refused naming the column and what it takes. Expected
// fluxes are the file's numbers times the unit's SI prefix.
func TestTextHeaderUnits(t *testing.T) {
	const row = "A 10 -30 2.5"
	for _, c := range []struct {
		name, header, row string
		freq, want        float64 // Stokes I at freq, Jy
	}{
		{"Jy", "source_id ra_icrs [deg] dec_icrs [deg] Flux [Jy]", row, 1e8, 2.5},
		{"no unit", "source_id ra_icrs dec_icrs Flux", row, 1e8, 2.5},
		{"mJy", "source_id ra_icrs [deg] dec_icrs [deg] Flux [mJy]", row, 1e8, 2.5e-3},
		{"uJy", "source_id ra_icrs [deg] dec_icrs [deg] Flux [uJy]", row, 1e8, 2.5e-6},
		{"μJy (mu)", "source_id ra_icrs [deg] dec_icrs [deg] Flux [μJy]", row, 1e8, 2.5e-6},
		{"µJy (micro sign)", "source_id ra_icrs [deg] dec_icrs [deg] Flux [µJy]", row, 1e8, 2.5e-6},
		{"degree", "source_id ra_icrs [degree] dec_icrs [degrees] Flux [Jy]", row, 1e8, 2.5},
		{"mJy with errors", "source_id ra_icrs [deg] dec_icrs [deg] Flux [mJy] Flux_error [mJy]", row + " 0.1", 1e8, 2.5e-3},
		{"full in mJy", "source_id ra_icrs [deg] dec_icrs [deg] Flux_100_MHz [mJy] Flux_200_MHz [mJy]", row + " 5", 2e8, 5e-3},
		// Spectral index −1 from 100 MHz: at 200 MHz half the flux; with
		// the reference read as 100 Hz instead it would be 5e-7 of it.
		{"Frequency MHz", "source_id ra_icrs [deg] dec_icrs [deg] Flux [Jy] Frequency [MHz] Spectral_Index", row + " 100 -1", 2e8, 1.25},
		{"Frequency GHz", "source_id ra_icrs [deg] dec_icrs [deg] Flux [mJy] Frequency [GHz] Spectral_Index []", row + " 0.1 -1", 2e8, 1.25e-3},
		{"unit in two tokens", "source_id ra_icrs [deg] dec_icrs [deg] Flux [ mJy ]", row, 1e8, 2.5e-3},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := ReadText(strings.NewReader(c.header+"\n"+c.row+"\n"), "sky.txt")
			if err != nil {
				t.Fatal(err)
			}
			got := make([]float64, 1)
			if err := s.StokesIAt(c.freq, got); err != nil {
				t.Fatal(err)
			}
			if !relClose(got[0], c.want, 1e-14) {
				t.Errorf("I at %g Hz = %g Jy, want %g", c.freq, got[0], c.want)
			}
			ref, err := readTextReference([]byte(c.header+"\n"+c.row+"\n"), "sky.txt")
			if err != nil {
				t.Fatal(err)
			}
			if err := ref.StokesIAt(c.freq, got); err != nil || !relClose(got[0], c.want, 1e-14) {
				t.Errorf("the reference reader: %g Jy (%v), want %g", got[0], err, c.want)
			}
		})
	}
	for _, c := range []struct {
		name, header string
		frags        []string
	}{
		{"furlong", "source_id ra_icrs [deg] dec_icrs [deg] Flux [furlong]", []string{"sky.txt", `column "Flux" has unit [furlong]`, "a flux column takes Jy, mJy, uJy, μJy"}},
		{"MJy is mega", "source_id ra_icrs [deg] dec_icrs [deg] Flux [MJy]", []string{"[MJy]", "takes Jy, mJy"}},
		{"Jy/beam", "source_id ra_icrs [deg] dec_icrs [deg] Flux [Jy/beam]", []string{"[Jy/beam]"}},
		{"radians", "source_id ra_icrs [rad] dec_icrs [rad] Flux [Jy]", []string{`column "ra_icrs" has unit [rad]`, "a coordinate column takes deg"}},
		{"Frequency in furlongs", "source_id ra_icrs [deg] dec_icrs [deg] Flux [Jy] Frequency [m]", []string{`column "Frequency" has unit [m]`, "Hz, kHz, MHz, GHz"}},
		{"unit on source_id", "source_id [Jy] ra_icrs [deg] dec_icrs [deg] Flux [Jy]", []string{`column "source_id" has unit [Jy]`, "takes no unit"}},
		{"unit on Spectral_Index", "source_id ra_icrs dec_icrs Flux Frequency Spectral_Index [Jy]", []string{`column "Spectral_Index" has unit [Jy]`}},
		{"mixed flux units", "source_id ra_icrs [deg] dec_icrs [deg] Flux_100_MHz [Jy] Flux_200_MHz [mJy]", []string{"different flux units", "give every flux column one unit"}},
		{"two units", "source_id ra_icrs [deg] dec_icrs [deg] Flux [Jy] [mJy]", []string{`column "Flux" has two units`}},
		{"unit first", "[Jy] source_id ra_icrs dec_icrs Flux", []string{"comes before any column"}},
		{"unclosed", "source_id ra_icrs [deg] dec_icrs [deg] Flux [Jy", []string{"no closing ']'"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			// A row of as many numbers as the header has columns: the
			// header alone is refused.
			ncol := len(strings.Fields(c.header)) - strings.Count(c.header, "[")
			fields := []string{"A", "10", "-30", "2.5", "100", "-1"}
			r := strings.Join(fields[:min(max(ncol, 4), len(fields))], " ")
			_, err := ReadText(strings.NewReader(c.header+"\n"+r+"\n"), "sky.txt")
			if err == nil {
				t.Fatal("read")
			}
			for _, f := range c.frags {
				if !strings.Contains(err.Error(), f) {
					t.Errorf("error %q lacks %q", err, f)
				}
			}
		})
	}
}
