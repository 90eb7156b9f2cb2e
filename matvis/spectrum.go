package matvis

import (
	"fmt"
	"runtime"
	"sync"
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
		return fmt.Errorf("matvis: sky at freqs[%d] = %g Hz: %w", fi, s.Freqs[fi], err)
	}
	for src, v := range dst {
		if !finite(v) || v < 0 {
			return fmt.Errorf("matvis: sky flux of source %d at freqs[%d] = %g Hz is %v: must be finite and not negative", src, fi, s.Freqs[fi], v)
		}
	}
	return nil
}

// FluxAtParallel is FluxAt on all cores for a flux table (Config.Flux: a
// strided gather, one cache miss per source) and FluxAt for a sky model.
func (s *Simulation) FluxAtParallel(fi int, dst []float64) error {
	nsrc, nfreq := s.NSrc(), s.NFreq()
	workers := min(runtime.GOMAXPROCS(0), max(1, nsrc/16384))
	if s.Sky != nil || workers == 1 || len(dst) != nsrc {
		return s.FluxAt(fi, dst)
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for src := w * nsrc / workers; src < (w+1)*nsrc/workers; src++ {
				dst[src] = s.Flux[src*nfreq+fi]
			}
		}()
	}
	wg.Wait()
	return nil
}
