package matvis

import (
	"context"
	"fmt"

	"github.com/gomatvis/gomatvis/matvis/astro"
)

// Block is a rectangle of a simulation's (frequency, time) grid: channels
// [F0, F1) and times [T0, T1).
type Block struct {
	F0, F1 int
	T0, T1 int
}

// NFreq is the block's channel count.
func (b Block) NFreq() int { return b.F1 - b.F0 }

// NTime is the block's time count.
func (b Block) NTime() int { return b.T1 - b.T0 }

// Size is the block's number of integrations.
func (b Block) Size() int { return b.NFreq() * b.NTime() }

// String is "freqs [F0, F1) × times [T0, T1)".
func (b Block) String() string {
	return fmt.Sprintf("freqs [%d, %d) × times [%d, %d)", b.F0, b.F1, b.T0, b.T1)
}

// within checks that b is a non-empty block of an nfreq × ntime grid.
func (b Block) within(nfreq, ntime int) error {
	if b.F0 < 0 || b.F1 > nfreq || b.F0 >= b.F1 || b.T0 < 0 || b.T1 > ntime || b.T0 >= b.T1 {
		return fmt.Errorf("matvis: block %v: not a non-empty block of %d freqs × %d times", b, nfreq, ntime)
	}
	return nil
}

// Subset returns the simulation of block b of s: the same sky, array,
// beams and options over channels [F0, F1) and times [T0, T1). Its
// coordinates are s's, re-indexed (time i of the subset is time T0+i of
// s), so every integration gets exactly the inputs it gets in s. The chunk
// plan is the backend's for the subset, which may differ from the full
// run's when memory is short (the chunks then sum the sources in another
// order: equal to rounding, not bit for bit); MinChunks pins it.
func (s *Simulation) Subset(b Block) (*Simulation, error) {
	if err := b.within(s.NFreq(), s.NTime()); err != nil {
		return nil, err
	}
	c := s.Config
	c.Freqs = s.Freqs[b.F0:b.F1:b.F1]
	if len(s.Times) != 0 {
		c.Times = s.Times[b.T0:b.T1:b.T1]
	}
	if b.T0 != 0 || b.T1 != s.NTime() {
		c.Coords = window(s.Coords, b.T0, b.NTime())
		if s.PolBasis != nil {
			c.PolBasis = basisWindow(s.PolBasis, b.T0, b.NTime())
		}
	}
	if s.Flux != nil && (b.F0 != 0 || b.F1 != s.NFreq()) {
		c.Flux = subFlux(s.Flux, s.NFreq(), b.F0, b.F1)
	}
	c.Options.AntPairs = s.Pairs
	c.Options.OutputTimes = 0 // a block's result is held whole
	c.Options.OutputStreamed = false
	return newSimulation(c, s)
}

// SubsetZeroed is Subset whose NewResult puts the block's visibilities
// into the front of buf's storage (a result of an earlier block of s, of
// the same precision and at least as large), which must be zero already:
// new, or cleared by the caller since its last block. A caller that
// streams blocks to a writer (matvis/output) reuses two buffers instead of
// allocating every block, and clears them off the run's critical path
// (the writer's goroutine), where a 64 MB clear, or a new buffer's first
// page faults, would hold the compute. Without room in buf it is Subset.
func (s *Simulation) SubsetZeroed(b Block, buf *Result) (*Simulation, error) {
	sub, err := s.Subset(b)
	if err != nil || buf == nil || buf.Precision != sub.Options.Precision {
		return sub, err
	}
	n := b.Size() * integrationSize(sub.OutputShape())
	v := &resultView{}
	switch {
	case buf.Precision == 1 && cap(buf.Vis64) >= n:
		v.vis64 = buf.Vis64[:n:n]
	case buf.Precision != 1 && cap(buf.Vis128) >= n:
		v.vis128 = buf.Vis128[:n:n]
	default:
		return sub, nil
	}
	sub.out = v
	return sub, nil
}

// resultView is the visibilities of a block inside a larger result.
type resultView struct {
	vis64  []complex64
	vis128 []complex128
}

// SubsetInto is Subset for a run whose result goes into whole (a result of
// s, e.g. NewResult(s)): when block b's integrations are contiguous in
// whole (one channel, or every time of its channels), the subset's
// NewResult writes straight into whole's memory, so a multi-device run
// holds its output once and PutBlock has nothing to copy. Otherwise it is
// Subset.
func (s *Simulation) SubsetInto(b Block, whole *Result) (*Simulation, error) {
	sub, err := s.Subset(b)
	if err != nil {
		return nil, err
	}
	nt := s.NTime()
	if whole == nil || !(b.NFreq() == 1 || b.NTime() == nt) || len(whole.Shape) < 2 ||
		whole.Shape[0] != s.NFreq() || whole.Shape[1] != nt || whole.Precision != sub.Options.Precision {
		return sub, nil
	}
	inner := 1
	for _, d := range whole.Shape[2:] {
		inner *= d
	}
	lo, hi := (b.F0*nt+b.T0)*inner, ((b.F1-1)*nt+b.T1)*inner
	v := &resultView{}
	switch {
	case whole.Precision == 1 && len(whole.Vis64) >= hi:
		v.vis64 = whole.Vis64[lo:hi:hi]
	case whole.Precision != 1 && len(whole.Vis128) >= hi:
		v.vis128 = whole.Vis128[lo:hi:hi]
	default:
		return sub, nil
	}
	sub.out = v
	return sub, nil
}

// subFlux is the columns [f0, f1) of a source-major nsrc × nfreq table.
func subFlux(flux []float64, nfreq, f0, f1 int) []float64 {
	nsrc := len(flux) / nfreq
	nf := f1 - f0
	out := make([]float64, nsrc*nf)
	for src := range nsrc {
		copy(out[src*nf:(src+1)*nf], flux[src*nfreq+f0:src*nfreq+f1])
	}
	return out
}

// window is times [t0, t0+nt) of c. It keeps the ERFA method's
// astro.MatrixRotation and astro.BCRSRotation (time indices shifted), so
// a GPU backend keeps doing the rotation and the BCRS step on the device
// for a block as it does for the whole run.
func window(c Coordinates, t0, nt int) Coordinates {
	w := timeWindow{c: c, t0: t0, nt: nt}
	switch r := c.(type) {
	case astro.BCRSRotation:
		return bcrsWindow{matrixWindow{w, r}, r}
	case astro.MatrixRotation:
		return matrixWindow{w, r}
	}
	return w
}

// basisWindow is times [t0, t0+nt) of a polarization basis. The bases
// matvis builds window their own coordinates, so that a backend sees the
// type it knows (the GPU makes FDBasis's and RigidBasis's factors on the
// device); any other PolBasis is wrapped.
func basisWindow(b PolBasis, t0, nt int) PolBasis {
	switch v := b.(type) {
	case *FDBasis:
		return &FDBasis{center: window(v.center, t0, nt), nb: [2]Coordinates{window(v.nb[0], t0, nt), window(v.nb[1], t0, nt)}}
	case *RigidBasis:
		return &RigidBasis{ra: v.ra, dec: v.dec, src: window(v.src, t0, nt), axes: window(v.axes, t0, nt)}
	}
	return polTimeWindow{b, t0, nt}
}

// polTimeWindow is times [t0, t0+nt) of any PolBasis.
type polTimeWindow struct {
	b      PolBasis
	t0, nt int
}

func (w polTimeWindow) NSources() int { return w.b.NSources() }
func (w polTimeWindow) NTimes() int   { return w.nt }
func (w polTimeWindow) Basis(ti int, cosX, sinX []float64) error {
	if ti < 0 || ti >= w.nt {
		return fmt.Errorf("matvis: polarization basis: time index %d out of range [0, %d)", ti, w.nt)
	}
	return w.b.Basis(w.t0+ti, cosX, sinX)
}

// timeWindow is times [t0, t0+nt) of a Coordinates.
type timeWindow struct {
	c      Coordinates
	t0, nt int
}

func (w timeWindow) NSources() int { return w.c.NSources() }
func (w timeWindow) NTimes() int   { return w.nt }
func (w timeWindow) ENU(ti int, east, north, up []float64) error {
	if ti < 0 || ti >= w.nt {
		return fmt.Errorf("matvis: time index %d out of range [0, %d)", ti, w.nt)
	}
	return w.c.ENU(w.t0+ti, east, north, up)
}

// ENUContext passes ctx on, so that a block stops as its whole run would.
func (w timeWindow) ENUContext(ctx context.Context, ti int, east, north, up []float64) error {
	if ti < 0 || ti >= w.nt {
		return fmt.Errorf("matvis: time index %d out of range [0, %d)", ti, w.nt)
	}
	return ENUContext(ctx, w.c, w.t0+ti, east, north, up)
}

// PrefetchENU forwards to the windowed coordinates (ENUPrefetcher).
func (w timeWindow) PrefetchENU(ctx context.Context, ti int) {
	if ti >= 0 && ti < w.nt {
		PrefetchENU(ctx, w.c, w.t0+ti)
	}
}

// PutBlock copies sub, the result of s.Subset(b), into r, the result of s,
// marking its finished integrations done. Shapes must agree.
func (r *Result) PutBlock(b Block, sub *Result) error {
	if err := b.within(r.Shape[0], r.Shape[1]); err != nil {
		return err
	}
	if sub.Precision != r.Precision || len(sub.Shape) != len(r.Shape) || sub.Shape[0] != b.NFreq() || sub.Shape[1] != b.NTime() {
		return fmt.Errorf("matvis: block %v: result of shape %v (precision %d) does not fit a block of %v (precision %d)", b, sub.Shape, sub.Precision, r.Shape, r.Precision)
	}
	inner := 1
	for i, d := range r.Shape[2:] {
		if sub.Shape[2+i] != d {
			return fmt.Errorf("matvis: block %v: result of shape %v does not fit %v", b, sub.Shape, r.Shape)
		}
		inner *= d
	}
	for f := range b.NFreq() {
		for t := range b.NTime() {
			if !sub.Done[f*b.NTime()+t] {
				continue
			}
			src := (f*b.NTime() + t) * inner
			dst := ((b.F0+f)*r.Shape[1] + b.T0 + t) * inner
			// A result of SubsetInto already lies in r: nothing to copy.
			if r.Precision == 1 {
				if inner > 0 && &r.Vis64[dst] != &sub.Vis64[src] {
					copy(r.Vis64[dst:dst+inner], sub.Vis64[src:src+inner])
				}
			} else if inner > 0 && &r.Vis128[dst] != &sub.Vis128[src] {
				copy(r.Vis128[dst:dst+inner], sub.Vis128[src:src+inner])
			}
			r.Done[(b.F0+f)*r.Shape[1]+b.T0+t] = true
		}
	}
	return nil
}

// index maps a window time index to the underlying one.
func (w timeWindow) index(ti int) (int, error) {
	if ti < 0 || ti >= w.nt {
		return 0, fmt.Errorf("matvis: time index %d out of range [0, %d)", ti, w.nt)
	}
	return w.t0 + ti, nil
}

// matrixWindow is a timeWindow of an astro.MatrixRotation.
type matrixWindow struct {
	timeWindow
	r astro.MatrixRotation
}

func (w matrixWindow) Matrix(ti int) ([9]float64, error) {
	i, err := w.index(ti)
	if err != nil {
		return [9]float64{}, err
	}
	return w.r.Matrix(i)
}

func (w matrixWindow) CachedVectors(ti int) (x, y, z []float64, err error) {
	i, err := w.index(ti)
	if err != nil {
		return nil, nil, nil, err
	}
	return w.r.CachedVectors(i)
}

// bcrsWindow is a timeWindow of an astro.BCRSRotation. BCRSParams.Anchor
// stays a time index of the whole run: it only tells which times share
// their BCRS step.
type bcrsWindow struct {
	matrixWindow
	b astro.BCRSRotation
}

func (w bcrsWindow) ECI() (x, y, z []float64) { return w.b.ECI() }

func (w bcrsWindow) BCRSParams(ti int) (astro.BCRSParams, error) {
	i, err := w.index(ti)
	if err != nil {
		return astro.BCRSParams{}, err
	}
	return w.b.BCRSParams(i)
}
