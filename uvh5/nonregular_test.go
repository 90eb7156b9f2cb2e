package uvh5

import (
	"testing"

	"github.com/gomatvis/gomatvis/internal/inputfile/inputtest"
)

// TestReadFileRefusesNonRegular: ReadFile opened a FIFO with os.Open,
// which blocks until a writer comes; it refuses it, /dev/zero and a
// directory at once.
func TestReadFileRefusesNonRegular(t *testing.T) {
	inputtest.RefusesNonRegular(t, "vis.uvh5", func(p string) error { _, err := ReadFile(p); return err })
}
