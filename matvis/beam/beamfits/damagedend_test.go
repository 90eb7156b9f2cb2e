package beamfits

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// endCard finds the byte offset of the nth (0-based) END card.
func endCard(t *testing.T, b []byte, nth int) int {
	t.Helper()
	for off, i := 0, 0; off+80 <= len(b); off += 80 {
		if string(b[off:off+80]) == fmt.Sprintf("%-80s", "END") {
			if i == nth {
				return off
			}
			i++
		}
	}
	t.Fatalf("END card #%d not found", nth)
	return 0
}

// TestLoadBeamFITSDamagedEnd: a header whose END card is missing or
// garbled runs on into data; it was diagnosed from whatever the data read
// as ("NAXIS = 4: an E-field beam needs 7 axes"). It must say that the END
// card is missing, naming the file and HDU.
func TestLoadBeamFITSDamagedEnd(t *testing.T) {
	orig := realBeamFITS(t)
	edit := func(nth int, with string) []byte {
		out := append([]byte(nil), orig...)
		copy(out[endCard(t, orig, nth):], with)
		return out
	}
	cases := []struct {
		name string
		data []byte
		want []string
	}{
		{"primary END blanked", edit(0, "   "), []string{"HDU 0 (primary)", "no END card before byte 5760", "END card is missing"}},
		{"primary END garbled", edit(0, "ENX"), []string{"HDU 0 (primary)", "END card is missing"}},
		{"BASISVEC END blanked", edit(1, "   "), []string{"HDU 1", "END card is missing"}},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".fits")
			if err := os.WriteFile(p, c.data, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Load(p)
			wantAll(t, err, append(c.want, p)...)
			if err != nil && strings.Contains(err.Error(), "NAXIS") {
				t.Errorf("%v: blames NAXIS", err)
			}
		})
	}
}

// TestFITSHeaderRunsIntoNext: a primary header without data whose END is
// missing runs into the next header's XTENSION card, which is named.
func TestFITSHeaderRunsIntoNext(t *testing.T) {
	block := func(cards ...string) []byte {
		var b []byte
		for _, c := range cards {
			b = append(b, fmt.Sprintf("%-80s", c)...)
		}
		return append(b, bytes.Repeat([]byte(" "), fitsBlock-len(b))...)
	}
	data := append(block("SIMPLE  =                    T", "BITPIX  =                    8", "NAXIS   =                    0"),
		block("XTENSION= 'IMAGE   '", "BITPIX  =                    8", "NAXIS   =                    0", "END")...)
	err := checkFITSSizes(bytes.NewReader(data), int64(len(data)))
	wantAll(t, err, "HDU 0 (primary)", "a second header (XTENSION at byte 2880)", "END card is missing")
}

// wantAll fails unless err holds every fragment.
func wantAll(t *testing.T, err error, frags ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one saying %q", frags)
	}
	for _, f := range frags {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error %q lacks %q", err, f)
		}
	}
}
