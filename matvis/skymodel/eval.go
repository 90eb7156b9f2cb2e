package skymodel

import (
	"fmt"
	"math"

	"github.com/gomatvis/gomatvis/internal/blocks"
)

// fullTolerance is pyradiosky's freq_tol (1 Hz); at_frequencies matches a
// Full sky's frequencies with numpy.isclose, whose default relative
// tolerance of 1e-5 applies on top of it.
const (
	fullAbsTol = 1.0
	fullRelTol = 1e-5
)

// StokesIAt writes Stokes I (Jy) of every component at freqHz into dst,
// which must have Len() elements.
func (s *Sky) StokesIAt(freqHz float64, dst []float64) error {
	return s.StokesAt(freqHz, I, dst)
}

// StokesAt writes Stokes parameter stokes (I, Q, U or V = 0..3), in Jy, of
// every component at freqHz into dst, which must have Len() elements.
// Spectral-index skies of 2^17 components or more are evaluated on several
// goroutines.
func (s *Sky) StokesAt(freqHz float64, stokes int, dst []float64) error {
	if stokes < 0 || stokes > 3 {
		return fmt.Errorf("skymodel: Stokes index %d out of range 0..3", stokes)
	}
	if len(dst) != s.n {
		return fmt.Errorf("skymodel: buffer has %d elements, sky has %d components", len(dst), s.n)
	}
	if !(freqHz > 0) || math.IsInf(freqHz, 0) {
		return fmt.Errorf("skymodel: frequency %g Hz: %w (must be positive and finite)", freqHz, ErrNoFrequency)
	}
	src := s.c.Stokes[stokes]
	if s.zero[stokes] {
		clear(dst)
		return nil
	}
	switch s.c.Spectral {
	case Flat:
		copy(dst, src)
	case SpectralIndex:
		s.powerLaw(freqHz, src, dst)
	case Full:
		k, err := s.fullIndex(freqHz)
		if err != nil {
			return err
		}
		copy(dst, src[k*s.n:(k+1)*s.n])
	case Subband:
		if err := s.subband.eval(freqHz, s.interp, stokes, src, dst); err != nil {
			return err
		}
	}
	if s.kelvin {
		k := JyPerKSr(freqHz)
		for i := range dst {
			dst[i] *= k
		}
	}
	return nil
}

// powerLaw evaluates S_ref·(f/f_ref)^α as S_ref·exp(α·(ln f − ln f_ref)),
// split over GOMAXPROCS goroutines for large skies.
func (s *Sky) powerLaw(f float64, src, dst []float64) {
	lnf := math.Log(f)
	parallelRange(len(dst), func(lo, hi int) {
		idx, lnRef, out := s.c.Index[lo:hi], s.lnRef[lo:hi], dst[lo:hi]
		in := src[lo:hi]
		for i := range out {
			out[i] = in[i] * math.Exp(idx[i]*(lnf-lnRef[i]))
		}
	})
}

// parallelRange calls fn on contiguous pieces of [0, n): one piece below
// 2^16 elements, else about one per GOMAXPROCS.
func parallelRange(n int, fn func(lo, hi int)) {
	const minPiece = 1 << 16
	blocks.Run(n, blocks.Workers(n, minPiece), fn)
}

// fullIndex returns the tabulated frequency matching f under pyradiosky's
// rule |f_k − f| ≤ 1 Hz + 1e-5·|f|; the nearest one if several match.
func (s *Sky) fullIndex(f float64) (int, error) {
	best, bestD := -1, math.Inf(1)
	for k, fk := range s.c.Freqs {
		if d := math.Abs(fk - f); d < bestD {
			best, bestD = k, d
		}
	}
	if best < 0 || bestD > fullAbsTol+fullRelTol*math.Abs(f) {
		return 0, fmt.Errorf("skymodel: %.6f Hz is not one of the %d frequencies of this full-spectrum sky: %w",
			f, len(s.c.Freqs), ErrNoFrequency)
	}
	return best, nil
}
