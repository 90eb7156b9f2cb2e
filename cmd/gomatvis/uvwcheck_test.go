package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// uvwCheck is what testdata/uvw_from_antpos.py prints.
type uvwCheck struct {
	Rows     int     `json:"rows"`
	MaxDiff  float64 `json:"max_diff_m"`
	MaxUVW   float64 `json:"max_uvw_m"`
	Allclose bool    `json:"pyuvdata_allclose"`
}

// aberration bounds the gap between the check's geometric uvws (the ICRS
// direction's basis) and pyuvdata's apparent-position ones: the Earth's
// orbital speed over c is 0.99e-4 rad of the baseline; 1.5e-4 leaves room
// for the diurnal term and the frame angle.
const aberration = 1.5e-4

// TestUVFITSUVWsFromAntennaPositions is issue 38's "pyuvdata reads
// gomatvis's UVFITS with no warning about uvws" without pyuvdata: an
// independent astropy script (testdata/uvw_from_antpos.py) reads the
// CLI's UVFITS as pyuvdata 2.4.2 reads it (uvw = −UU·c, positions from
// the AN table's rotated ECEF, centre from the SU table) and recomputes
// every row's uvw from the antenna positions and the phase centre; the
// file must pass pyuvdata's check (np.allclose(expected, uvw, atol=1 m))
// and lie within aberration of the recomputation. The drift form
// (--uvfits-drift), which pyuvdata warned about by 8.1 m, must fail the
// same check: else it could not tell.
func TestUVFITSUVWsFromAntennaPositions(t *testing.T) {
	py := needAstropy(t)
	for _, c := range []struct {
		name, ref string
		flags     []string
		pass      bool
	}{
		{"zenith", "stokesI-gaussian", nil, true},
		{"zenith, polarized", "fullstokes-airy", []string{"--stokes-rotation", "pyradiosky"}, true},
		{"phase-center", "stokesI-gaussian", []string{"--phase-center", "150,-10"}, true},
		{"drift", "stokesI-gaussian", []string{"--uvfits-drift"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			obs := filepath.Join(sharedtest.Dir(t), "reference", "pyuvsim-"+c.ref, "obsparam.yaml")
			out := filepath.Join(t.TempDir(), "run.uvfits")
			args := append([]string{"simulate", obs, "-o", out, "-q", "--backend", "cpu"}, c.flags...)
			if code, _, stderr := runCLI(t, args...); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			b, err := exec.Command(py, filepath.Join("testdata", "uvw_from_antpos.py"), out).Output()
			if err != nil {
				t.Fatalf("uvw_from_antpos.py: %v", err)
			}
			var r uvwCheck
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatalf("uvw_from_antpos.py printed %q: %v", b, err)
			}
			t.Logf("%d rows: max|uvw − uvw(antenna positions)| = %.4g m (pyuvdata's tolerance 1 m; longest uvw %.4g m)", r.Rows, r.MaxDiff, r.MaxUVW)
			switch {
			case r.Rows == 0:
				t.Fatal("no rows checked")
			case c.pass && !r.Allclose:
				t.Errorf("pyuvdata would warn: the uvws differ from the antenna positions' by %.3g m", r.MaxDiff)
			case c.pass && r.MaxDiff > aberration*r.MaxUVW:
				t.Errorf("uvws %.3g m off the antenna positions', over the aberration bound %.3g m", r.MaxDiff, aberration*r.MaxUVW)
			case !c.pass && (r.Allclose || r.MaxDiff < 1):
				t.Errorf("the drift form passes pyuvdata's uvw check (%.3g m): the check cannot tell", r.MaxDiff)
			}
		})
	}
}
