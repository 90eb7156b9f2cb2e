package astro

import (
	"strings"
	"testing"
)

// TestAtPredictedEitherRow: At reports a prediction when either
// bracketing row is one (its doc) — the earlier as well as the later —
// and not between two final rows.
func TestAtPredictedEitherRow(t *testing.T) {
	tab := &EOPTable{
		MJD:         []float64{60000, 60001, 60002, 60003},
		XpArcsec:    []float64{0.1, 0.1, 0.1, 0.1},
		YpArcsec:    []float64{0.2, 0.2, 0.2, 0.2},
		UT1MinusUTC: []float64{-0.1, -0.1, -0.1, -0.1},
		Predicted:   []bool{false, true, false, false},
	}
	for _, c := range []struct {
		mjd  float64
		want bool
	}{{60000.5, true}, {60001.5, true}, {60002.5, false}} {
		_, pred, err := tab.At(c.mjd + djm0)
		if err != nil {
			t.Fatal(err)
		}
		if pred != c.want {
			t.Errorf("MJD %v (rows predicted %v): predicted %v, want %v", c.mjd, tab.Predicted, pred, c.want)
		}
	}
}

// TestFinalsRowBounds: a repeated MJD with other values is refused naming both lines, and
// UT1 − UTC is bounded at ±2 s (leap seconds keep it within 0.9 s): 1.9 s
// is read, 2.5 s refused.
func TestFinalsRowBounds(t *testing.T) {
	good := finalsLine(59840, "I", "0.289000", "0.276000", "-0.0057000", "", "", "")
	for _, c := range []struct{ name, line2, want string }{
		{"repeated MJD", finalsLine(59840, "I", "0.29", "0.27", "-0.0058", "", "", ""), "line 2: MJD 59840 is also on line 1, with other values"},
		{"ut1 2.5 s", finalsLine(59841, "I", "0.29", "0.27", "2.5", "", "", ""), "line 2: UT1-UTC = 2.5: must be within ±2 s"},
		{"ut1 -2.5 s", finalsLine(59841, "I", "0.29", "0.27", "-2.5", "", "", ""), "line 2: UT1-UTC = -2.5"},
		{"ut1 1.9 s", finalsLine(59841, "I", "0.29", "0.27", "1.9", "", "", ""), ""},
	} {
		_, err := ParseFinals2000A(strings.NewReader(good + "\n" + c.line2))
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}
