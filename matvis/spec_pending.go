package matvis

import (
	"fmt"

	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/simspec"
)

// astroCoordinates will build the spec's coordinate method from
// matvis/astro; until that package lands only --topo works.
func astroCoordinates(s *simspec.Spec, method string, bcrsEvery float64, warn func(string)) (Coordinates, error) {
	return nil, fmt.Errorf("matvis: coord_method %q: astrometry is not built yet; pass precomputed ENU vectors (--topo)", method)
}

// loadBeamFITS will read beamfits files through matvis/beam.
func loadBeamFITS(path string, order, precision int) (beam.Beam, error) {
	return nil, fmt.Errorf("beamfits %s: gridded beams are not built yet", path)
}
