package input

import (
	"testing"

	"github.com/gomatvis/gomatvis/internal/inputfile/inputtest"
)

// TestReadEOPFileRefusesNonRegular: the EOP file is read as every other
// input is (internal/inputfile): a FIFO, a directory or /dev/zero is
// refused by name at once.
func TestReadEOPFileRefusesNonRegular(t *testing.T) {
	inputtest.RefusesNonRegular(t, "eop.json", func(p string) error { _, err := ReadEOPFile(p, []float64{2459845}); return err })
}
