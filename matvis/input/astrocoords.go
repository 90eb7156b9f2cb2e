package input

import (
	"fmt"
	"github.com/gomatvis/gomatvis/matvis"

	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/matvis/simspec"
)

// SpecCoordinates builds the ENU vectors of a spec's sources at its times
// with matvis/astro: method is an astro.Method (coord_method), bcrsEvery the
// seconds between BCRS-step refreshes of the ERFA method, warn receives
// astro's warnings (nil: discarded).
func SpecCoordinates(s *simspec.Spec, method string, bcrsEvery float64, warn func(string)) (matvis.Coordinates, error) {
	ra, dec := s.Sources.RARad, s.Sources.DecRad
	if s.Sources.Catalog != nil {
		sky, err := specCatalog(s, specMaxMemory(s, &SpecOptions{}))
		if err != nil {
			return nil, err
		}
		ra, dec = sky.RA(), sky.Dec()
	}
	return specCoordinates(s, ra, dec, method, bcrsEvery, warn)
}

// specCoordinates is SpecCoordinates for the sources at ra, dec.
func specCoordinates(s *simspec.Spec, ra, dec []float64, method string, bcrsEvery float64, warn func(string)) (matvis.Coordinates, error) {
	cfg := astro.Config{
		Method:          astro.Method(method),
		Site:            astro.Site{LatDeg: s.Telescope.LatDeg, LonDeg: s.Telescope.LonDeg, HeightM: s.Telescope.HeightM},
		TimesJD:         s.TimesJD,
		UpdateBCRSEvery: bcrsEvery,
		Warn:            warn,
	}
	for _, e := range s.EOP {
		cfg.EOP = append(cfg.EOP, astro.EOP{UT1MinusUTCSec: e.UT1MinusUTCSec, XpArcsec: e.XpArcsec, YpArcsec: e.YpArcsec})
	}
	r, err := astro.New(cfg, ra, dec)
	if err != nil {
		return nil, fmt.Errorf("matvis: coordinates (%s): %w", method, err)
	}
	return r, nil
}
