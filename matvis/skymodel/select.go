package skymodel

import (
	"errors"
	"fmt"
	"math"
)

// ErrEmptySelection is returned when a selection would keep no component.
var ErrEmptySelection = errors.New("skymodel: select would result in an empty sky")

// Select returns a new Sky with the components pyuvsim keeps for the
// obsparam source options min_flux, max_flux (Jy) and non_negative, by
// pyradiosky's SkyModel.select rules:
//
//   - nonNegative drops components whose Stokes I is negative at any of
//     the catalog's own frequencies (the stored values: the reference
//     frequency for spectral_index, every subband/full frequency);
//   - minFlux keeps components whose smallest Stokes I over the catalog's
//     frequencies is ≥ minFlux, maxFlux those whose largest is ≤ maxFlux
//     (a NaN anywhere in a component's Stokes I drops it, as numpy's min
//     and max propagate NaN);
//   - flux cuts on a spectral_index sky are refused, as pyradiosky does
//     ("Flux cuts with spectral index type objects is not supported yet").
//
// Pass math.Inf(-1) / math.Inf(1) for no minimum / maximum. Fluxes are in
// Jy; flux cuts on a sky that InKelvin are refused. The receiver is
// unchanged.
func (s *Sky) Select(minFlux, maxFlux float64, nonNegative bool) (*Sky, error) {
	if math.IsNaN(minFlux) || math.IsNaN(maxFlux) {
		return nil, fmt.Errorf("skymodel: select: flux limits must not be NaN (min %g, max %g)", minFlux, maxFlux)
	}
	cut := !math.IsInf(minFlux, -1) || !math.IsInf(maxFlux, 1)
	if cut && s.kelvin {
		return nil, errors.New("skymodel: select: flux cuts in Jy on a brightness-temperature sky evaluated per channel are not supported (pyradiosky refuses Jy limits on K skies too)")
	}
	if cut && s.c.Spectral == SpectralIndex {
		return nil, errors.New("skymodel: select: flux cuts on a spectral_index sky are not supported (pyradiosky refuses them too)")
	}
	rows := len(s.c.Stokes[0]) / s.n
	keep := make([]int, 0, s.n)
	for i := range s.n {
		lo, hi, neg := math.Inf(1), math.Inf(-1), false
		for k := range rows {
			v := s.c.Stokes[0][k*s.n+i]
			if math.IsNaN(v) {
				lo, hi = math.NaN(), math.NaN()
			} else if !math.IsNaN(lo) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
			neg = neg || v < 0
		}
		if nonNegative && neg {
			continue
		}
		if cut && !(lo >= minFlux && hi <= maxFlux) {
			continue
		}
		keep = append(keep, i)
	}
	if len(keep) == 0 {
		return nil, ErrEmptySelection
	}
	return s.subsetSky(keep, rows)
}

// SelectNonNaN returns a new Sky without the components pyuvsim's
// non_nan option drops (pyradiosky SkyModel.select): with mode "any",
// those with a NaN Stokes value anywhere; with mode "all", those that have
// a NaN in some Stokes parameter at every tabulated frequency. Only subband
// skies can hold NaN. When nothing is dropped the receiver is returned.
func (s *Sky) SelectNonNaN(mode string) (*Sky, error) {
	if mode != "any" && mode != "all" {
		return nil, fmt.Errorf("skymodel: non_nan must be \"any\" or \"all\", not %q", mode)
	}
	rows := len(s.c.Stokes[0]) / s.n
	keep := make([]int, 0, s.n)
	for i := range s.n {
		nanRows := 0
		for k := range rows {
			for p := range 4 {
				if s.c.Stokes[p] != nil && math.IsNaN(s.c.Stokes[p][k*s.n+i]) {
					nanRows++
					break
				}
			}
		}
		if nanRows == 0 || (mode == "all" && nanRows < rows) {
			keep = append(keep, i)
		}
	}
	if len(keep) == 0 {
		return nil, ErrEmptySelection
	}
	if len(keep) == s.n {
		return s, nil
	}
	return s.subsetSky(keep, rows)
}

func (s *Sky) subsetSky(keep []int, rows int) (*Sky, error) {
	sub, err := New(s.subset(keep, rows))
	if err != nil {
		return nil, err
	}
	sub.interp, sub.kelvin = s.interp, s.kelvin
	return sub, nil
}

// subset copies the components keep (rows = tabulated frequencies).
func (s *Sky) subset(keep []int, rows int) Components {
	pick := func(v []float64) []float64 {
		if v == nil {
			return nil
		}
		out := make([]float64, len(keep))
		for j, i := range keep {
			out[j] = v[i]
		}
		return out
	}
	c := Components{
		RA: pick(s.c.RA), Dec: pick(s.c.Dec), Spectral: s.c.Spectral,
		RefFreq: pick(s.c.RefFreq), Index: pick(s.c.Index),
		Freqs: append([]float64(nil), s.c.Freqs...),
	}
	if s.c.Names != nil {
		c.Names = make([]string, len(keep))
		for j, i := range keep {
			c.Names[j] = s.c.Names[i]
		}
	}
	m := len(keep)
	for p := range 4 {
		if s.c.Stokes[p] == nil {
			continue // zero
		}
		out := make([]float64, rows*m)
		for k := range rows {
			row := s.c.Stokes[p][k*s.n:]
			for j, i := range keep {
				out[k*m+j] = row[i]
			}
		}
		c.Stokes[p] = out
	}
	return c
}
