package matvis

import (
	"context"
	"fmt"
	"math"

	"github.com/gomatvis/gomatvis/internal/blocks"
)

// Coordinates gives the topocentric ENU unit vectors of every source at
// every time. astro.Rotation implements it, and so does Precomputed.
type Coordinates interface {
	NSources() int
	NTimes() int
	// ENU writes the east, north and up components of every source at time
	// index ti (each slice NSources long).
	ENU(ti int, east, north, up []float64) error
}

// ContextCoordinates is Coordinates whose ENU can stop part-way: the
// rotation of 10⁷ sources takes seconds, longer than a cancel may wait.
// astro's rotations and Precomputed implement it; use ENUContext, which
// takes any Coordinates.
type ContextCoordinates interface {
	Coordinates
	// ENUContext is ENU that stops soon after ctx is done (within a
	// block of sources) and then returns ctx's error, leaving the
	// slices partly written.
	ENUContext(ctx context.Context, ti int, east, north, up []float64) error
}

// ENUContext writes c's vectors of time ti, stopping within a block of
// sources of a cancel when c is a ContextCoordinates; any other
// Coordinates runs to its end, with ctx checked before and after. On a
// cancel it returns ctx's error and the slices hold no whole result.
func ENUContext(ctx context.Context, c Coordinates, ti int, east, north, up []float64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if cc, ok := c.(ContextCoordinates); ok {
		return cc.ENUContext(ctx, ti, east, north, up)
	}
	if err := c.ENU(ti, east, north, up); err != nil {
		return err
	}
	return ctx.Err()
}

// ENUPrefetcher is Coordinates that can start making a time's vectors on
// goroutines of their own, ahead of the ENU call that asks for them
// (astro's astropy method, and a block's window onto it).
type ENUPrefetcher interface {
	PrefetchENU(ctx context.Context, ti int)
}

// PrefetchENU starts making c's vectors of time ti ahead when c can
// (ENUPrefetcher), stopping when ctx is done; otherwise it does nothing.
// The ENU call for ti then copies them out instead of making them.
func PrefetchENU(ctx context.Context, c Coordinates, ti int) {
	if p, ok := c.(ENUPrefetcher); ok {
		p.PrefetchENU(ctx, ti)
	}
}

// Precomputed holds ENU vectors computed elsewhere, e.g. astropy's, laid out
// like matvis's topo.npy: (ntimes, 3, nsrc) row-major.
type Precomputed struct {
	nt, ns int
	data   []float64
}

// NewPrecomputed wraps a (ntimes, 3, nsrc) array. Every value must be finite.
func NewPrecomputed(ntimes, nsrc int, data []float64) (*Precomputed, error) {
	if ntimes <= 0 || nsrc <= 0 || len(data) != ntimes*3*nsrc {
		return nil, fmt.Errorf("matvis: precomputed topo: %d values do not fit shape (%d, 3, %d)", len(data), ntimes, nsrc)
	}
	for i, v := range data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t, r := i/(3*nsrc), i%(3*nsrc)
			return nil, fmt.Errorf("matvis: precomputed topo[%d, %d, %d] = %v: must be finite", t, r/nsrc, r%nsrc, v)
		}
	}
	return &Precomputed{ntimes, nsrc, data}, nil
}

// NSources is the number of sources.
func (p *Precomputed) NSources() int { return p.ns }

// NTimes is the number of times.
func (p *Precomputed) NTimes() int { return p.nt }

// ENU copies the vectors of time ti.
func (p *Precomputed) ENU(ti int, east, north, up []float64) error {
	return p.ENUContext(context.Background(), ti, east, north, up)
}

// ENUContext is ENU copying a block of sources at a time, checking ctx
// between blocks.
func (p *Precomputed) ENUContext(ctx context.Context, ti int, east, north, up []float64) error {
	if ti < 0 || ti >= p.nt {
		return fmt.Errorf("matvis: time index %d out of range [0, %d)", ti, p.nt)
	}
	base := ti * 3 * p.ns
	return blocks.RunContext(ctx, p.ns, 1, 0, func(lo, hi int) {
		copy(east[lo:hi], p.data[base+lo:base+hi])
		copy(north[lo:hi], p.data[base+p.ns+lo:base+p.ns+hi])
		copy(up[lo:hi], p.data[base+2*p.ns+lo:base+2*p.ns+hi])
	})
}

// AzZa converts ENU components to the beam angles matvis uses ("uvbeam"
// orientation): za = π/2 − asin(√(1 − e² − n²)) with the root taken as 0
// when e² + n² ≥ 1, and az = (π/2 − atan2(e, n)) mod 2π, i.e. azimuth from
// East towards North. Only e and n are used, as in matvis.
func AzZa(e, n float64) (az, za float64) {
	r := 1 - e*e - n*n
	if r < 0 {
		r = 0
	}
	za = math.Pi/2 - math.Asin(math.Sqrt(r))
	az = math.Mod(math.Pi/2-math.Atan2(e, n), 2*math.Pi)
	if az < 0 {
		az += 2 * math.Pi
	}
	return az, za
}
