package matvis

import (
	"context"
	"fmt"
	"math"

	"github.com/gomatvis/gomatvis/matvis/beam"
)

// MatProd chooses how visibilities are formed from Z.
type MatProd string

// Matrix-product methods, as matvis's matprod_method.
const (
	// MatProdHerk forms all nant² baselines with one Hermitian rank-k update.
	MatProdHerk MatProd = "herk"
	// MatProdPairs forms only the requested antpairs with dot products;
	// faster when few pairs are wanted.
	MatProdPairs MatProd = "pairs"
)

// Options are the run options of matvis's simulate_vis.
type Options struct {
	// Precision is 1 (float32/complex64) or 2 (float64/complex128).
	Precision int
	// Polarized runs use 2 feeds × 2 E-field axes; otherwise one feed's
	// power beam (its square root) is used.
	Polarized bool
	// Feed is the feed of an unpolarized run (matvis always uses x).
	Feed beam.Feed
	// AntPairs selects the output baselines; nil means all nant² ordered
	// pairs, row-major (pair index i·nant + j).
	AntPairs [][2]int
	// MatProd is the matrix-product method (default herk; when left
	// unset, New chooses pairs when AntPairs are given and only the pairs
	// accumulator fits in host memory). Both give the same visibilities.
	// The GPU backend has no per-pair product: for pairs it forms the full
	// Gram product on the device and extracts the requested pairs, and
	// its Stats.MatProdImpl says so.
	MatProd MatProd
	// MaxMemory is the memory budget in bytes (0: the machine's available
	// memory on the CPU, the device's free memory on the GPU). New checks
	// the host memory every backend needs (output, pair list,
	// accumulator, ENU cache) against it, capped by the available memory,
	// and the CPU's chunk plan gets what the output leaves of it.
	MaxMemory int64
	// Rotation is how a polarized sky's coherency is turned into the
	// beams' local basis (empty: RotationIAU, the physically derived one;
	// RotationPyradiosky reproduces pyuvsim 1.2). It is unused for a
	// Stokes-I sky.
	Rotation CoherencyRotation
	// MinChunks is the least number of source chunks (default 1).
	MinChunks int
	// OutputTimes, when positive, says the caller never holds more than
	// this many times of the output at once: it runs the simulation in
	// time blocks (Subset) and writes each before the next, as a UVH5
	// output is written. New then sizes the output for one such block;
	// TimesPerBlock says how many times fit. 0: the whole output at once.
	OutputTimes int
	// OutputStreamed says the caller never holds the output whole: it
	// runs the simulation in blocks it sizes itself against the budget
	// (matvis/output.Run) and hands each to a writer. New then counts no
	// output (each block's Subset counts its own); OutputTimes is ignored.
	OutputStreamed bool
	// SourceBuffer is the fraction of a chunk's sources that the per-chunk
	// buffers hold (matvis's source_buffer, default 1: the horizon cut is
	// not assumed to remove any).
	SourceBuffer float64
	// MemoryBuffer is the fraction of the budget that may be used (0.9).
	MemoryBuffer float64
	// Progress, when set, is called after each finished integration.
	Progress func(Progress)
}

// Progress reports how far a run is.
type Progress struct {
	Done, Total int // integrations (frequency × time) finished and in all
}

// Config describes a simulation in Go values.
type Config struct {
	// Antennas are ENU positions in metres relative to the array centre.
	Antennas [][3]float64
	// Freqs are the channel frequencies in Hz.
	Freqs []float64
	// Times are UTC Julian dates (informational when Coords is given).
	Times []float64
	// RA, Dec are ICRS source positions in radians.
	RA, Dec []float64
	// Flux is the Stokes-I flux in Jy, source-major: Flux[s*len(Freqs)+f].
	// Leave it nil when Sky is set.
	Flux []float64
	// Sky, when set instead of Flux, gives the fluxes channel by channel
	// (a catalog's spectral model); Simulation.FluxAt reads either. A
	// PolarizedSpectrum whose Polarized is true makes a full-Stokes run,
	// which needs Options.Polarized and PolBasis (docs/stokes.md).
	Sky Spectrum
	// PolBasis orients each source's polarization basis at each time
	// (FDBasis); needed only for a polarized sky, ignored otherwise.
	PolBasis PolBasis
	// Beams are the unique beams; BeamIdx maps antenna → beam (nil: one
	// beam for all, or one per antenna when len(Beams) == len(Antennas)).
	Beams   []beam.Beam
	BeamIdx []int
	// Coords gives the ENU source vectors at each time.
	Coords Coordinates
	// Options are the run options.
	Options Options
}

// Simulation is a validated Config with its derived quantities. Its fields
// are read-only for backends.
type Simulation struct {
	Config
	// BeamOf is the beam index of each antenna (resolved BeamIdx).
	BeamOf []int
	// Pairs are the output baselines in output order.
	Pairs [][2]int
	// Mode is the beam mode (polarisation, feed).
	Mode beam.Mode
	// out, when set (SubsetInto), is where NewResult puts this
	// simulation's visibilities: a part of a larger result's memory.
	out *resultView
}

// NAnt is the number of antennas.
func (s *Simulation) NAnt() int { return len(s.Antennas) }

// NSrc is the number of sources.
func (s *Simulation) NSrc() int { return len(s.RA) }

// NFreq is the number of frequencies.
func (s *Simulation) NFreq() int { return len(s.Freqs) }

// TopChannel is the index of the highest frequency (the first of equal
// ones; 0 without channels): the transform paths plan every channel on
// its grids.
func (s *Simulation) TopChannel() int {
	top := 0
	for fi, f := range s.Freqs {
		if f > s.Freqs[top] {
			top = fi
		}
	}
	return top
}

// NTime is the number of times.
func (s *Simulation) NTime() int { return s.Coords.NTimes() }

// NFeed is 2 for polarized runs and 1 otherwise (also the number of axes).
func (s *Simulation) NFeed() int { return s.Mode.NFeed() }

// OutputShape is the shape of the visibilities, as matvis's simulate_vis:
// (nfreq, ntimes, npairs) or (nfreq, ntimes, npairs, nfeed, nfeed).
func (s *Simulation) OutputShape() []int {
	if s.Options.Polarized {
		return []int{s.NFreq(), s.NTime(), len(s.Pairs), 2, 2}
	}
	return []int{s.NFreq(), s.NTime(), len(s.Pairs)}
}

// New validates a Config and returns the Simulation. Errors name the field
// and the offending value.
func New(c Config) (*Simulation, error) { return newSimulation(c, nil) }

// newSimulation is New, or, with from set, the Simulation of a block of
// from (Subset: c is from's Config windowed to the block). A block's
// sources, fluxes, channels and times are from's, or windows of them,
// all checked when from was made, so the per-source checks are not run
// again (at 10⁶ sources they held every block's start by milliseconds),
// and from's pairs are shared rather than copied (at 350 antennas 2 MB
// of fresh pages).
func newSimulation(c Config, from *Simulation) (*Simulation, error) {
	bad := func(format string, a ...any) error { return fmt.Errorf("matvis: "+format, a...) }
	if err := checkConfig(&c, from != nil); err != nil {
		return nil, bad("%w", err)
	}
	nant, nfreq, nsrc := len(c.Antennas), len(c.Freqs), len(c.RA)
	s := &Simulation{Config: c}
	var err error
	if s.BeamOf, err = beamOf(c); err != nil {
		return nil, bad("%w", err)
	}
	o := &s.Options
	autoMatProd, npairs, err := settleOptions(o, nant)
	if err != nil {
		return nil, bad("%w", err)
	}
	s.Mode = beam.Mode{Polarized: o.Polarized, Feed: o.Feed}
	if err := s.checkStokes(); err != nil {
		return nil, bad("%w", err)
	}
	// Sized before anything of nant² is allocated: the pair list itself
	// may be what does not fit.
	h := s.hostShape()
	h.npairs = npairs
	mp, err := planHost(h, o, autoMatProd)
	if err != nil {
		return nil, bad("%d antennas, %d baselines, %d channels × %d times, %d sources: %w", nant, npairs, nfreq, c.Coords.NTimes(), nsrc, err)
	}
	o.MatProd = mp
	if from != nil {
		s.Pairs = from.Pairs
	} else {
		s.Pairs = allPairs(nant, o.AntPairs)
	}
	// Every beam must be usable at every channel; finding out now spares a
	// failure after hours of earlier channels.
	for i, b := range c.Beams {
		for k, f := range c.Freqs {
			if err := beam.Check(b, f, s.Mode); err != nil {
				return nil, bad("beams[%d] (%v) at freqs[%d] = %g Hz: %w", i, b, k, f, err)
			}
		}
	}
	return s, nil
}

// checkConfig checks the configuration's antennas, frequencies, sky,
// coordinates and beams (ranges through checkRanges); sourcesChecked
// skips the checks of each source's position and fluxes (a block's,
// whose run checked them).
func checkConfig(c *Config, sourcesChecked bool) error {
	nant, nfreq, nsrc := len(c.Antennas), len(c.Freqs), len(c.RA)
	if nant == 0 {
		return fmt.Errorf("antennas: need at least one antenna")
	}
	if nfreq == 0 {
		return fmt.Errorf("freqs: need at least one frequency")
	}
	if err := checkRanges(c, sourcesChecked); err != nil {
		return err
	}
	if nsrc == 0 {
		return fmt.Errorf("sources: need at least one source")
	}
	if len(c.Dec) != nsrc {
		return fmt.Errorf("dec: %d values for %d sources", len(c.Dec), nsrc)
	}
	switch {
	case c.Sky != nil && c.Flux != nil:
		return fmt.Errorf("flux and sky are both set: give one")
	case c.Sky == nil && len(c.Flux) != nsrc*nfreq:
		return fmt.Errorf("flux: %d values, want nsrc·nfreq = %d·%d", len(c.Flux), nsrc, nfreq)
	}
	if !sourcesChecked {
		if err := checkFluxes(c.Flux, nfreq); err != nil {
			return err
		}
	}
	if c.Coords == nil {
		return fmt.Errorf("coords: no coordinate provider")
	}
	if c.Coords.NSources() != nsrc {
		return &CoordsMismatchError{fmt.Sprintf("coords: %d sources, the sky has %d", c.Coords.NSources(), nsrc)}
	}
	if c.Coords.NTimes() <= 0 {
		return fmt.Errorf("coords: no times")
	}
	if len(c.Times) != 0 && len(c.Times) != c.Coords.NTimes() {
		return &CoordsMismatchError{fmt.Sprintf("times: %d values, coordinates have %d times", len(c.Times), c.Coords.NTimes())}
	}
	nbeam := len(c.Beams)
	if nbeam == 0 {
		return fmt.Errorf("beams: need at least one beam")
	}
	for i, b := range c.Beams {
		if b == nil {
			return fmt.Errorf("beams[%d] is nil", i)
		}
	}
	return nil
}

// checkFluxes checks a flux table of nfreq channels a source.
func checkFluxes(flux []float64, nfreq int) error {
	for i, v := range flux {
		if !finite(v) || v < 0 {
			return fmt.Errorf("flux[source %d, freq %d] = %v: must be finite and not negative", i/nfreq, i%nfreq, v)
		}
	}
	return nil
}

// beamOf is each antenna's beam: c.BeamIdx, the one beam, or one beam per
// antenna.
func beamOf(c Config) ([]int, error) {
	nant, nbeam := len(c.Antennas), len(c.Beams)
	switch {
	case c.BeamIdx != nil:
		if len(c.BeamIdx) != nant {
			return nil, fmt.Errorf("beam_idx: %d entries for %d antennas", len(c.BeamIdx), nant)
		}
		for i, b := range c.BeamIdx {
			if b < 0 || b >= nbeam {
				return nil, fmt.Errorf("beam_idx[%d] = %d: out of range [0, %d)", i, b, nbeam)
			}
		}
		return append([]int(nil), c.BeamIdx...), nil
	case nbeam == 1:
		return make([]int, nant), nil
	case nbeam == nant:
		of := make([]int, nant)
		for i := range of {
			of[i] = i
		}
		return of, nil
	default:
		return nil, fmt.Errorf("beam_idx: null needs one beam or one per antenna; got %d beams for %d antennas", nbeam, nant)
	}
}

// settleOptions fills in o's defaults and checks it for nant antennas;
// autoMatProd says the matrix product was left to choose, npairs is the
// number of baselines asked for.
func settleOptions(o *Options, nant int) (autoMatProd bool, npairs int64, err error) {
	orDefault(&o.Precision, defaultPrecision)
	orDefault(&o.MinChunks, defaultMinChunks)
	orDefault(&o.SourceBuffer, defaultSourceBuffer)
	orDefault(&o.MemoryBuffer, defaultMemoryBuffer)
	if err := checkChunking(o.Precision, o.MinChunks, o.SourceBuffer, o.MemoryBuffer); err != nil {
		return false, 0, err
	}
	if o.Feed != beam.FeedX && o.Feed != beam.FeedY {
		return false, 0, fmt.Errorf("feed = %d: must be x or y", o.Feed)
	}
	autoMatProd = o.MatProd == ""
	orDefault(&o.MatProd, MatProdHerk)
	if o.MatProd != MatProdHerk && o.MatProd != MatProdPairs {
		return false, 0, fmt.Errorf("matprod = %q: must be herk or pairs", o.MatProd)
	}
	if o.MaxMemory < 0 {
		return false, 0, fmt.Errorf("max_memory = %d: must not be negative", o.MaxMemory)
	}
	npairs = int64(nant) * int64(nant)
	if o.AntPairs != nil {
		if len(o.AntPairs) == 0 {
			return false, 0, fmt.Errorf("antpairs: empty; use nil for all pairs")
		}
		for k, p := range o.AntPairs {
			if p[0] < 0 || p[0] >= nant || p[1] < 0 || p[1] >= nant {
				return false, 0, fmt.Errorf("antpairs[%d] = %v: antenna out of range [0, %d)", k, p, nant)
			}
		}
		npairs = int64(len(o.AntPairs))
	}
	return autoMatProd, npairs, nil
}

// checkStokes checks what a polarized sky needs: both feeds (pyuvsim,
// too, refuses a polarized sky with unpolarized beams), a PolBasis of the
// sky's sizes and a known rotation.
func (s *Simulation) checkStokes() error {
	o := &s.Options
	orDefault(&o.Rotation, RotationIAU)
	if o.Rotation != RotationPyradiosky && o.Rotation != RotationIAU {
		return fmt.Errorf("rotation = %q: must be %q or %q", o.Rotation, RotationPyradiosky, RotationIAU)
	}
	if !s.SkyPolarized() {
		return nil
	}
	switch {
	case !o.Polarized:
		return fmt.Errorf("sky: the sources have Stokes Q, U or V, which an unpolarized run (one feed's power beam) cannot see: set polarized (both feeds, E-field beams)")
	case s.PolBasis == nil:
		return fmt.Errorf("pol_basis: a polarized sky needs each source's polarization basis (matvis.FDBasis)")
	case s.PolBasis.NSources() != s.NSrc() || s.PolBasis.NTimes() != s.NTime():
		return fmt.Errorf("pol_basis: %d sources × %d times, the sky has %d × %d", s.PolBasis.NSources(), s.PolBasis.NTimes(), s.NSrc(), s.NTime())
	}
	return nil
}

// allPairs returns a copy of antPairs, or all nant² ordered pairs,
// row-major, when it is nil.
func allPairs(nant int, antPairs [][2]int) [][2]int {
	if antPairs != nil {
		return append([][2]int(nil), antPairs...)
	}
	p := make([][2]int, 0, nant*nant)
	for i := range nant {
		for j := range nant {
			p = append(p, [2]int{i, j})
		}
	}
	return p
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// matvis's defaults of the options that the memory model also reads: New
// and MemoryConfig fill in the same ones.
const (
	defaultPrecision    = 2
	defaultMinChunks    = 1
	defaultSourceBuffer = 1.0
	defaultMemoryBuffer = 0.9
)

// orDefault sets *p to def when *p is the zero value (an option left unset).
func orDefault[T comparable](p *T, def T) {
	var zero T
	if *p == zero {
		*p = def
	}
}

// checkChunking checks the options, defaults filled in, that both New and
// MemoryConfig.Validate accept or refuse.
func checkChunking(precision, minChunks int, sourceBuffer, memoryBuffer float64) error {
	switch {
	case precision != 1 && precision != 2:
		return fmt.Errorf("precision = %d: must be 1 or 2", precision)
	case minChunks < 1:
		return fmt.Errorf("min_chunks = %d: must be at least 1", minChunks)
	case !(sourceBuffer > 0 && sourceBuffer <= 1):
		return fmt.Errorf("source_buffer = %v: must be within (0, 1]", sourceBuffer)
	case !(memoryBuffer > 0 && memoryBuffer <= 1):
		return fmt.Errorf("memory_buffer = %v: must be within (0, 1]", memoryBuffer)
	}
	return nil
}

// Backend runs a simulation.
type Backend interface {
	// Name is "cpu" or "gpu".
	Name() string
	// Run simulates every frequency and time. On cancellation it returns
	// ctx's error together with a Result whose Done marks the finished
	// integrations, which are complete and correct.
	Run(ctx context.Context, sim *Simulation) (*Result, error)
	// Close releases what the backend holds (a GPU backend's device
	// context); the backend must not be used afterwards. It is a no-op on
	// the CPU, so every caller closes whatever backend it opened.
	Close() error
}

// CoordsMismatchError is a coordinate provider whose sources or times are
// not the run's: a caller that took the coordinates from a file (a
// precomputed --topo) can name the file in its message.
type CoordsMismatchError struct{ msg string }

func (e *CoordsMismatchError) Error() string { return e.msg }
