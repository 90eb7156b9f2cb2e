package input

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestEOPFileBOM: an EOP file that starts with a UTF-8 byte-order mark
// reads as the same file without it (an eop.json with one was parsed as
// finals2000A and refused).
func TestEOPFileBOM(t *testing.T) {
	cases := []struct{ name, text string }{
		{"eop.json", `{"times": [{"jd_utc": 2459845.0, "ut1_utc_s": -0.005722, "xp_arcsec": 0.289229, "yp_arcsec": 0.276966}]}`},
		{"eop2.json", "\n  " + `{"times": [{"jd_utc": 2459845.0, "ut1_utc_s": 0.1, "xp_arcsec": 0.2, "yp_arcsec": 0.3}]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			plain, bom := filepath.Join(dir, "plain"), filepath.Join(dir, "bom")
			if err := os.WriteFile(plain, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(bom, []byte("\ufeff"+c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			times := []float64{2459845.0}
			want, err := ReadEOPFile(plain, times)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ReadEOPFile(bom, times)
			if err != nil {
				t.Fatalf("with a byte-order mark: %v", err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("with a byte-order mark %+v, without %+v", got, want)
			}
		})
	}
}
