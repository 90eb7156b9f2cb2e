package astro

import (
	"strings"
	"testing"
)

// TestFinalsCutFields (issue 41 item 4): a finals2000A line that ends
// inside a value field is refused with the line number and the field,
// for every value field, wherever in the field it is cut — a cut row's
// UT1-UTC "-0.0" (from "-0.0054471") was read as a number. A line whose
// trailing blanks were trimmed after a whole field is read.
func TestFinalsCutFields(t *testing.T) {
	good := finalsLine(59840, "I", "0.289000", "0.276000", "-0.0057000", "", "", "")
	full := finalsLine(59841, "I", "0.290000", "0.275000", "-0.0054471", "0.290200", "0.275200", "-0.0054571")
	for _, f := range finalsFields {
		for cut := f.a; cut < f.b; cut++ {
			line := full[:cut]
			if strings.TrimSpace(line[f.a-1:]) == "" {
				continue // cut in the field's leading blanks: the field is blank, not cut
			}
			_, err := ParseFinals2000A(strings.NewReader(good + "\n" + line + "\n" + finalsLine(59842, "I", "0.29", "0.27", "-0.0058", "", "", "")))
			want := "line 2: " + f.what
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "cut short") {
				t.Errorf("%s cut at column %d: error %v, want %q … cut short", f.what, cut, err, want)
			}
		}
	}
	for _, cut := range []int{68, 78, 165, len(full)} {
		if _, err := ParseFinals2000A(strings.NewReader(good + "\n" + full[:cut] + "\n")); err != nil {
			t.Errorf("a line ending at column %d (between fields): %v", cut, err)
		}
	}
}

// TestRepeatedEOPDates: a date given twice with the same values is read
// once; with other values it is refused naming both lines, in both table
// formats.
func TestRepeatedEOPDates(t *testing.T) {
	a := finalsLine(59840, "I", "0.289000", "0.276000", "-0.0057000", "", "", "")
	b := finalsLine(59841, "I", "0.290000", "0.275000", "-0.0058000", "", "", "")
	b2 := finalsLine(59841, "I", "0.290000", "0.275000", "-0.0059000", "", "", "")
	tab, err := ParseFinals2000A(strings.NewReader(a + "\n" + b + "\n" + b + "\n"))
	if err != nil || len(tab.MJD) != 2 {
		t.Fatalf("finals2000A, same row twice: %v (%d rows)", err, tabRows(tab))
	}
	_, err = ParseFinals2000A(strings.NewReader(a + "\n" + b + "\n\n" + b2 + "\n"))
	if err == nil || !strings.Contains(err.Error(), "line 4: MJD 59841 is also on line 2, with other values") {
		t.Errorf("finals2000A, one date with two values: %v", err)
	}
	c1, c2 := c04Line(2022, 9, 18, 59840, 0.29, 0.28, -0.009), c04Line(2022, 9, 19, 59841, 0.29, 0.28, -0.009)
	c2b := c04Line(2022, 9, 19, 59841, 0.29, 0.28, -0.008)
	tab, err = ParseC04(strings.NewReader(c04Header + c1 + "\n" + c2 + "\n" + c2 + "\n"))
	if err != nil || len(tab.MJD) != 2 {
		t.Fatalf("C04, same row twice: %v (%d rows)", err, tabRows(tab))
	}
	_, err = ParseC04(strings.NewReader(c04Header + c1 + "\n" + c2 + "\n" + c2b + "\n"))
	if err == nil || !strings.Contains(err.Error(), "MJD 59841 is also on line") || !strings.Contains(err.Error(), "with other values") {
		t.Errorf("C04, one date with two values: %v", err)
	}
}

func tabRows(t *EOPTable) int {
	if t == nil {
		return 0
	}
	return len(t.MJD)
}
