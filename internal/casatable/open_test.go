package casatable

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// writeRandom writes a table of random columns (every type, scalar and
// array) and returns its directory.
func writeRandom(t *testing.T, rng *rand.Rand, strings bool) string {
	t.Helper()
	nrow := rng.IntN(40)
	var desc Desc
	var vals []any
	for i := range 1 + rng.IntN(8) {
		c, v := randomColumn(rng, i, nrow, strings)
		// About half the array columns in their own TiledColumnStMan
		// (the first stays in StManAipsIO: a table needs one there).
		c.Tiled = i > 0 && c.Shape != nil && c.Type != String && rng.IntN(2) == 1
		desc.Columns = append(desc.Columns, c)
		vals = append(vals, v)
	}
	dir := filepath.Join(t.TempDir(), "r.tab")
	w, err := Create(dir, desc, nrow)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vals {
		if err := put(w, i, v, 0, reflect.ValueOf(v).Len()); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestCellsEqualRead: Open's Cells of every column, whole and over random
// row ranges, equals the slice of Read's values for those rows, on random
// tables with and without String columns, about half their array columns
// tiled.
func TestCellsEqualRead(t *testing.T) {
	rng := sharedtest.RNG(t, 1)
	for trial := range 40 {
		dir := writeRandom(t, rng, trial%2 == 0)
		want, err := Read(dir)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if c.Rows != want.Rows || !reflect.DeepEqual(c.Desc, want.Desc) {
			t.Fatalf("trial %d: Open gives %d rows, %+v; Read %d, %+v", trial, c.Rows, c.Desc, want.Rows, want.Desc)
		}
		for i, col := range want.Desc.Columns {
			ranges := [][2]int{{0, want.Rows}}
			for range 5 {
				lo := rng.IntN(want.Rows + 1)
				ranges = append(ranges, [2]int{lo, lo + rng.IntN(want.Rows-lo+1)})
			}
			for _, r := range ranges {
				got, err := c.Cells(col.Name, r[0], r[1])
				if err != nil {
					t.Fatalf("trial %d: column %s rows %v: %v", trial, col.Name, r, err)
				}
				all := reflect.ValueOf(want.Values[i])
				n := col.nelem()
				if col.Shape == nil {
					n = 1
				}
				exp := all.Slice(r[0]*n, r[1]*n).Interface()
				if !reflect.DeepEqual(got, exp) {
					t.Errorf("trial %d: column %s (type %d, shape %v) rows %v: %v, Read %v", trial, col.Name, col.Type, col.Shape, r, got, exp)
				}
			}
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCellsErrors: an unknown column and rows out of range are refused by
// name.
func TestCellsErrors(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t")
	w, err := Create(dir, Desc{Columns: []Column{{Name: "A", Type: Int}}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.PutInts(0, []int32{1, 2}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, tc := range []struct {
		name   string
		lo, hi int
		want   string
	}{
		{"B", 0, 1, "no column B"},
		{"A", 1, 3, "column A: rows 1 to 3 of 2"},
		{"A", -1, 1, "column A: rows -1 to 1 of 2"},
		{"A", 2, 1, "column A: rows 2 to 1 of 2"},
	} {
		if _, err := c.Cells(tc.name, tc.lo, tc.hi); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Cells(%s, %d, %d): %v, want %q", tc.name, tc.lo, tc.hi, err, tc.want)
		}
	}
}

// TestOpenDamaged: a table.f0 cut short or with bytes changed is refused
// with an error, never a panic, wherever Read refuses it; where Read
// takes it, Open's Cells give Read's values.
func TestOpenDamaged(t *testing.T) {
	rng := sharedtest.RNG(t, 1)
	for trial := range 60 {
		dir := writeRandom(t, rng, trial%2 == 0)
		f0 := filepath.Join(dir, "table.f0")
		b, err := os.ReadFile(f0)
		if err != nil {
			t.Fatal(err)
		}
		if trial%3 == 0 {
			b = b[:rng.IntN(len(b))]
		} else {
			for range 1 + rng.IntN(3) {
				b[rng.IntN(len(b))] ^= byte(1 + rng.IntN(255))
			}
		}
		if err := os.WriteFile(f0, b, 0o666); err != nil {
			t.Fatal(err)
		}
		want, rerr := Read(dir)
		c, oerr := Open(dir)
		if oerr != nil {
			if rerr == nil {
				t.Fatalf("trial %d: Open refused what Read took: %v", trial, oerr)
			}
			continue
		}
		// Open checks the objects, not each string's length: a damaged
		// string column is refused when its cells are decoded.
		var cerr error
		for i, col := range c.Desc.Columns {
			got, err := c.Cells(col.Name, 0, c.Rows)
			if err != nil {
				cerr = err
				continue
			}
			// %v, not DeepEqual: a changed byte may make a NaN.
			if rerr == nil && fmt.Sprint(got) != fmt.Sprint(want.Values[i]) {
				t.Errorf("trial %d: column %s: %v, Read %v", trial, col.Name, got, want.Values[i])
			}
		}
		if (rerr == nil) != (cerr == nil) {
			t.Errorf("trial %d: Read: %v; Open and Cells: %v", trial, rerr, cerr)
		}
		c.Close()
	}
}

// TestCellsAfterTruncation: a table.f0 cut short after Open gives Cells an
// error naming the file, not a panic or zeros.
func TestCellsAfterTruncation(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t")
	w, err := Create(dir, Desc{Columns: []Column{{Name: "A", Type: Double, Shape: []int{4}}}}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.PutDoubles(0, make([]float64, 12)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := os.Truncate(filepath.Join(dir, "table.f0"), 40); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Cells("A", 0, 3); err == nil || !strings.Contains(err.Error(), "table.f0") || !strings.Contains(err.Error(), "column A") {
		t.Errorf("Cells after truncation: %v, want an error naming table.f0 and column A", err)
	}
}
