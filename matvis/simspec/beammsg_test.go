package simspec

import (
	"strings"
	"testing"
)

// TestBeamMessages pins the whole error of each analytic beam's shape and
// Jones checks, which beam.AnalyticTypes now drives: the texts are those
// of the per-type switch they replace (commit 3efd4ff), so that a user
// sees the same message.
func TestBeamMessages(t *testing.T) {
	for _, c := range []struct {
		name string
		beam map[string]any
		want string
	}{
		{"gaussian without shape", map[string]any{"type": "gaussian"},
			"simspec: 1 invalid field(s):\n  beams[0] = {\"type\":\"gaussian\"}: a gaussian beam needs exactly one of sigma_rad and diameter_m"},
		{"gaussian with both", map[string]any{"type": "gaussian", "sigma_rad": 1, "diameter_m": 14},
			"simspec: 1 invalid field(s):\n  beams[0] = {\"type\":\"gaussian\",\"sigma_rad\":1,\"diameter_m\":14}: a gaussian beam needs exactly one of sigma_rad and diameter_m"},
		{"gaussian negative sigma", map[string]any{"type": "gaussian", "sigma_rad": -1},
			"simspec: 1 invalid field(s):\n  beams[0].sigma_rad = -1: must be positive"},
		{"gaussian negative diameter", map[string]any{"type": "gaussian", "diameter_m": -2},
			"simspec: 1 invalid field(s):\n  beams[0].diameter_m = -2: must be positive"},
		{"airy without diameter", map[string]any{"type": "airy", "sigma_rad": 1},
			"simspec: 1 invalid field(s):\n  beams[0].diameter_m = 0: an airy beam needs a positive diameter_m"},
		{"airy negative diameter", map[string]any{"type": "airy", "diameter_m": -3},
			"simspec: 1 invalid field(s):\n  beams[0].diameter_m = -3: must be positive"},
		{"diagonal short dipole", map[string]any{"type": "short_dipole", "jones": "diagonal"},
			"simspec: 1 invalid field(s):\n  beams[0].jones = \"diagonal\": a diagonal Jones matrix applies to uniform, gaussian and airy beams only, not short_dipole"},
		{"diagonal beamfits", map[string]any{"type": "beamfits", "path": "x.fits", "jones": "diagonal"},
			"simspec: 1 invalid field(s):\n  beams[0].jones = \"diagonal\": a diagonal Jones matrix applies to uniform, gaussian and airy beams only, not beamfits"},
		{"unknown type", map[string]any{"type": "horn"},
			"simspec: 1 invalid field(s):\n  beams[0].type = \"horn\": unknown beam type; want one of uniform, gaussian, airy, short_dipole, beamfits"},
	} {
		t.Run(c.name, func(t *testing.T) {
			js := mutate(t, func(m map[string]any) { m["beams"] = []any{c.beam} })
			_, err := Decode(strings.NewReader(js), ".")
			if err == nil {
				t.Fatal("accepted")
			}
			if err.Error() != c.want {
				t.Errorf("error\n %q\nwant\n %q", err, c.want)
			}
		})
	}
}
