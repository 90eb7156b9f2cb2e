package obsparam

import "testing"

// TestLayoutOffsetBothSigns: an antenna offset beyond ±1e7 m (the Earth's
// diameter is 1.3e7 m) is refused west, south and down as well as east,
// north and up; 9.9e6 m either way is read (absurd but on the Earth's
// scale).
func TestLayoutOffsetBothSigns(t *testing.T) {
	row := func(e, n, u string) files {
		return files{layout: "Name Number BeamID E N U\nA0 0 0 0 0 0\nA1 1 1 " + e + " " + n + " " + u + "\nA2 2 0 0 14.6 0\n"}
	}
	for _, tc := range []struct {
		name string
		f    files
		frag string
	}{
		{"west", row("-1e30", "0", "0"), "-1e30"},
		{"south", row("0", "-2e7", "0"), "-2e7"},
		{"down", row("0", "0", "-1.5e7"), "-1.5e7"},
		{"up", row("0", "0", "1.5e7"), "1.5e7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readCase(t, tc.f)
			wantErr(t, err, "layout.csv", tc.frag, "within ±1e+07 m")
		})
	}
	for _, v := range []string{"-9.9e6", "9.9e6"} {
		if _, err := readCase(t, row(v, "0", "0")); err != nil {
			t.Errorf("offset %s m: %v", v, err)
		}
	}
}
