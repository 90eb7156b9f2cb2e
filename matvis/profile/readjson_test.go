package profile

import (
	"testing"

	"github.com/gomatvis/gomatvis/internal/inputfile/inputtest"
)

// TestReadJSONRefusesNonRegular: roofline --from FIFO used to block in
// os.ReadFile; ReadJSON refuses it, /dev/zero and a directory at once.
func TestReadJSONRefusesNonRegular(t *testing.T) {
	inputtest.RefusesNonRegular(t, "summary.json", func(p string) error { _, err := ReadJSON(p); return err })
}
