package astro

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// c04Line builds one C04 data line in the file's FORMAT
// (3(I4),I7,2(F11.6),2(F12.7),…), LOD and the rest zero.
func c04Line(y, m, d, mjd int, x, yp, u float64) string {
	return fmt.Sprintf("%4d%4d%4d%7d%11.6f%11.6f%12.7f%12.7f%11.6f%11.6f%11.6f%11.6f%11.7f%11.7f%12.6f%12.6f",
		y, m, d, mjd, x, yp, u, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
}

const c04Header = `               EARTH ORIENTATION PARAMETER (EOP) PRODUCT CENTER CENTER (PARIS OBSERVATORY)
                                    EOP (IERS) 14 C04 TIME SERIES
             FORMAT(3(I4),I7,2(F11.6),2(F12.7),2(F11.6),2(F11.6),2(F11.7),2(F12.6))
##################################################################################

      Date      MJD      x          y        UT1-UTC       LOD         dX        dY        x Err     y Err   UT1-UTC Err  LOD Err     dX Err       dY Err
                         "          "           s           s          "         "           "          "          s         s            "           "
     (0h UTC)

`

// TestParseC04AndAtAstropy: a C04 file (header, a leap second between
// 2016-12-31 and 2017-01-01) is read at its documented columns, and
// AtAstropy gives astropy's IERS._interpolate: the row's own values on a
// row's date (side="right"), the linear blend between rows, the leap
// second taken out of the UT1 − UTC step, and outside [first, last)
// UT1 − UTC = 0 with the 50-year mean polar motion.
func TestParseC04AndAtAstropy(t *testing.T) {
	file := c04Header + strings.Join([]string{
		c04Line(2016, 12, 30, 57752, 0.082000, 0.262900, -0.4068000),
		c04Line(2016, 12, 31, 57753, 0.081284, 0.263013, -0.4077492),
		c04Line(2017, 1, 1, 57754, 0.080406, 0.263110, 0.5912977),
		c04Line(2017, 1, 2, 57755, 0.079500, 0.263200, 0.5902000),
	}, "\n") + "\n"
	tab, err := ParseC04(strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.MJD) != 4 || tab.MJD[1] != 57753 || tab.XpArcsec[1] != 0.081284 || tab.YpArcsec[1] != 0.263013 || tab.UT1MinusUTC[1] != -0.4077492 {
		t.Fatalf("parsed %+v", tab)
	}
	blend := func(a, b, f float64) float64 { return a + f*(b-a) }
	cases := []struct {
		name    string
		mjd     float64
		want    EOP
		inRange bool
	}{
		{"first row", 57752, EOP{-0.4068, 0.082, 0.2629}, true},
		{"mid-point", 57752.5, EOP{blend(-0.4068, -0.4077492, 0.5), blend(0.082, 0.081284, 0.5), blend(0.2629, 0.263013, 0.5)}, true},
		{"a quarter", 57752.25, EOP{blend(-0.4068, -0.4077492, 0.25), blend(0.082, 0.081284, 0.25), blend(0.2629, 0.263013, 0.25)}, true},
		// Across the leap second: the step −0.4077492 → 0.5912977 loses 1 s.
		{"across the leap second", 57753.5, EOP{-0.4077492 + 0.5*(0.5912977+0.4077492-1), blend(0.081284, 0.080406, 0.5), blend(0.263013, 0.263110, 0.5)}, true},
		// On the leap day's 0h: that row's value, after the leap (side="right").
		{"leap day 0h", 57754, EOP{0.5912977, 0.080406, 0.263110}, true},
		{"before", 57751.9, EOP{0, 0.035, 0.29}, false},
		{"last row", 57755, EOP{0, 0.035, 0.29}, false},
		{"after", 57800, EOP{0, 0.035, 0.29}, false},
	}
	for _, c := range cases {
		got, in, err := tab.AtAstropy(c.mjd + djm0)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if in != c.inRange || math.Abs(got.UT1MinusUTCSec-c.want.UT1MinusUTCSec) > 1e-12 ||
			math.Abs(got.XpArcsec-c.want.XpArcsec) > 1e-12 || math.Abs(got.YpArcsec-c.want.YpArcsec) > 1e-12 {
			t.Errorf("%s (MJD %v): %+v in range %v, want %+v %v", c.name, c.mjd, got, in, c.want, c.inRange)
		}
	}
	if _, _, err := tab.AtAstropy(math.NaN()); err == nil {
		t.Error("AtAstropy(NaN): no error")
	}
}

// TestParseC04Refuses: malformed data lines are errors naming the line.
func TestParseC04Refuses(t *testing.T) {
	good := c04Line(2022, 9, 18, 59840, 0.293594, 0.287789, -0.0092502)
	for _, c := range []struct{ name, body, want string }{
		{"no rows", "", "0 data rows"},
		{"one row", good, "1 data rows"},
		{"bad number", good + "\n" + strings.Replace(c04Line(2022, 9, 19, 59841, 0.2, 0.2, -0.01), "0.200000", "0.2x0000", 1), "line 11: PM-x"},
		{"short line", good + "\n" + c04Line(2022, 9, 19, 59841, 0.2, 0.2, -0.01)[:40], "line 11: not a data line"},
		{"text after the rows", good + "\nsome trailer", "line 11: not a data line"},
		{"out of order", good + "\n" + c04Line(2022, 9, 17, 59839, 0.2, 0.2, -0.01), "does not follow"},
		{"milliarcseconds", good + "\n" + c04Line(2022, 9, 19, 59841, 293.6, 0.2, -0.01), "polar motion"},
	} {
		_, err := ParseC04(strings.NewReader(c04Header + c.body))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// The C04 reader on fuzzed input: no panic, and every table it accepts
// interpolates to finite values.
func FuzzC04(f *testing.F) {
	f.Add(c04Header + c04Line(2022, 9, 18, 59840, 0.29, 0.28, -0.009) + "\n" + c04Line(2022, 9, 19, 59841, 0.29, 0.28, -0.009))
	f.Add("")
	f.Fuzz(func(t *testing.T, in string) {
		tab, err := ParseC04(strings.NewReader(in))
		if err != nil {
			return
		}
		n := len(tab.MJD)
		e, ok, err := tab.AtAstropy((tab.MJD[0]+tab.MJD[n-1])/2 + djm0)
		if err != nil || !ok || !finite(e.UT1MinusUTCSec) || !finite(e.XpArcsec) || !finite(e.YpArcsec) {
			t.Fatalf("AtAstropy = %+v, %v, %v", e, ok, err)
		}
	})
}
