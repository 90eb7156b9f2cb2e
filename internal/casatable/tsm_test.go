package casatable

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
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

// FuzzTSMHeader: a damaged tiled header gives an error or passes every
// check, never a panic; the undamaged one reads without error.
func FuzzTSMHeader(f *testing.F) {
	c := Column{Name: "DATA", Type: Complex, Shape: []int{4, 64}, Tiled: true}
	good := tsmHeader(c, 2, 10)
	d := &dec{b: good}
	if d.tsmHeader(c, 2, 10); d.err != nil {
		f.Fatalf("the written header: %v", d.err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Fuzz(func(t *testing.T, hdr []byte) {
		d := &dec{b: hdr}
		d.tsmHeader(c, 2, 10)
	})
}

// TestReadTiledErrors: Read names the file and what is wrong when a tiled
// column's files are damaged.
func TestReadTiledErrors(t *testing.T) {
	desc := Desc{Columns: []Column{{Name: "A", Type: Int}, {Name: "DATA", Type: Complex, Shape: []int{2, 3}, Tiled: true}}}
	vals := []any{[]int32{1, 2}, make([]complex64, 12)}
	for _, tc := range []struct {
		name, file string
		change     func([]byte) []byte
		want       string
	}{
		{"short data", "table.f1_TSM0", func(b []byte) []byte { return b[:len(b)-1] }, "table.f1_TSM0 has 95 bytes; 2 rows of column DATA need 96"},
		{"long data", "table.f1_TSM0", func(b []byte) []byte { return append(b, 0) }, "table.f1_TSM0"},
		{"rows", "table.f1", func(b []byte) []byte {
			return bytes.Replace(b, []byte{0, 0, 0, 1, 0, 0, 0, 2}, []byte{0, 0, 0, 1, 0, 0, 0, 3}, 1)
		}, "table.f1: at byte"},
		{"header cut", "table.f1", func(b []byte) []byte { return b[:40] }, "table.f1: at byte"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "t.tab")
			writeTable(t, dir, desc, 2, vals)
			if _, err := Read(dir); err != nil {
				t.Fatalf("the undamaged table: %v", err)
			}
			p := filepath.Join(dir, tc.file)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, tc.change(b), 0o666); err != nil {
				t.Fatal(err)
			}
			_, err = Read(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Read: %v; want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestTiledPast4GiB writes a table whose tiled DATA file is 4.3 GB
// (past StManAipsIO's 4 GiB and past the 2 GiB where casacore's TSMFile
// length goes 64-bit) a row block at a time through one reused buffer,
// and has python-casacore read its first and last rows. It needs ~4.3 GB
// of disk and a minute, so -short skips it.
func TestTiledPast4GiB(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 4.3 GB to disk (about a minute); run without -short")
	}
	needCasacore(t)
	const nchan, nrow, block = 1024, 530_000, 1000 // 8 KiB a row
	var fs syscall.Statfs_t
	dir := filepath.Join(t.TempDir(), "big.tab")
	if err := syscall.Statfs(filepath.Dir(dir), &fs); err != nil || fs.Bavail*uint64(fs.Bsize) < 6<<30 {
		t.Skipf("needs 6 GB free beside %s (%v)", dir, err)
	}
	desc := Desc{Columns: []Column{{Name: "ROW", Type: Int}, {Name: "DATA", Type: Complex, Shape: []int{1, nchan}, Tiled: true}}}
	w, err := Create(dir, desc, nrow)
	if err != nil {
		t.Fatal(err)
	}
	// Row r, channel c holds r + i·c: each value says where it is.
	buf := make([]complex64, block*nchan)
	rows := make([]int32, block)
	for lo := 0; lo < nrow; lo += block {
		for r := range block {
			rows[r] = int32(lo + r)
			for c := range nchan {
				buf[r*nchan+c] = complex(float32(lo+r), float32(c))
			}
		}
		if err := w.PutInts(0, rows); err != nil {
			t.Fatal(err)
		}
		if err := w.PutComplex(1, buf); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, tsmFile(1)))
	if err != nil || fi.Size() != nrow*nchan*8 || fi.Size() <= 1<<32 {
		t.Fatalf("DATA's file: %v, %v; want %d bytes, over 4 GiB", fi, err, nrow*nchan*8)
	}
	script := `import sys, casacore.tables as pt
t = pt.table(sys.argv[1], ack=False)
for r in (0, t.nrows() - 1):
    d = t.getcell('DATA', r)
    print(t.nrows(), t.getcell('ROW', r), d.shape, d[0, 0], d[-1, 0])`
	out, err := exec.Command(python, "-c", script, dir).CombinedOutput()
	want := fmt.Sprintf("%d 0 (1024, 1) 0j 1023j\n%d %d (1024, 1) (%d+0j) (%d+1023j)\n", nrow, nrow, nrow-1, nrow-1, nrow-1)
	if err != nil || string(out) != want {
		t.Errorf("python-casacore read %q (%v), want %q", out, err, want)
	}
}
