package casatable

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// writeTable writes vals to a new table dir, in pieces of up to 7 values.
func writeTable(t *testing.T, dir string, desc Desc, nrow int, vals []any) {
	t.Helper()
	w, err := Create(dir, desc, nrow)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vals {
		n := len(asJSON(v))
		for lo := 0; lo < n; lo += 7 {
			if err := put(w, i, v, lo, min(n, lo+7)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// boolsOrComplex returns n random values of type Bool or Complex.
func boolsOrComplex(rng *rand.Rand, t DataType, n int) any {
	if t == Bool {
		v := make([]bool, n)
		for j := range v {
			v[j] = rng.IntN(3) == 0
		}
		return v
	}
	v := make([]complex64, n)
	for j := range v {
		v[j] = complex(float32(rng.NormFloat64()), float32(rng.NormFloat64()))
	}
	return v
}

// TestTiledEqualsAipsIO writes the same random table twice, every column
// in StManAipsIO and then every non-String array column Tiled, and has
// python-casacore dump both: the dumps must be equal, and casacore's
// showtableinfo must list the tiled managers.
func TestTiledEqualsAipsIO(t *testing.T) {
	needCasacore(t)
	rng := sharedtest.RNG(t, 3)
	for trial := range 4 {
		nrow := rng.IntN(30)
		var plain, tiled Desc
		var vals []any
		ntiled := 0
		for i := range 8 {
			c, v := randomColumn(rng, i, nrow, trial%2 == 0)
			if i == 1 || i == 2 { // at least two array columns to tile
				c.Shape = []int{1 + rng.IntN(4), 1 + rng.IntN(70)}
				c.Type = []DataType{Bool, Complex}[i-1]
				v = boolsOrComplex(rng, c.Type, nrow*c.nelem())
			}
			plain.Columns = append(plain.Columns, c)
			c.Tiled = i > 0 && c.Shape != nil && c.Type != String
			if c.Tiled {
				ntiled++
			}
			tiled.Columns = append(tiled.Columns, c)
			vals = append(vals, v)
		}
		dirs := []string{filepath.Join(t.TempDir(), "plain.tab"), filepath.Join(t.TempDir(), "tiled.tab")}
		writeTable(t, dirs[0], plain, nrow, vals)
		writeTable(t, dirs[1], tiled, nrow, vals)
		if _, err := os.Stat(filepath.Join(dirs[1], tsmFile(ntiled))); err != nil {
			t.Fatalf("trial %d: the last tiled column's data file: %v", trial, err)
		}
		var dumps [2][]byte
		for k, dir := range dirs {
			out, err := exec.Command(python, "-c", dumpScript, dir).Output()
			if err != nil {
				t.Fatalf("trial %d: python-casacore on %s: %v", trial, dir, err)
			}
			dumps[k] = out
		}
		if !bytes.Equal(dumps[0], dumps[1]) {
			t.Errorf("trial %d: python-casacore reads the tiled table as %.300s…, the StManAipsIO one as %.300s…", trial, dumps[1], dumps[0])
		}
		if p, err := exec.LookPath("showtableinfo"); err == nil {
			out, err := exec.Command(p, "in="+dirs[1], "dm=true").CombinedOutput()
			if err != nil || strings.Count(string(out), "TiledColumnStMan") < ntiled {
				t.Errorf("trial %d: showtableinfo does not list %d TiledColumnStMan: %v\n%s", trial, ntiled, err, out)
			}
		}
	}
}
