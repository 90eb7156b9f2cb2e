package beamfits

import (
	"bytes"
	"fmt"
	"testing"
)

// TestFITSHeaderBytesOutsideASCII: a header byte outside FITS's ASCII
// 32–126 (standard 4.0 §4.1.1) is refused, DEL (0x7F) and a control byte
// as much as one above 0x7F, naming the byte and its offset; 32 and 126
// themselves are header text.
func TestFITSHeaderBytesOutsideASCII(t *testing.T) {
	header := func(comment string) []byte {
		var b []byte
		for _, c := range []string{"SIMPLE  =                    T", "BITPIX  =                    8", "NAXIS   =                    0", "COMMENT " + comment, "END"} {
			b = append(b, fmt.Sprintf("%-80s", c)...)
		}
		return append(b, bytes.Repeat([]byte(" "), fitsBlock-len(b))...)
	}
	at := int64(3*80 + 8 + 2) // the comment's third byte
	for _, bad := range []byte{0x7f, 0x1f, 0x80, 0xff} {
		data := header("ab" + string([]byte{bad}) + "cd")
		err := checkFITSSizes(bytes.NewReader(data), int64(len(data)))
		wantAll(t, err, "HDU 0 (primary)", fmt.Sprintf("byte %d", at), fmt.Sprintf("0x%02X", bad))
	}
	data := header("ab ~cd")
	if err := checkFITSSizes(bytes.NewReader(data), int64(len(data))); err != nil {
		t.Errorf("' ' and '~' in a comment: %v", err)
	}
}
