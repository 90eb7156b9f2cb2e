package astro

import (
	"strings"
	"testing"
)

// TestFinalsPublishedColumns: a line cut inside any value field is
// refused naming the field, for the columns as IERS publishes them
// (readme.finals2000A: PM-x A 19-27 F9.6, PM-y A 38-46 F9.6, UT1-UTC A
// 59-68 F10.7, PM-x B 135-144 F10.6, PM-y B 145-154 F10.6, UT1-UTC B
// 155-165 F11.7), typed here from the readme rather than taken from the
// parser's own table, so a wrong column there is caught.
func TestFinalsPublishedColumns(t *testing.T) {
	published := []struct {
		a, b int
		what string
	}{
		{19, 27, "Bulletin A PM-x"}, {38, 46, "Bulletin A PM-y"}, {59, 68, "Bulletin A UT1-UTC"},
		{135, 144, "Bulletin B PM-x"}, {145, 154, "Bulletin B PM-y"}, {155, 165, "Bulletin B UT1-UTC"},
	}
	good := finalsLine(59840, "I", "0.289000", "0.276000", "-0.0057000", "", "", "")
	next := finalsLine(59842, "I", "0.29", "0.27", "-0.0058", "", "", "")
	// Every field filled to its first column, so that any cut inside it
	// leaves a non-blank part.
	full := finalsLine(59841, "I", "-0.290000", "-0.275000", "-0.0054471", "-0.290200", "-0.275200", "-0.00545710")
	for _, f := range published {
		for cut := f.a; cut < f.b; cut++ {
			if strings.TrimSpace(full[f.a-1:cut]) == "" {
				continue // cut in the field's leading blanks: blank, not cut
			}
			_, err := ParseFinals2000A(strings.NewReader(good + "\n" + full[:cut] + "\n" + next + "\n"))
			if err == nil || !strings.Contains(err.Error(), "line 2: "+f.what) || !strings.Contains(err.Error(), "cut short") {
				t.Errorf("%s (columns %d-%d) cut after column %d: %v, want it named cut short", f.what, f.a, f.b, cut, err)
			}
		}
		if _, err := ParseFinals2000A(strings.NewReader(good + "\n" + full[:f.b] + "\n" + next + "\n")); err != nil {
			t.Errorf("a line ending at column %d, the end of %s: %v", f.b, f.what, err)
		}
	}
}

// TestRepeatedEOPDateEachValue: a date repeated with any one of its three
// values changed is refused: each of PM-x, PM-y and UT1-UTC is compared.
func TestRepeatedEOPDateEachValue(t *testing.T) {
	a := finalsLine(59840, "I", "0.289000", "0.276000", "-0.0057000", "", "", "")
	b := finalsLine(59841, "I", "0.290000", "0.275000", "-0.0058000", "", "", "")
	for name, b2 := range map[string]string{
		"PM-x":    finalsLine(59841, "I", "0.290001", "0.275000", "-0.0058000", "", "", ""),
		"PM-y":    finalsLine(59841, "I", "0.290000", "0.275001", "-0.0058000", "", "", ""),
		"UT1-UTC": finalsLine(59841, "I", "0.290000", "0.275000", "-0.0058001", "", "", ""),
	} {
		_, err := ParseFinals2000A(strings.NewReader(a + "\n" + b + "\n" + b2 + "\n"))
		if err == nil || !strings.Contains(err.Error(), "line 3: MJD 59841 is also on line 2, with other values") {
			t.Errorf("%s differs on a repeated date: %v", name, err)
		}
	}
}
