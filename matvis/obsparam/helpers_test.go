package obsparam

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fixed files most tests run against: three antennas, two analytic beams.
const (
	testLayout = `Name Number BeamID E N U
A0 0 0 0.0 0.0 0.0
A1 1 1 14.6 0.0 0.5
A2 2 0 0.0 14.6 -0.5
`
	testTelescope = `beam_paths:
  0: !AnalyticBeam
    class: AiryBeam
    diameter: 14.0
  1:
    type: gaussian
    sigma: 0.2
telescope_location: (-30.72152612068957, 21.428303826863015, 1051.69)
telescope_name: TEST
`
	testFreq = `freq:
  Nfreqs: 3
  channel_width: 25000000.0
  start_freq: 100000000.0
`
	testTime = `time:
  Ntimes: 3
  integration_time: 600.0
  start_time: 2459845.0
`
	testRest = `sources:
  catalog: sky.txt
telescope:
  array_layout: layout.csv
  telescope_config_name: telescope_config.yaml
ordering:
  conjugation_convention: ant2<ant1
`
)

// files is a test case's directory content; empty values take the defaults
// above, "-" leaves the file out.
type files struct {
	obs, tel, layout string
}

// writeCase writes obsparam.yaml, telescope_config.yaml, layout.csv and an
// empty sky.txt to a fresh directory and returns the obsparam path.
func writeCase(t testing.TB, f files) string {
	t.Helper()
	return writeDir(t, t.TempDir(), f)
}

// writeDir is writeCase into an existing directory (files are replaced).
func writeDir(t testing.TB, dir string, f files) string {
	t.Helper()
	if f.obs == "" {
		f.obs = testFreq + testTime + testRest
	}
	if f.tel == "" {
		f.tel = testTelescope
	}
	if f.layout == "" {
		f.layout = testLayout
	}
	for name, body := range map[string]string{"obsparam.yaml": f.obs, "telescope_config.yaml": f.tel, "layout.csv": f.layout, "sky.txt": "x"} {
		if body == "-" {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "obsparam.yaml")
}

// obsWith builds an obsparam from the default sections, replacing the freq
// and/or time sections when the arguments are not empty, plus extra text.
func obsWith(freq, time, extra string) string {
	if freq == "" {
		freq = testFreq
	}
	if time == "" {
		time = testTime
	}
	return freq + time + testRest + extra
}

// readCase writes the files and reads them.
func readCase(t testing.TB, f files) (*Config, error) {
	t.Helper()
	return Read(writeCase(t, f))
}

// mustRead reads and fails the test on error.
func mustRead(t *testing.T, f files) *Config {
	t.Helper()
	c, err := readCase(t, f)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return c
}

// wantErr checks that err is an *Error containing every fragment.
func wantErr(t *testing.T, err error, frags ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one containing %q", frags)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Errorf("error is %T, not *obsparam.Error: %v", err, err)
	}
	for _, f := range frags {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error %q lacks %q", err, f)
		}
	}
}

// hasWarning reports whether any warning contains every fragment.
func hasWarning(c *Config, frags ...string) bool {
	for _, w := range c.Warnings {
		ok := true
		for _, f := range frags {
			ok = ok && strings.Contains(w, f)
		}
		if ok {
			return true
		}
	}
	return false
}

// closeAll compares slices elementwise with an absolute tolerance.
func closeAll(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d values %v, want %d %v", what, len(got), got, len(want), want)
	}
	for i := range got {
		if !(math.Abs(got[i]-want[i]) <= tol) {
			t.Errorf("%s[%d] = %.17g, want %.17g (tol %g)", what, i, got[i], want[i], tol)
		}
	}
}
