package simspec

import (
	"strings"
	"testing"
)

// TestAbsurdInput (issue 41 item 4): a spec whose site lies far from the
// Earth's surface (outside pyuvdata's telescope_location range), whose
// dish is 1e300 m or whose sigma is in degrees, or whose frequencies or
// times repeat, is refused naming the field, the value and the range.
func TestAbsurdInput(t *testing.T) {
	tele := func(k string, v any) func(m map[string]any) {
		return func(m map[string]any) { m["telescope"].(map[string]any)[k] = v }
	}
	set := func(k string, v any) func(m map[string]any) { return func(m map[string]any) { m[k] = v } }
	beam := func(b map[string]any) func(m map[string]any) { return set("beams", []any{b}) }
	for _, tc := range []struct {
		name  string
		edit  func(m map[string]any)
		frags []string
	}{
		{"height 1e30", tele("height_m", 1e30), []string{"telescope.height_m = 1e+30", "outside pyuvdata's acceptable"}},
		{"height -7e6", tele("height_m", -7e6), []string{"telescope.height_m = -7000000", "must be within ["}},
		{"height 50 km", tele("height_m", 5e4), []string{"telescope.height_m = 50000", "outside"}},
		{"airy 1e300", beam(map[string]any{"type": "airy", "diameter_m": 1e300}), []string{"beams[0].diameter_m = 1e+300", "at most 10000 m"}},
		{"gaussian diameter 2e4", beam(map[string]any{"type": "gaussian", "diameter_m": 2e4}), []string{"beams[0].diameter_m = 20000", "at most 10000 m"}},
		{"sigma in degrees", beam(map[string]any{"type": "gaussian", "sigma_rad": 10}), []string{"beams[0].sigma_rad = 10", "radians, not degrees"}},
		{"repeated channel", set("freqs_hz", []any{1e8, 1.1e8, 1e8}), []string{"freqs_hz[2] = 100000000: repeats freqs_hz[0]"}},
		{"repeated time", set("times_jd", []any{2459845.5, 2459845.5}), []string{"times_jd[1] = 2459845.5: repeats times_jd[0]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(strings.NewReader(mutate(t, tc.edit)), ".")
			if err == nil {
				t.Fatal("accepted")
			}
			for _, f := range tc.frags {
				if !strings.Contains(err.Error(), f) {
					t.Errorf("error %q lacks %q", err, f)
				}
			}
		})
	}
}

// TestSensibleInputStillValid: heights from the Dead Sea to a balloon,
// dishes up to 10 km and unsorted but distinct channels stay valid.
func TestSensibleInputStillValid(t *testing.T) {
	for _, edit := range []func(m map[string]any){
		func(m map[string]any) { m["telescope"].(map[string]any)["height_m"] = -430.0 },
		func(m map[string]any) { m["telescope"].(map[string]any)["height_m"] = 11000.0 },
		func(m map[string]any) { m["beams"] = []any{map[string]any{"type": "airy", "diameter_m": 1e4}} },
		func(m map[string]any) { m["freqs_hz"] = []any{1.1e8, 1e8} },
	} {
		if _, err := Decode(strings.NewReader(mutate(t, edit)), "."); err != nil {
			t.Error(err)
		}
	}
}
