package casatable

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCreateErrors: descriptions casacore would reject, or that this
// package cannot store, are refused by name; nothing is created.
func TestCreateErrors(t *testing.T) {
	cases := []struct {
		name, want string
		cols       []Column
		nrow       int
	}{
		{"empty name", `column name ""`, []Column{{Type: Int}}, 1},
		{"twice", "column A is described twice", []Column{{Name: "A", Type: Int}, {Name: "A", Type: Bool}}, 1},
		{"type", "column A has data type 3", []Column{{Name: "A", Type: 3}}, 1},
		{"no axes", "column A: an array column needs at least one axis", []Column{{Name: "A", Type: Int, Shape: []int{}}}, 1},
		{"zero axis", "column A has cell shape [2 0]", []Column{{Name: "A", Type: Int, Shape: []int{2, 0}}}, 1},
		{"rows", "-1 rows", []Column{{Name: "A", Type: Int}}, -1},
		{"4 GiB", "over the 4 GiB a StManAipsIO table holds", []Column{{Name: "A", Type: Complex, Shape: []int{1024, 1024}}}, 1024},
		{"tiled scalar", "column A: only a non-String array column can be tiled", []Column{{Name: "A", Type: Int, Tiled: true}}, 1},
		{"tiled strings", "column A: only a non-String array column can be tiled", []Column{{Name: "A", Type: String, Shape: []int{2}, Tiled: true}}, 1},
		{"all tiled", "every column is tiled", []Column{{Name: "A", Type: Int, Shape: []int{2}, Tiled: true}}, 1},
		{"tiled PiB", "column B: 1048576 rows of 8589934592 bytes are over", []Column{{Name: "A", Type: Int}, {Name: "B", Type: Complex, Shape: []int{1 << 30}, Tiled: true}}, 1 << 20},
		{"keyword", `keyword "K" has a value of type int`, nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "t")
			d := Desc{Columns: c.cols}
			if c.name == "keyword" {
				d.Keywords = Record{}.Set("K", 3) // an int, not an int32
			}
			_, err := Create(dir, d, c.nrow)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want %q", err, c.want)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("created %s", dir)
			}
		})
	}
}

// TestPutErrors: values of the wrong type, more values than rows, and a
// Close with values missing are refused by name.
func TestPutErrors(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t")
	w, err := Create(dir, Desc{Columns: []Column{{Name: "A", Type: Int}, {Name: "B", Type: Double, Shape: []int{2}}}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	check := func(err error, want string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err %v, want %q", err, want)
		}
	}
	check(w.PutDoubles(0, []float64{1}), "column A holds type 5, not 8")
	check(w.PutInts(2, []int32{1}), "column 2 of 2")
	check(w.PutInts(0, []int32{1, 2, 3}), "column A: 3 more values after 0 exceed its 2 rows × 1")
	if err := w.PutInts(0, []int32{1, 2}); err != nil {
		t.Fatal(err)
	}
	if err := w.PutDoubles(1, []float64{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	check(w.Close(), "column B got 3 values; 2 rows × 2 need 4")
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("a failed Close left %s", dir)
	}
	check(w.Close(), "the writer is closed")
}
