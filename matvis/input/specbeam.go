package input

import (
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/beam/beamfits"
)

// loadBeamFITS reads a spec's beamfits beam through matvis/beam, with the
// spec's beam_spline_opts order (1 bilinear, 3 cubic) and its precision
// (1 keeps the raw grid in float32).
func loadBeamFITS(path string, order, precision int) (beam.Beam, error) {
	g, err := beamfits.Load(path)
	if err != nil {
		return nil, err
	}
	if g, err = g.WithOrder(order); err != nil {
		return nil, err
	}
	return g.WithPrecision(precision)
}
