package casatable

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// TestReadRoundTrip: Read gives back the description, keywords and every
// value of random tables (about half their array columns Tiled) (the pure-Go twin of TestRandomRoundTrip's
// python-casacore reading, run without casacore).
func TestReadRoundTrip(t *testing.T) {
	rng := sharedtest.RNG(t, 2)
	for trial := range 20 {
		nrow := rng.IntN(30)
		desc := Desc{Keywords: Record{}.Set("MS_VERSION", 2.0).Set("ANTENNA", SubTable("ANTENNA")).
			Set("M", Record{}.Set("type", "epoch").Set("codes", []uint32{0, 64}).Set("u", []string{"s", ""}))}
		var vals []any
		for i := range 1 + rng.IntN(8) {
			c, v := randomColumn(rng, i, nrow, trial%2 == 0)
			c.Keywords = Record{}.Set("QuantumUnits", []string{"m"}).Set("N", int32(i))
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
			if err := put(w, i, v, 0, len(asJSON(v))); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		got, err := Read(dir)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if got.Rows != nrow || !reflect.DeepEqual(got.Desc.Keywords, desc.Keywords) {
			t.Fatalf("trial %d: %d rows, keywords %+v; wrote %d, %+v", trial, got.Rows, got.Desc.Keywords, nrow, desc.Keywords)
		}
		for i, c := range desc.Columns {
			g := got.Desc.Columns[i]
			if g.Name != c.Name || g.Type != c.Type || !reflect.DeepEqual(g.Shape, c.Shape) || !reflect.DeepEqual(g.Keywords, c.Keywords) {
				t.Errorf("trial %d: column %d read as %+v, wrote %+v", trial, i, g, c)
			}
			if !reflect.DeepEqual(got.Values[i], vals[i]) {
				t.Errorf("trial %d: column %s's values differ", trial, c.Name)
			}
		}
	}
}

// FuzzRead: damaged table.dat and table.f0 give an error or a table,
// never a panic or a runaway allocation.
func FuzzRead(f *testing.F) {
	dir := filepath.Join(f.TempDir(), "seed")
	d := sampleDesc()
	w, err := Create(dir, d, 3)
	if err != nil {
		f.Fatal(err)
	}
	for i, c := range d.Columns {
		n := 3 * c.nelem()
		switch c.Type {
		case Bool:
			err = w.PutBools(i, make([]bool, n))
		case Int:
			err = w.PutInts(i, make([]int32, n))
		case Float:
			err = w.PutFloats(i, make([]float32, n))
		case Double:
			err = w.PutDoubles(i, make([]float64, n))
		case Complex:
			err = w.PutComplex(i, make([]complex64, n))
		case String:
			err = w.PutStrings(i, make([]string, n))
		}
		if err != nil {
			f.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		f.Fatal(err)
	}
	dat, _ := os.ReadFile(filepath.Join(dir, "table.dat"))
	f0, _ := os.ReadFile(filepath.Join(dir, "table.f0"))
	f.Add(dat, f0)
	f.Add(dat[:len(dat)/2], f0[:len(f0)/3])
	f.Fuzz(func(t *testing.T, dat, f0 []byte) {
		tab, err := parse(dat, f0) // Read's core, without the files
		if err == nil && (len(dat) > maxRead || len(f0) > maxRead) {
			t.Fatal("read over 4 GiB")
		}
		if err == nil && len(tab.Values) != len(tab.Desc.Columns) {
			t.Fatalf("%d columns described, %d read", len(tab.Desc.Columns), len(tab.Values))
		}
	})
}
