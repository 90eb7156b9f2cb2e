package matvis

import (
	"errors"
	"fmt"
	"math"
)

// Physical ranges that New accepts. Values outside them are not errors of
// arithmetic but of units or typing (kilometres for metres, MHz for Hz, a
// JD for an MJD), and they would otherwise give non-finite visibilities.
const (
	// MaxAntennaDistanceM bounds each ENU coordinate of an antenna, in
	// metres (10⁴ km: an Earth-sized array).
	MaxAntennaDistanceM = 1e7
	// MaxFreqHz bounds the channel frequencies (1 THz).
	MaxFreqHz = 1e12
	// MinTimeJD and MaxTimeJD bound the Julian dates of the times: the
	// years 1000 to 3000, well beyond any telescope's and any EOP table's.
	MinTimeJD = 2086302.5
	MaxTimeJD = 2816787.5
)

// ErrOutOfRange is wrapped by New's errors for a value outside its
// physical range (the range is named in the message).
var ErrOutOfRange = errors.New("out of physical range")

// checkRanges checks the physical ranges of the configuration's values,
// but for the sources' positions when sourcesChecked.
func checkRanges(c *Config, sourcesChecked bool) error {
	for i, a := range c.Antennas {
		for k, v := range a {
			if !finite(v) {
				return fmt.Errorf("antennas[%d][%d] = %v: must be finite", i, k, v)
			}
			if math.Abs(v) > MaxAntennaDistanceM {
				return fmt.Errorf("antennas[%d][%d] = %g m: %w (|x| ≤ %g m)", i, k, v, ErrOutOfRange, MaxAntennaDistanceM)
			}
		}
	}
	for i, f := range c.Freqs {
		if !finite(f) || f <= 0 {
			return fmt.Errorf("freqs[%d] = %v: must be positive and finite", i, f)
		}
		if f > MaxFreqHz {
			return fmt.Errorf("freqs[%d] = %g Hz: %w (0 < f ≤ %g Hz)", i, f, ErrOutOfRange, MaxFreqHz)
		}
	}
	for i, t := range c.Times {
		if !finite(t) || t < MinTimeJD || t > MaxTimeJD {
			return fmt.Errorf("times[%d] = %v JD: %w (%g ≤ JD ≤ %g, the years 1000 to 3000)", i, t, ErrOutOfRange, MinTimeJD, MaxTimeJD)
		}
	}
	if sourcesChecked {
		return nil
	}
	for i := range c.RA {
		if !finite(c.RA[i]) {
			return fmt.Errorf("ra[%d] = %v: must be finite", i, c.RA[i])
		}
	}
	for i := range c.Dec {
		if d := c.Dec[i]; !finite(d) || math.Abs(d) > math.Pi/2+1e-9 {
			return fmt.Errorf("dec[%d] = %v rad: %w (|dec| ≤ π/2)", i, d, ErrOutOfRange)
		}
	}
	return nil
}

// ErrNonFinite is wrapped by a backend's error when an integration's
// visibilities are not all finite.
var ErrNonFinite = errors.New("non-finite visibility")

// CheckFinite reports the first non-finite visibility of integration
// (freq index f, time index t), naming its pair and feeds.
func (r *Result) CheckFinite(f, t int) error {
	per := integrationSize(r.Shape)
	off := (f*r.Shape[1] + t) * per
	if r.Precision == 1 {
		if bad := firstNonFinite(r.Vis64[off : off+per]); bad >= 0 {
			return r.nonFinite(f, t, bad, complex128(r.Vis64[off+bad]))
		}
	} else if bad := firstNonFinite(r.Vis128[off : off+per]); bad >= 0 {
		return r.nonFinite(f, t, bad, r.Vis128[off+bad])
	}
	return nil
}

// nonFinite is the error for value v, element bad of integration (f, t).
func (r *Result) nonFinite(f, t, bad int, v complex128) error {
	nfp := integrationSize(r.Shape) / r.Shape[2]
	return fmt.Errorf("integration (freq %d, time %d): pair %d, feed element %d = %v: %w (an input far outside its physical range, e.g. an enormous flux)",
		f, t, bad/nfp, bad%nfp, v, ErrNonFinite)
}

// firstNonFinite is the index of the first NaN or Inf (-1 if none); a
// block whose sum of x−x is 0 is skipped without looking further.
func firstNonFinite[T complex64 | complex128](vs []T) int {
	const blk = 4096
	for lo := 0; lo < len(vs); lo += blk {
		hi := min(lo+blk, len(vs))
		var s float64
		for _, v := range vs[lo:hi] {
			c := complex128(v)
			s += (real(c) - real(c)) + (imag(c) - imag(c))
		}
		if s == 0 {
			continue
		}
		for i, v := range vs[lo:hi] {
			if c := complex128(v); !finite(real(c)) || !finite(imag(c)) {
				return lo + i
			}
		}
	}
	return -1
}
