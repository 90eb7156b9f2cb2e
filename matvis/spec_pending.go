package matvis

import (
	"fmt"

	"github.com/gomatvis/gomatvis/matvis/beam"
)

// loadBeamFITS will read beamfits files through matvis/beam.
func loadBeamFITS(path string, order, precision int) (beam.Beam, error) {
	return nil, fmt.Errorf("beamfits %s: gridded beams are not built yet", path)
}
