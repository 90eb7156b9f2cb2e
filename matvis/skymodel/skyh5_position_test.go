package skymodel

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSkyH5PositionNamesItsDataset: a bad right ascension is blamed on
// skycoord/ra (a NaN there was reported as dec), a bad declination on
// skycoord/dec, each with the component and value. The files are
// good_point.skyh5 with one value replaced by h5py.
func TestSkyH5PositionNamesItsDataset(t *testing.T) {
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import h5py").Run(); err != nil {
		t.Skipf("SKIP: %s with h5py is not installed (apt-get install python3-h5py): %v", py, err)
	}
	good, err := os.ReadFile("testdata/skyh5/good_point.skyh5")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, dataset, value, field string
		want                        []string
	}{
		{"NaN ra", "ra", "float('nan')", "/Header/skycoord/ra", []string{"component 1", "NaN", "not finite"}},
		{"inf ra", "ra", "float('inf')", "/Header/skycoord/ra", []string{"component 1", "+Inf"}},
		{"NaN dec", "dec", "float('nan')", "/Header/skycoord/dec", []string{"component 1", "NaN", "latitude"}},
		{"dec 100°", "dec", "100.0", "/Header/skycoord/dec", []string{"component 1", "(100°)", "from −90° to 90°"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "sky.skyh5")
			if err := os.WriteFile(p, good, 0o600); err != nil {
				t.Fatal(err)
			}
			script := "import h5py, sys\nwith h5py.File(sys.argv[1], 'r+') as f:\n    d = f['Header/skycoord/" + c.dataset + "']\n    v = d[...]\n    v[1] = " + c.value + "\n    d[...] = v\n"
			if out, err := exec.Command(py, "-c", script, p).CombinedOutput(); err != nil {
				t.Fatalf("h5py: %v\n%s", err, out)
			}
			_, err := ReadSkyH5File(p)
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Field != c.field {
				t.Fatalf("error %v: want field %s", err, c.field)
			}
			for _, w := range append(c.want, p) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v\nlacks %q", err, w)
				}
			}
		})
	}
}
