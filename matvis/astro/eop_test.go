package astro

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// finalsLine builds one finals2000A line with values at their documented
// columns (1-based, right-aligned in the field); empty strings stay blank.
func finalsLine(mjd float64, flag string, xa, ya, ua, xb, yb, ub string) string {
	b := []byte(strings.Repeat(" ", 185))
	put := func(a, e int, s string) {
		if s == "" {
			return
		}
		w := e - a + 1
		copy(b[a-1:e], fmt.Sprintf("%*s", w, s))
	}
	put(1, 6, "220918")
	put(8, 15, fmt.Sprintf("%8.2f", mjd))
	put(17, 17, flag)
	put(19, 27, xa)
	put(38, 46, ya)
	put(58, 58, flag)
	put(59, 68, ua)
	put(135, 144, xb)
	put(145, 154, yb)
	put(155, 165, ub)
	return strings.TrimRight(string(b), " ")
}

func TestParseFinals2000A(t *testing.T) {
	file := strings.Join([]string{
		finalsLine(59840, "I", "0.289000", "0.276000", "-0.0057000", "0.289200", "0.276200", "-0.0057200"),
		finalsLine(59841, "I", "0.290000", "0.275000", "-0.0058000", "", "", ""),
		// A leap second between these two rows: UT1−UTC jumps by +1 s.
		finalsLine(59842, "P", "0.291000", "0.274000", "-0.4000000", "", "", ""),
		finalsLine(59843, "P", "0.292000", "0.273000", "0.5800000", "", "", ""),
		finalsLine(59844, "", "", "", "", "", "", ""), // future row without values
		"",
	}, "\n")
	tab, err := ParseFinals2000A(strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.MJD) != 4 {
		t.Fatalf("got %d rows, want 4", len(tab.MJD))
	}
	if tab.XpArcsec[0] != 0.2892 || tab.UT1MinusUTC[0] != -0.0057200 {
		t.Errorf("Bulletin B values not preferred: row 0 = %v %v", tab.XpArcsec[0], tab.UT1MinusUTC[0])
	}
	cases := []struct {
		jd         float64
		want       EOP
		predicted  bool
		outOfRange bool
	}{
		{59840 + djm0, EOP{-0.00572, 0.2892, 0.2762}, false, false},
		{59840.5 + djm0, EOP{-0.00576, 0.2896, 0.2756}, false, false},
		{59841.25 + djm0, EOP{-0.0058 + 0.25*(-0.4+0.0058), 0.29025, 0.27475}, true, false},
		// Across the leap second: the −0.40 → +0.58 step is −0.02 after removing 1 s.
		{59842.5 + djm0, EOP{-0.41, 0.2915, 0.2735}, true, false},
		{59843 + djm0, EOP{-0.42, 0.292, 0.273}, true, false},
		{59839.9 + djm0, EOP{}, false, true},
		{59843.1 + djm0, EOP{}, false, true},
	}
	for _, c := range cases {
		got, pred, err := tab.At(c.jd)
		if c.outOfRange {
			if !errors.Is(err, ErrOutsideEOPTable) {
				t.Errorf("At(%v): err = %v, want ErrOutsideEOPTable", c.jd, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("At(%v): %v", c.jd, err)
		}
		if math.Abs(got.UT1MinusUTCSec-c.want.UT1MinusUTCSec) > 1e-9 ||
			math.Abs(got.XpArcsec-c.want.XpArcsec) > 1e-9 || math.Abs(got.YpArcsec-c.want.YpArcsec) > 1e-9 || pred != c.predicted {
			t.Errorf("At(MJD %v) = %+v predicted %v, want %+v predicted %v", c.jd-djm0, got, pred, c.want, c.predicted)
		}
	}
	eops, err := tab.ForTimes([]float64{59840 + djm0, 59841 + djm0})
	if err != nil || len(eops) != 2 || eops[1].XpArcsec != 0.29 {
		t.Errorf("ForTimes = %+v, %v", eops, err)
	}
	if _, err := tab.ForTimes([]float64{59840 + djm0, 59900 + djm0}); err == nil || !strings.Contains(err.Error(), "times_jd[1]") {
		t.Errorf("ForTimes out of range: err = %v", err)
	}
}

func TestParseFinals2000ABad(t *testing.T) {
	good := finalsLine(59840, "I", "0.289000", "0.276000", "-0.0057000", "", "", "")
	cases := []struct {
		name, file, want string
	}{
		{"short", good + "\n22 9", "line 2: too short"},
		{"bad mjd", good + "\n" + strings.Replace(finalsLine(59841, "I", "0.29", "0.27", "-0.0058", "", "", ""), "59841.00", "5984x.00", 1), "line 2: MJD"},
		{"bad pm", good + "\n" + finalsLine(59841, "I", "0.2a", "0.27", "-0.0058", "", "", ""), "line 2: PM-x"},
		{"bad ut1", good + "\n" + finalsLine(59841, "I", "0.29", "0.27", "-0.0x58", "", "", ""), "line 2: UT1-UTC"},
		{"nan", good + "\n" + finalsLine(59841, "I", "NaN", "0.27", "-0.0058", "", "", ""), "line 2: PM-x = NaN"},
		{"order", good + "\n" + finalsLine(59839, "I", "0.29", "0.27", "-0.0058", "", "", ""), "line 2: MJD 59839 does not follow 59840"},
		{"too few", good, "1 usable rows"},
		{"empty", "", "0 usable rows"},
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
