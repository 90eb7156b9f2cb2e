package matvis

import (
	"fmt"
	"math"
	"sync"

	"github.com/gomatvis/gomatvis/internal/blocks"
)

// Spectrum gives every source's Stokes-I flux at one frequency. A sky
// with a spectral model (a power law, subbands) is evaluated channel by
// channel through it and never stored as an nsrc × nfreq table: a 10⁶-source
// sky over 1024 channels costs one channel's fluxes at a time.
type Spectrum interface {
	// StokesIAt writes the Stokes-I flux density in Jy of every source at
	// freqHz into dst, whose length is the number of sources.
	StokesIAt(freqHz float64, dst []float64) error
}

// PowerLaw is a Spectrum that can say that its Stokes I is a power law,
// S_ref·exp(α·(ln f − ln f_ref)) for every source, which a backend may
// then evaluate itself (the GPU makes every channel on the device at
// once). skymodel.Sky is one.
type PowerLaw interface {
	Spectrum
	// PowerLawI returns S_ref (Jy), α and ln f_ref (f_ref in Hz) of every
	// source, or ok false when Stokes I is not such a power law.
	PowerLawI() (sref, index, lnRef []float64, ok bool)
}

// FluxAt writes the Stokes-I flux in Jy of every source at frequency index
// fi into dst (length NSrc), from Config.Flux or Config.Sky. A flux that is
// not finite or is negative is an error naming the source and channel, so
// a spectral model that overflows at some channel cannot yield NaNs.
func (s *Simulation) FluxAt(fi int, dst []float64) error {
	nsrc, nfreq := s.NSrc(), s.NFreq()
	if len(dst) != nsrc {
		return fmt.Errorf("matvis: flux buffer holds %d values for %d sources", len(dst), nsrc)
	}
	if s.Sky == nil {
		for src := range dst {
			dst[src] = s.Flux[src*nfreq+fi]
		}
		return nil // New checked the table
	}
	if err := s.Sky.StokesIAt(s.Freqs[fi], dst); err != nil {
		return s.skyError(fi, err)
	}
	for src, v := range dst {
		if !finite(v) || v < 0 {
			return s.badFlux(fi, src, v)
		}
	}
	return nil
}

// FluxMaxAt is FluxAt on all cores that also returns the largest flux:
// the gather from Config.Flux (a strided gather, one cache miss per
// source), the check of every value and the maximum in one parallel pass.
// A GPU run prepares each channel so while the device computes the one
// before, and a serial pass over 10⁶ sources (7 ms) outlasted the
// transform's channel (4 ms at 350 antennas on an H100). Errors name the
// first bad source, as FluxAt's do.
func (s *Simulation) FluxMaxAt(fi int, dst []float64) (float64, error) {
	nsrc, nfreq := s.NSrc(), s.NFreq()
	if len(dst) != nsrc {
		return 0, fmt.Errorf("matvis: flux buffer holds %d values for %d sources", len(dst), nsrc)
	}
	if s.Sky != nil {
		if err := s.Sky.StokesIAt(s.Freqs[fi], dst); err != nil {
			return 0, s.skyError(fi, err)
		}
	}
	var mu sync.Mutex
	m, bad := 0.0, -1
	blocks.Run(nsrc, blocks.Workers(nsrc, 16384), func(lo, hi int) {
		pm, pbad := 0.0, -1
		for src := lo; src < hi; src++ {
			if s.Sky == nil {
				dst[src] = s.Flux[src*nfreq+fi] // New checked the table
			}
			v := dst[src]
			if s.Sky != nil && (!finite(v) || v < 0) {
				pbad = src
				break
			}
			pm = max(pm, math.Abs(v))
		}
		mu.Lock()
		defer mu.Unlock()
		m = max(m, pm)
		if pbad >= 0 && (bad < 0 || pbad < bad) {
			bad = pbad
		}
	})
	if bad >= 0 {
		return 0, s.badFlux(fi, bad, dst[bad])
	}
	return m, nil
}

// skyError is a sky model's failure to give channel fi's fluxes.
func (s *Simulation) skyError(fi int, err error) error {
	return fmt.Errorf("matvis: sky at freqs[%d] = %g Hz: %w", fi, s.Freqs[fi], err)
}

// badFlux refuses source src's flux v at channel fi, which a sky model
// gave not finite or negative.
func (s *Simulation) badFlux(fi, src int, v float64) error {
	return fmt.Errorf("matvis: sky flux of source %d at freqs[%d] = %g Hz is %v: must be finite and not negative", src, fi, s.Freqs[fi], v)
}
