package skymodel

import (
	"strings"
	"testing"
)

// TestTextFrequencyUnitEach: every Frequency unit scales the reference
// frequency by its SI factor. One source of 2.5 Jy at 100 MHz with
// spectral index −1, written in each unit; at 200 MHz, by hand,
// 2.5 · (200/100)^−1 = 1.25 Jy. A wrong factor moves the reference by
// 10^3 or more, and the flux by as much.
func TestTextFrequencyUnitEach(t *testing.T) {
	for _, c := range []struct{ unit, ref string }{
		{"Hz", "100000000"}, {"kHz", "100000"}, {"MHz", "100"}, {"GHz", "0.1"},
	} {
		text := "source_id ra_icrs [deg] dec_icrs [deg] Flux [Jy] Frequency [" + c.unit + "] Spectral_Index\nA 10 -30 2.5 " + c.ref + " -1\n"
		s, err := ReadText(strings.NewReader(text), "sky.txt")
		if err != nil {
			t.Fatalf("%s: %v", c.unit, err)
		}
		got := make([]float64, 1)
		if err := s.StokesIAt(2e8, got); err != nil {
			t.Fatal(err)
		}
		if !relClose(got[0], 1.25, 1e-14) {
			t.Errorf("Frequency [%s] %s: I at 200 MHz = %g Jy, want 1.25", c.unit, c.ref, got[0])
		}
	}
}
