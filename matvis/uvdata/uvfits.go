package uvdata

import (
	"fmt"
	"math"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/uvfits"
)

// CreateUVFITS is Create writing UVFITS (package uvfits) instead of UVH5:
// the same rows (baseline-times, the UVH5's order), in pyuvdata's UVFITS
// conventions (visibilities conjugated, uvw negated and in seconds).
//
// The data are written as the UVH5 holds them, unphased (pyuvsim's drift
// scan): pyuvsim writes uvfits through pyuvdata's write_uvfits with
// force_phase=True, which first phases the data to the zenith of the
// first time; gomatvis does not phase. The header names that center
// (OBJECT "zenith", RA/DEC its ICRS position) because UVFITS, and
// pyuvdata's reader, have no unprojected phase center, and says the data
// are unphased in the keyword PHASED = F (docs/uvfits.md).
func CreateUVFITS(path string, sim *matvis.Simulation, obs *matvis.Observation) (*Writer, error) {
	l, err := NewLayout(sim, obs)
	if err != nil {
		return nil, err
	}
	h, err := l.Header()
	if err != nil {
		return nil, err
	}
	var eop astro.EOP
	if l.EOP != nil {
		eop = l.EOP[0]
	}
	ra, dec, err := zenithICRS(l.Site, l.Times[0], eop)
	if err != nil {
		return nil, fmt.Errorf("uvdata: the zenith of the first time: %w", err)
	}
	lst := h.LSTs[0] * 180 / math.Pi
	w, err := uvfits.Create(path, h, uvfits.Options{
		PhaseCenter: uvfits.PhaseCenter{Name: "zenith", RADeg: ra * 180 / math.Pi, DecDeg: dec * 180 / math.Pi,
			Frame: "icrs", Epoch: 2000, AppRADeg: lst, AppDecDeg: l.Site.LatDeg},
		EOP:      eop,
		Keywords: []uvfits.Keyword{{Name: "PHASED", Value: false}},
	})
	if err != nil {
		return nil, err
	}
	return newWriter(w, sim, obs), nil
}

// zenithICRS is the ICRS right ascension and declination (radians) of the
// site's zenith at jd: the direction the simulator's astrometry (astropy's
// AltAz chain, astro.MethodAstropy) puts at ENU (0, 0, 1), found by
// correcting a first guess (apparent LST, latitude) by its east and north
// offsets until they vanish.
func zenithICRS(site astro.Site, jd float64, eop astro.EOP) (ra, dec float64, err error) {
	lst, err := astro.ApparentLST(jd, site.LonDeg*math.Pi/180, eop)
	if err != nil {
		return 0, 0, err
	}
	ra, dec = lst, site.LatDeg*math.Pi/180
	e, n, u := make([]float64, 1), make([]float64, 1), make([]float64, 1)
	for range 8 {
		rot, err := astro.New(astro.Config{Method: astro.MethodAstropy, Site: site, TimesJD: []float64{jd}, EOP: []astro.EOP{eop}},
			[]float64{ra}, []float64{dec})
		if err != nil {
			return 0, 0, err
		}
		if err := rot.ENU(0, e, n, u); err != nil {
			return 0, 0, err
		}
		// Near the zenith a source δ north sits δ to the north and one α
		// further in RA sits α·cos(dec) to the east.
		ra -= e[0] / math.Cos(dec)
		dec -= n[0]
		if math.Hypot(e[0], n[0]) < 1e-13 {
			break
		}
	}
	return math.Mod(ra+2*math.Pi, 2*math.Pi), dec, nil
}
