package astro

import (
	"strings"
	"testing"
)

// TestParseFinals2000ARanges: values far outside physical ranges (units
// slipped to mas or ms, or 1e300, which makes At return Inf and the
// visibilities NaN) used to be accepted.
func TestParseFinals2000ARanges(t *testing.T) {
	good := finalsLine(59840, "I", "0.289000", "0.276000", "-0.0057000", "", "", "")
	line2 := func(mjd float64, x, y, u string) string {
		return good + "\n" + finalsLine(mjd, "I", x, y, u, "", "", "")
	}
	cases := []struct{ name, file, want string }{
		{"pm in mas", line2(59841, "289.0", "0.27", "-0.0058"), "line 2: PM-x = 289: polar motion must be within ±10 arcsec"},
		{"pm huge", line2(59841, "0.29", "1e300", "-0.0058"), "line 2: PM-y = 1e+300"},
		{"ut1 in ms", line2(59841, "0.29", "0.27", "-5.8"), "line 2: UT1-UTC = -5.8: must be within ±2 s"},
		{"mjd before 1960", finalsLine(400, "I", "0.29", "0.27", "-0.0058", "", "", "") + "\n" + good, "line 1: MJD (columns 8-15) = 400: outside 1960–2500"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseFinals2000A(strings.NewReader(c.file))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
}

// FuzzFinals2000A checks that ParseFinals2000A never panics, that every
// table it returns is strictly increasing with finite values in range, and
// that At never fails or returns non-finite values inside it.
func FuzzFinals2000A(f *testing.F) {
	good := finalsLine(59840, "I", "0.289000", "0.276000", "-0.0057000", "0.289200", "0.276200", "-0.0057200")
	f.Add(good + "\n" + finalsLine(59841, "P", "0.290000", "0.275000", "-0.0058000", "", "", "") + "\n")
	f.Add(good + "\r\n" + finalsLine(59842, "I", "0.291000", "0.274000", "0.5800000", "", "", "") + "\r\n" + finalsLine(59843, "", "", "", "", "", "", ""))
	f.Add(good + "\n" + finalsLine(59841, "I", "1e300", "0.27", "-0.0058", "", "", ""))
	f.Add(good + "\n" + finalsLine(59841, "P", "0.290000", "0.275000", "-0.0054471", "", "", "")[:62] + "\n")
	f.Add(good + "\n" + good + "\n" + finalsLine(59841, "P", "0.290000", "0.275000", "-0.0058000", "", "", "") + "\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, in string) {
		tab, err := ParseFinals2000A(strings.NewReader(in))
		if err != nil {
			return
		}
		// No line read may end inside a value field it has text in (the
		// readme's columns, written out here again).
		for _, line := range strings.Split(in, "\n") {
			line = strings.TrimRight(line, "\r")
			for _, c := range [][2]int{{19, 27}, {38, 46}, {59, 68}, {135, 144}, {145, 154}, {155, 165}} {
				if len(line) >= c[0] && len(line) < c[1] && strings.TrimSpace(line[c[0]-1:]) != "" {
					t.Fatalf("line %q ends inside columns %d-%d and was read", line, c[0], c[1])
				}
			}
		}
		n := len(tab.MJD)
		if n < 2 || len(tab.XpArcsec) != n || len(tab.YpArcsec) != n || len(tab.UT1MinusUTC) != n || len(tab.Predicted) != n {
			t.Fatalf("malformed table: %d rows", n)
		}
		for i := 1; i < n; i++ {
			if !(tab.MJD[i] > tab.MJD[i-1]) {
				t.Fatalf("MJD %v does not follow %v", tab.MJD[i], tab.MJD[i-1])
			}
		}
		for _, mjd := range []float64{(tab.MJD[0] + tab.MJD[1]) / 2, (tab.MJD[n-2] + tab.MJD[n-1]) / 2} {
			e, _, err := tab.At(mjd + djm0)
			if err != nil {
				t.Fatalf("At(MJD %v): %v", mjd, err)
			}
			if !finite(e.UT1MinusUTCSec) || !finite(e.XpArcsec) || !finite(e.YpArcsec) {
				t.Fatalf("At(MJD %v) = %+v", mjd, e)
			}
		}
	})
}
