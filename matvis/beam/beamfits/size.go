package beamfits

import (
	"fmt"
	"io"

	"github.com/gomatvis/gomatvis/internal/membudget"
)

// checkLoadSize refuses, before the FITS reader loads any data, a
// beamfits whose loading exceeds m's budget: the reader holds every HDU's
// data (size bytes at most, the file), then the primary image decoded to
// float64 and gathered into complex128 values, at least 16 B a pixel
// between them. It is a lower bound of what loading takes, from the
// primary header alone. Call it after checkFITSSizes, which has checked
// the header's sizes against the file; a file without a readable primary
// header (an empty one) is left to the reader to diagnose.
func checkLoadSize(m membudget.Machine, r io.ReaderAt, size int64, path string) error {
	h, err := readFITSHeader(r, 0, size, 0)
	if err != nil {
		return nil
	}
	data, err1 := h.dataBytes(size - h.length)
	bitpix, err2 := h.intCard("BITPIX", 0, true)
	if err1 != nil || err2 != nil || bitpix == 0 {
		return nil
	}
	pixels := data / max(bitpix, -bitpix) * 8
	terms := []membudget.Term{
		{Name: "file data", Size: fmt.Sprintf("the file's %d bytes, as the FITS reader holds them", size), Bytes: size},
		{Name: "decoded image", Size: fmt.Sprintf("%d pixels × 16 B (float64, then complex)", pixels), Bytes: membudget.Mul(pixels, 16)},
	}
	return m.Check(0, "loading beamfits "+path, "use a beam of fewer channels or pixels, or run on a machine with more memory", terms...)
}
