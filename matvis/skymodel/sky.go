package skymodel

import (
	"errors"
	"fmt"
	"math"
)

// SpectralType names a catalog's spectral model, as pyradiosky spells it.
type SpectralType int

// The spectral types of pyradiosky's SkyModel.spectral_type.
const (
	Flat          SpectralType = iota // same Stokes at every frequency
	SpectralIndex                     // S_ref·(f/f_ref)^α per component
	Subband                           // interpolated between subband fluxes
	Full                              // tabulated; exact frequencies only
)

// String returns pyradiosky's name for t.
func (t SpectralType) String() string {
	switch t {
	case Flat:
		return "flat"
	case SpectralIndex:
		return "spectral_index"
	case Subband:
		return "subband"
	case Full:
		return "full"
	}
	return fmt.Sprintf("SpectralType(%d)", int(t))
}

// ParseSpectralType maps pyradiosky's spectral_type names to a SpectralType.
func ParseSpectralType(s string) (SpectralType, error) {
	for _, t := range []SpectralType{Flat, SpectralIndex, Subband, Full} {
		if s == t.String() {
			return t, nil
		}
	}
	return 0, fmt.Errorf("unknown spectral_type %q (want flat, spectral_index, subband or full)", s)
}

// Stokes parameter indices for StokesAt.
const (
	I = 0
	Q = 1
	U = 2
	V = 3
)

// Components is the raw content of a catalog, before validation. Flux
// arrays are in Jy. For Flat and SpectralIndex, Stokes[p] has one value per
// component; for Subband and Full it is frequency-major, Stokes[p][k*N+i]
// for frequency Freqs[k] and component i. A nil Stokes[p] (p > 0) means zero.
type Components struct {
	Names    []string
	RA, Dec  []float64 // ICRS, radians
	Spectral SpectralType
	Stokes   [4][]float64
	Freqs    []float64 // Subband and Full: the tabulated frequencies, Hz
	RefFreq  []float64 // SpectralIndex (required) and Flat (optional), Hz
	Index    []float64 // SpectralIndex: α per component
}

// ErrNoFrequency reports a frequency the sky cannot be evaluated at.
var ErrNoFrequency = errors.New("frequency not available")

// Sky is a validated catalog of point components with a spectral model.
// Its slices are owned by the Sky and must not be modified by callers.
type Sky struct {
	c         Components
	n         int
	polarized bool
	zero      [4]bool   // Stokes p is zero for every component
	lnRef     []float64 // SpectralIndex: ln f_ref per component
	interp    Interp
	subband   *subbandModel
	// kelvin: the Stokes are in K·sr and converted to Jy at each evaluated
	// frequency, after the spectral model (pyuvsim's order for HEALPix
	// maps in K; see fluxUnit.kelvinPerChannel).
	kelvin bool
}

// New validates c and builds a Sky that takes ownership of its slices.
func New(c Components) (*Sky, error) {
	n := len(c.RA)
	if err := checkComponents(&c, n); err != nil {
		return nil, err
	}
	s := &Sky{c: c, n: n}
	for p := range 4 {
		s.zero[p] = allZero(s.c.Stokes[p])
	}
	for p := 1; p < 4; p++ {
		if s.zero[p] {
			// Most catalogs are Stokes I only: three arrays of zeros
			// would cost 24 MB per million components.
			s.c.Stokes[p] = nil
			continue
		}
		for _, v := range s.c.Stokes[p] {
			if v != 0 && !math.IsNaN(v) {
				s.polarized = true
				break
			}
		}
	}
	if c.Spectral == SpectralIndex {
		s.lnRef = logs(c.RefFreq)
	}
	if c.Spectral == Subband {
		m, err := newSubbandModel(c.Freqs, &s.c.Stokes, n)
		if err != nil {
			return nil, err
		}
		s.subband = m
	}
	return s, nil
}

// logs returns ln f of every f. A catalog's reference frequencies are
// mostly one value repeated (pyradiosky writes each source's, all alike),
// so a value equal to the one before takes its logarithm again instead of
// computing it: 2·10⁶ math.Log calls were ~0.03 s of one core on the
// input's sequential path.
func logs(f []float64) []float64 {
	out := make([]float64, len(f))
	for i, v := range f {
		if i > 0 && v == f[i-1] {
			out[i] = out[i-1]
			continue
		}
		out[i] = math.Log(v)
	}
	return out
}

func checkComponents(c *Components, n int) error {
	if n == 0 {
		return errors.New("skymodel: no components")
	}
	if len(c.Dec) != n || (c.Names != nil && len(c.Names) != n) {
		return fmt.Errorf("skymodel: %d RA values but %d Dec and %d names", n, len(c.Dec), len(c.Names))
	}
	for i := range n {
		if !finite(c.RA[i]) || !finite(c.Dec[i]) || math.Abs(c.Dec[i]) > math.Pi/2+1e-12 {
			return fmt.Errorf("skymodel: component %d: bad position ra=%g dec=%g rad", i, c.RA[i], c.Dec[i])
		}
	}
	rows := 1
	switch c.Spectral {
	case Flat:
		if c.RefFreq != nil {
			if err := checkPositive("reference frequency", c.RefFreq, n); err != nil {
				return err
			}
		}
	case SpectralIndex:
		if err := checkPositive("reference frequency", c.RefFreq, n); err != nil {
			return err
		}
		if len(c.Index) != n {
			return fmt.Errorf("skymodel: %d spectral indices for %d components", len(c.Index), n)
		}
		for i, a := range c.Index {
			if !finite(a) {
				return fmt.Errorf("skymodel: component %d: spectral index %g is not finite", i, a)
			}
		}
	case Subband, Full:
		rows = len(c.Freqs)
		if err := checkPositive("frequency", c.Freqs, rows); err != nil {
			return err
		}
		if rows == 0 {
			return fmt.Errorf("skymodel: %s spectrum with no frequencies", c.Spectral)
		}
	default:
		return fmt.Errorf("skymodel: unknown spectral type %d", int(c.Spectral))
	}
	return checkStokes(c, rows*n)
}

func checkStokes(c *Components, size int) error {
	for p, st := range c.Stokes {
		if st == nil && p > 0 {
			continue
		}
		if len(st) != size {
			return fmt.Errorf("skymodel: Stokes %c has %d values, want %d", "IQUV"[p], len(st), size)
		}
		for k, v := range st {
			if math.IsInf(v, 0) || (math.IsNaN(v) && c.Spectral != Subband) {
				return fmt.Errorf("skymodel: Stokes %c value %d is %g (not finite)", "IQUV"[p], k, v)
			}
		}
	}
	return nil
}

func checkPositive(what string, v []float64, n int) error {
	if len(v) != n {
		return fmt.Errorf("skymodel: %d %s values, want %d", len(v), what, n)
	}
	for i, f := range v {
		if !(f > 0) || math.IsInf(f, 0) {
			return fmt.Errorf("skymodel: %s %d is %g Hz (must be positive and finite)", what, i, f)
		}
	}
	return nil
}

func allZero(v []float64) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Len returns the number of components.
func (s *Sky) Len() int { return s.n }

// Names returns the component names (nil where the catalog has none).
func (s *Sky) Names() []string { return s.c.Names }

// RA returns the ICRS right ascensions in radians.
func (s *Sky) RA() []float64 { return s.c.RA }

// Dec returns the ICRS declinations in radians.
func (s *Sky) Dec() []float64 { return s.c.Dec }

// Spectral returns the catalog's spectral type.
func (s *Sky) Spectral() SpectralType { return s.c.Spectral }

// Freqs returns the tabulated frequencies (Hz) of a Subband or Full sky.
func (s *Sky) Freqs() []float64 { return s.c.Freqs }

// ReferenceFrequencies returns the per-component reference frequencies (Hz),
// or nil when the catalog has none.
func (s *Sky) ReferenceFrequencies() []float64 { return s.c.RefFreq }

// SpectralIndices returns α per component of a SpectralIndex sky.
func (s *Sky) SpectralIndices() []float64 { return s.c.Index }

// PowerLawI returns Stokes I's spectral model when it is a power law in
// Jy, S_ref·exp(α·(ln f − ln f_ref)) as StokesAt evaluates it: S_ref, α
// and ln f_ref of every component (shared, not copied). ok is false for
// another spectral type, a sky in K·sr (converted per channel) or a zero
// Stokes I.
func (s *Sky) PowerLawI() (sref, index, lnRef []float64, ok bool) {
	if s.c.Spectral != SpectralIndex || s.kelvin || s.zero[I] {
		return nil, nil, nil, false
	}
	return s.c.Stokes[I], s.c.Index, s.lnRef, true
}

// InKelvin reports whether the stored Stokes are brightness temperatures
// times solid angle (K·sr) that StokesAt converts to Jy at each frequency:
// spectral_index and subband maps, and flat maps without frequency, read
// in K or K·sr.
func (s *Sky) InKelvin() bool { return s.kelvin }

// Polarized reports whether any component has a non-zero Q, U or V.
func (s *Sky) Polarized() bool { return s.polarized }

// Components returns the sky's raw arrays (shared, not copied). Their
// Stokes are in Jy, except where InKelvin reports brightness temperature
// (K·sr, converted per channel); StokesAt always returns Jy.
func (s *Sky) Components() Components { return s.c }
