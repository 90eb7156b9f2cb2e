package astro

import (
	"context"
	"math"
	"sync"

	"github.com/gomatvis/gomatvis/internal/matrix3"
)

// erfaRotation is MethodERFA (matvis CoordinateRotationERFA).
type erfaRotation struct {
	*base
	anchor []int // time index whose BCRS step serves each time

	mu       sync.Mutex
	cache    map[int]*bcrsEntry
	order    []int // anchors in insertion order, for eviction
	maxCache int
}

// bcrsEntry holds the BCRS-step vectors of one anchor time, computed by
// the first caller whose computation is not cancelled (mu: the others
// wait for it).
type bcrsEntry struct {
	mu      sync.Mutex
	ready   bool
	x, y, z []float64
}

// newERFA assigns every time its BCRS anchor the way matvis walks the
// times in order: the first time is an anchor, and a later time becomes
// one when it is more than every seconds after the current anchor.
func newERFA(b *base, every float64) *erfaRotation {
	r := &erfaRotation{base: b, anchor: make([]int, len(b.epochs)), cache: map[int]*bcrsEntry{}}
	cur := 0
	for i := range b.epochs {
		if i > 0 && b.epochs[i].taiSecondsSince(&b.epochs[cur]) > every {
			cur = i
		}
		r.anchor[i] = cur
	}
	// Keep at most ~64 MB of cached vectors, and at least two anchors.
	r.maxCache = max(2, (64<<20)/(24*max(1, len(b.px))))
	return r
}

// bcrs returns the BCRS-step vectors of anchor time index ai, computing them
// once. A computation stopped by ctx (it covers every source: seconds at
// 10⁷) returns ctx's error and leaves the entry to the next caller.
func (r *erfaRotation) bcrs(ctx context.Context, ai int) (*bcrsEntry, error) {
	r.mu.Lock()
	e, ok := r.cache[ai]
	if !ok {
		e = &bcrsEntry{}
		r.cache[ai] = e
		r.order = append(r.order, ai)
		if len(r.order) > r.maxCache {
			delete(r.cache, r.order[0])
			r.order = r.order[1:]
		}
	}
	r.mu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.ready {
		a := r.astromAt(ai)
		n := len(r.px)
		x, y, z := make([]float64, n), make([]float64, n), make([]float64, n)
		if err := bcrsStep(ctx, a, r.px, r.py, r.pz, x, y, z); err != nil {
			return nil, err
		}
		e.x, e.y, e.z, e.ready = x, y, z, true
	}
	return e, nil
}

// bcrsStep applies matvis's Cartesian light deflection, aberration and
// bias-precession-nutation (matvis-conventions §4.2 step 2) to the unit
// vectors (px, py, pz), writing (ox, oy, oz); it stops within a block of
// sources of ctx's cancel, returning its error.
func bcrsStep(ctx context.Context, a *astrom, px, py, pz, ox, oy, oz []float64) error {
	e := a.eh
	v := a.v
	bm1 := a.bm1
	srsEm := srs / a.em
	m := a.bpn
	e0, e1, e2 := e[0], e[1], e[2]
	v0, v1, v2 := v[0], v[1], v[2]
	return parallelForContext(ctx, len(px), func(lo, hi int) {
		px, py, pz := px[lo:hi], py[lo:hi], pz[lo:hi]
		ox, oy, oz := ox[lo:hi], oy[lo:hi], oz[lo:hi]
		for i := range px {
			x, y, z := px[i], py[i], pz[i]
			// Sun light deflection, p += w · p × (e × p).
			q := x*(x+e0) + y*(y+e1) + z*(z+e2)
			if q < 1e-6 {
				q = 1e-6
			}
			w := srsEm / q
			c0, c1, c2 := e1*z-e2*y, e2*x-e0*z, e0*y-e1*x // e × p
			x, y, z = x+w*(y*c2-z*c1), y+w*(z*c0-x*c2), z+w*(x*c1-y*c0)
			// Aberration; the last term uses the bm1-scaled vector as matvis does.
			pdv := x*v0 + y*v1 + z*v2
			w1 := 1 + pdv/(1+bm1)
			sx, sy, sz := bm1*x, bm1*y, bm1*z
			x = sx + w1*v0 + srsEm*(v0-pdv*sx)
			y = sy + w1*v1 + srsEm*(v1-pdv*sy)
			z = sz + w1*v2 + srsEm*(v2-pdv*sz)
			r := 1 / math.Sqrt(x*x+y*y+z*z)
			x, y, z = x*r, y*r, z*r
			// Bias-precession-nutation.
			ox[i] = m[0][0]*x + m[0][1]*y + m[0][2]*z
			oy[i] = m[1][0]*x + m[1][1]*y + m[1][2]*z
			oz[i] = m[2][0]*x + m[2][1]*y + m[2][2]*z
		}
	})
}

// enuMatrix is E·W·R of matvis-conventions §4.2 step 3 for context a.
func (a *astrom) enuMatrix() mat3 {
	sl, cl := math.Sincos(a.eral)
	R := mat3{{cl, sl, 0}, {-sl, cl, 0}, {0, 0, 1}}
	sx, cx := math.Sincos(a.xpl)
	sy, cy := math.Sincos(a.ypl)
	W := mat3{{cx, 0, sx}, {sx * sy, cy, -cx * sy}, {-sx * cy, sy, cx * cy}}
	E := mat3{{0, 1, 0}, {-a.sphi, 0, a.cphi}, {a.cphi, 0, a.sphi}}
	return matrix3.Mul(E, matrix3.Mul(W, R))
}

func (r *erfaRotation) Matrix(ti int) ([9]float64, error) {
	if err := r.checkIndex(ti); err != nil {
		return [9]float64{}, err
	}
	m := r.astromAt(ti).enuMatrix()
	return [9]float64{m[0][0], m[0][1], m[0][2], m[1][0], m[1][1], m[1][2], m[2][0], m[2][1], m[2][2]}, nil
}

func (r *erfaRotation) CachedVectors(ti int) (x, y, z []float64, err error) {
	if err := r.checkIndex(ti); err != nil {
		return nil, nil, nil, err
	}
	e, err := r.bcrs(context.Background(), r.anchor[ti])
	if err != nil {
		return nil, nil, nil, err
	}
	return e.x, e.y, e.z, nil
}

func (r *erfaRotation) ENU(ti int, east, north, up []float64) error {
	return r.ENUContext(context.Background(), ti, east, north, up)
}

// ENUContext is ENU that stops within a block of sources of ctx's
// cancel, returning its error (matvis.ContextCoordinates), in the BCRS
// step of a refresh too (then left for the next call to compute).
func (r *erfaRotation) ENUContext(ctx context.Context, ti int, east, north, up []float64) error {
	if err := r.check(ti, east, north, up); err != nil {
		return err
	}
	m := r.astromAt(ti).enuMatrix()
	e, err := r.bcrs(ctx, r.anchor[ti])
	if err != nil {
		return err
	}
	x, y, z := e.x, e.y, e.z
	return parallelForContext(ctx, len(x), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			a, b, c := x[i], y[i], z[i]
			east[i] = m[0][0]*a + m[0][1]*b + m[0][2]*c
			north[i] = m[1][0]*a + m[1][1]*b + m[1][2]*c
			up[i] = m[2][0]*a + m[2][1]*b + m[2][2]*c
		}
	})
}

// SRS is the Schwarzschild radius of the Sun in au, the light-deflection
// constant of the BCRS step (matvis-conventions §4.2 step 2).
const SRS = srs

// BCRSParams are the constants of one refresh of the ERFA method's BCRS
// step (matvis-conventions §4.2 step 2), from the astrometry context of the
// refresh's time: what a device needs to redo the step from the ECI unit
// vectors exactly as the CPU does.
type BCRSParams struct {
	// Anchor is the time index whose context the step uses: times with
	// the same Anchor share their BCRS-step vectors.
	Anchor int
	// Eh is the heliocentric direction of the observer (unit vector).
	Eh [3]float64
	// Em is the observer–Sun distance, au.
	Em float64
	// V is the observer's barycentric velocity, units of c.
	V [3]float64
	// Bm1 is sqrt(1 − |V|²), the reciprocal Lorentz factor.
	Bm1 float64
	// BPN is the bias-precession-nutation matrix, row-major.
	BPN [9]float64
}

// BCRSRotation is implemented by the ERFA method: CachedVectors(ti) is the
// BCRS step (with the constants BCRSParams(ti)) applied to the fixed ECI
// unit vectors, so a device can hold the ECI vectors once and redo the step
// itself instead of receiving new vectors at every refresh.
type BCRSRotation interface {
	MatrixRotation
	// ECI returns the ICRS unit vectors (cos ra cos dec, sin ra cos dec,
	// sin dec), computed once (read-only; shared with other callers).
	ECI() (x, y, z []float64)
	// BCRSParams returns the BCRS-step constants of the refresh that time
	// index ti uses.
	BCRSParams(ti int) (BCRSParams, error)
}

var _ BCRSRotation = (*erfaRotation)(nil)

func (r *erfaRotation) ECI() (x, y, z []float64) { return r.px, r.py, r.pz }

func (r *erfaRotation) BCRSParams(ti int) (BCRSParams, error) {
	if err := r.checkIndex(ti); err != nil {
		return BCRSParams{}, err
	}
	ai := r.anchor[ti]
	a := r.astromAt(ai)
	p := BCRSParams{Anchor: ai, Eh: a.eh, Em: a.em, V: a.v, Bm1: a.bm1}
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			p.BPN[3*i+j] = a.bpn[i][j]
		}
	}
	return p, nil
}
