package imaging

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fitsCards is a header of the given cards (already formatted values),
// padded to a 2880-byte block, then data bytes of zeros.
func fitsCards(cards [][2]string, data int) []byte {
	var b strings.Builder
	for _, c := range cards {
		fmt.Fprintf(&b, "%-8s= %-70s", c[0], c[1])
	}
	fmt.Fprintf(&b, "%-80s", "END")
	for b.Len()%2880 != 0 {
		b.WriteByte(' ')
	}
	return append([]byte(b.String()), make([]byte, data)...)
}

// TestFromUVFITSBadInput: files that are not phased random-groups
// UVFITS are refused with the file, the keyword and its value named.
func TestFromUVFITSBadInput(t *testing.T) {
	good := [][2]string{{"SIMPLE", "T"}, {"BITPIX", "-32"}, {"NAXIS", "7"}, {"NAXIS1", "0"}, {"NAXIS2", "3"}, {"NAXIS3", "1"},
		{"NAXIS4", "2"}, {"NAXIS5", "1"}, {"NAXIS6", "1"}, {"NAXIS7", "1"}, {"GROUPS", "T"}, {"PCOUNT", "4"}, {"GCOUNT", "5"},
		{"PTYPE1", "'UU      '"}, {"PTYPE2", "'VV      '"}, {"PTYPE3", "'WW      '"}, {"PTYPE4", "'BASELINE'"},
		{"CTYPE2", "'COMPLEX '"}, {"CTYPE3", "'STOKES  '"}, {"CRVAL3", "-5.0"}, {"CTYPE4", "'FREQ    '"}, {"CRVAL4", "1.0E8"}, {"CDELT4", "1.0E6"},
		{"CTYPE5", "'IF      '"}, {"CTYPE6", "'RA      '"}, {"CRVAL6", "30.0"}, {"CTYPE7", "'DEC     '"}, {"CRVAL7", "-30.0"}}
	groupBytes := 5 * (4 + 3*2) * 4
	with := func(key, val string) [][2]string {
		var out [][2]string
		for _, c := range good {
			if c[0] == key {
				if val == "" {
					continue
				}
				c[1] = val
			}
			out = append(out, c)
		}
		return out
	}
	cases := []struct {
		name string
		file []byte
		want string
	}{
		{"text", []byte(strings.Repeat("not a FITS file\n", 300)), "SIMPLE"},
		{"short", []byte("SIMPLE  = T"), "without END"},
		{"not groups", fitsCards(with("GROUPS", "F"), groupBytes), `GROUPS is "F"`},
		{"integer data", fitsCards(with("BITPIX", "16"), groupBytes), "BITPIX = 16"},
		{"no UU", fitsCards(with("PTYPE1", "'XX'"), groupBytes), "no UU group parameter"},
		{"truncated", fitsCards(good, groupBytes-1), "truncated"},
		{"axis order", fitsCards(with("CTYPE3", "'FREQ'"), groupBytes), `CTYPE3 = "FREQ"`},
		{"two IFs", fitsCards(with("NAXIS5", "2"), 2*groupBytes), "one IF"},
		{"bad frequency", fitsCards(with("CRVAL4", "-1E8"), groupBytes), "channel 0's frequency"},
		{"bad number", fitsCards(with("CRVAL6", "'abc'"), groupBytes), `CRVAL6 = "abc"`},
		{"autos only", fitsCards(with("PCOUNT", "4"), groupBytes), "no cross-correlations"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".uvfits")
		if err := os.WriteFile(path, c.file, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := FromUVFITS(path, "xx")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v; want one naming %s and containing %q", c.name, err, path, c.want)
		}
	}
}
