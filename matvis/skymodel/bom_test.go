package skymodel

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestCatalogBOM: a text catalog, a four-Stokes TSV or a VOTable that
// starts with a UTF-8 byte-order mark reads as the same file without it,
// as Python's utf-8-sig reads it (the TSV's first line was taken for a
// header it is not).
func TestCatalogBOM(t *testing.T) {
	ref := filepath.Join(refDir, "pyuvsim-fullstokes-airy")
	cases := []struct{ path, filetype string }{
		{filepath.Join(ref, "sky.txt"), "text"},
		{filepath.Join(ref, "sky_stokes.tsv"), "stokes_tsv"},
		{"testdata/gleam_small.vot", "gleam"},
	}
	for _, c := range cases {
		t.Run(c.filetype, func(t *testing.T) {
			b, err := os.ReadFile(c.path)
			if err != nil {
				t.Fatal(err)
			}
			bom := filepath.Join(t.TempDir(), "bom"+filepath.Ext(c.path))
			if err := os.WriteFile(bom, append([]byte("\ufeff"), b...), 0o600); err != nil {
				t.Fatal(err)
			}
			want, err := ReadFile(c.path, c.filetype)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ReadFile(bom, c.filetype)
			if err != nil {
				t.Fatalf("with a byte-order mark: %v", err)
			}
			// Printed, so that NaN (a GLEAM gap) equals NaN; %v of a
			// float64 is its shortest exact form.
			if fmt.Sprint(got.Components()) != fmt.Sprint(want.Components()) {
				t.Errorf("with a byte-order mark the components differ")
			}
		})
	}
}
