package beamfits

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/inputfile/inputtest"
	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// realBeamFITS returns the bytes of the repository's HERA dipole beamfits:
// primary image, BASISVEC image and BANDPARM binary table.
func realBeamFITS(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(sharedtest.HERABeam(t))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// setCard replaces the value of the nth (0-based) header card named key
// with value, keeping the 80-byte card length.
func setCard(t testing.TB, b []byte, key string, nth int, value string) []byte {
	t.Helper()
	prefix := []byte(fmt.Sprintf("%-8s= ", key))
	off := 0
	for i := 0; ; i++ {
		j := bytes.Index(b[off:], prefix)
		for j >= 0 && (off+j)%80 != 0 {
			off += j + 1
			j = bytes.Index(b[off:], prefix)
		}
		if j < 0 {
			t.Fatalf("card %s #%d not found", key, nth)
		}
		if i == nth {
			out := append([]byte(nil), b...)
			copy(out[off+j:off+j+80], fmt.Sprintf("%-8s= %20s%50s", key, value, ""))
			return out
		}
		off += j + 80
	}
}

// TestLoadBeamFITSDeclaredSizes: one edited header card used to make fitsio
// allocate the declared image before reading (NAXIS1 = 999999999: 11 TB,
// fatal "out of memory"), or fail as "makeslice: len out of range"
// (NAXIS1 = -5). Each must now be an error naming the file, the HDU, the
// card and its value, without allocating more than the file's size.
func TestLoadBeamFITSDeclaredSizes(t *testing.T) {
	orig := realBeamFITS(t)
	dir := t.TempDir()
	cases := []struct {
		name, key string
		nth       int // which occurrence: 0 primary, 1 BASISVEC, 2 BANDPARM
		value     string
		want      string
	}{
		{"primary NAXIS1 huge", "NAXIS1", 0, "999999999", "HDU 0 (primary): NAXIS1 = 999999999: longer than"},
		{"primary NAXIS3 huge", "NAXIS3", 0, "100000000", "HDU 0 (primary): NAXIS3 = 100000000: longer than"},
		{"primary NAXIS3 too large", "NAXIS3", 0, "1000", "HDU 0 (primary): NAXIS1…NAXIS7 = [180 91 1000 2 1 2 2] of BITPIX -64: more data than"},
		{"primary NAXIS1 negative", "NAXIS1", 0, "-5", "HDU 0 (primary): NAXIS1 = -5: an axis length must not be negative"},
		{"primary NAXIS huge", "NAXIS", 0, "999999999", "HDU 0 (primary): NAXIS = 999999999: want 0 to 999 axes"},
		{"primary NAXIS2 zero", "NAXIS2", 0, "0", "NAXIS2 = 0: the beam has no pixels"},
		{"primary BITPIX odd", "BITPIX", 0, "7", "HDU 0 (primary): BITPIX = 7"},
		{"primary NAXIS1 not an integer", "NAXIS1", 0, "180.0", `HDU 0 (primary): NAXIS1 = "180.0": not an integer`},
		{"basis vectors NAXIS4 huge", "NAXIS4", 1, "400000000", "HDU 1 (BASISVEC): NAXIS4 = 400000000: longer than"},
		{"basis vectors NAXIS4 too large", "NAXIS4", 1, "4", "HDU 1 (BASISVEC): NAXIS1…NAXIS4"},
		{"basis vectors NAXIS2 negative", "NAXIS2", 1, "-91", "HDU 1 (BASISVEC): NAXIS2 = -91"},
		{"table rows huge", "NAXIS2", 2, "999999999999", "HDU 2 (BANDPARM): NAXIS2 = 999999999999: longer than"},
		{"table heap huge", "PCOUNT", 1, "99999999999", "HDU 2 (BANDPARM): PCOUNT = 99999999999"},
		{"table TFIELDS huge", "TFIELDS", 0, "999999999", "HDU 2 (BANDPARM): TFIELDS = 999999999"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".fits")
			if err := os.WriteFile(p, setCard(t, orig, c.key, c.nth, c.value), 0o600); err != nil {
				t.Fatal(err)
			}
			var err error
			n := inputtest.Allocated(func() { _, err = Load(p) })
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
				t.Errorf("error %v, want one naming %s and saying %q", err, p, c.want)
			}
			if n > 16*uint64(len(orig)) {
				t.Errorf("allocated %d bytes for a %d-byte file", n, len(orig))
			}
		})
	}
}

// TestLoadBeamFITSCardForms: fitsio also takes a card's value from a
// HIERARCH card and keeps the last of repeated cards; the size check must
// read the cards the same way or an edited file slips past it.
func TestLoadBeamFITSCardForms(t *testing.T) {
	orig := realBeamFITS(t)
	soft := bytes.Index(orig, []byte("SOFTWARE= "))
	if soft < 0 || soft%80 != 0 {
		t.Fatal("no SOFTWARE card to replace")
	}
	cases := []struct{ name, card, want string }{
		{"HIERARCH overrides NAXIS1", "HIERARCH NAXIS1 = 999999999", "HDU 0 (primary): NAXIS1 = 999999999"},
		{"repeated NAXIS2", "NAXIS2  =            999999999", "HDU 0 (primary): NAXIS2 = 999999999"},
		{"repeated BITPIX", "BITPIX  =                   12", "HDU 0 (primary): BITPIX = 12"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := append([]byte(nil), orig...)
			copy(b[soft:soft+80], fmt.Sprintf("%-80s", c.card))
			p := filepath.Join(dir, "edited.fits")
			if err := os.WriteFile(p, b, 0o600); err != nil {
				t.Fatal(err)
			}
			var err error
			n := inputtest.Allocated(func() { _, err = Load(p) })
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
			if n > 16*uint64(len(orig)) {
				t.Errorf("allocated %d bytes for a %d-byte file", n, len(orig))
			}
		})
	}
}

// TestLoadBeamFITSRefusesNonRegular: /dev/zero used to be read until
// memory ran out and a FIFO blocked forever.
func TestLoadBeamFITSRefusesNonRegular(t *testing.T) {
	inputtest.RefusesNonRegular(t, "beam.fits", func(p string) error { _, err := Load(p); return err })
}
