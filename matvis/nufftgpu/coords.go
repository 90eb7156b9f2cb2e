package nufftgpu

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/matvis/nufft"
)

// coords are one side's (points' or targets') coordinates on the device:
// per active axis, the first grid index of each item's kernel and its
// offset (first − coordinate), axis-major ([d·n + i]); the permutation
// between the sorted order and the caller's; and the phase (pre or post)
// of each sorted item. The buffers hold capacity items (SetPoints reuses
// them for as many).
type coords struct {
	n, capacity  int
	first, off   cuda.DevicePtr
	order, phase cuda.DevicePtr
}

// uploadCoords splits sorted coordinates x (per active axis, n each) into
// first indices and offsets (the kernel's first point is ⌈x − W/2⌉, as in
// matvis/nufft) and uploads them with the order and phases into cd,
// growing its buffers when n is over their capacity.
func (t *Transform) uploadCoords(cd *coords, x [3][]float64, n int, order []int32, phase []complex128) error {
	dim := t.lay.Dim
	r := t.prec.realBytes()
	if len(order) != n || len(phase) != n {
		return fmt.Errorf("nufftgpu: %d coordinates with %d indices and %d phases: the plan's layout is incomplete", n, len(order), len(phase))
	}
	if err := t.reserveCoords(cd, dim, n, r); err != nil {
		return err
	}
	cd.n = n
	first, off := splitCoords(x, dim, n, t.lay.W)
	if err := put(t, cd.first, first); err != nil {
		return err
	}
	if err := t.putReals(cd.off, off); err != nil {
		return err
	}
	if err := put(t, cd.order, order); err != nil {
		return err
	}
	return t.putComplex(cd.phase, phase)
}

// reserveCoords makes cd's buffers hold n items of dim axes with reals
// of r bytes, keeping them when they already do.
func (t *Transform) reserveCoords(cd *coords, dim, n int, r int64) error {
	if n <= cd.capacity && cd.first != 0 {
		return nil
	}
	if err := t.release(cd.first, cd.off, cd.order, cd.phase); err != nil {
		return fmt.Errorf("nufftgpu: %w", err)
	}
	*cd = coords{}
	sizes := []int64{int64(dim*n) * 4, int64(dim*n) * r, int64(n) * 4, int64(n) * 2 * r}
	for i, p := range []*cuda.DevicePtr{&cd.first, &cd.off, &cd.order, &cd.phase} {
		var err error
		if *p, err = t.alloc(sizes[i]); err != nil {
			return err
		}
	}
	cd.capacity = n
	return nil
}

// splitCoords splits each of n coordinates per axis (dim axes) into the
// first grid index its kernel of width w reaches, ⌈x − w/2⌉ (matvis/nufft's
// convention), and the offset first − x ∈ [−w/2, −w/2 + 1), axis-major.
func splitCoords(x [3][]float64, dim, n, w int) (first []int32, off []float64) {
	first = make([]int32, dim*n)
	off = make([]float64, dim*n)
	half := 0.5 * float64(w)
	for d := range dim {
		for i, v := range x[d] {
			f := math.Ceil(v - half)
			first[d*n+i] = int32(f)
			off[d*n+i] = f - v
		}
	}
	return first, off
}

// SetPoints makes the transform's points those of pl after a
// pl.SetPoints (the same plan the transform was made from, or one with
// the same targets and grids): a sky turning over fixed baselines uploads
// only its points each integration. The points' buffers grow when pl has
// more points than they hold.
func (t *Transform) SetPoints(pl *nufft.Plan) error {
	l := pl.Layout()
	if l.Dim != t.lay.Dim || l.W != t.lay.W || l.NF != t.lay.NF || l.N2 != t.lay.N2 || l.M != t.lay.M {
		return fmt.Errorf("nufftgpu: SetPoints: plan of %d-D grid %v, kernel %d, %d targets; the transform's is %d-D %v, %d, %d",
			l.Dim, l.N2, l.W, l.M, t.lay.Dim, t.lay.N2, t.lay.W, t.lay.M)
	}
	if err := t.uploadCoords(&t.pts, l.P, l.N, l.Perm, l.Pre); err != nil {
		return err
	}
	t.lay, t.stale = l, false
	return nil
}

// put copies v into the device buffer p.
func put[T any](t *Transform, p cuda.DevicePtr, v []T) error {
	if err := cuda.Upload(t.c, p, v, t.s); err != nil {
		var z T
		return fmt.Errorf("nufftgpu: upload %d × %d bytes: %w", len(v), unsafe.Sizeof(z), err)
	}
	return nil
}

// putReals copies v into p in the transform's precision.
func (t *Transform) putReals(p cuda.DevicePtr, v []float64) error {
	if t.prec == Double {
		return put(t, p, v)
	}
	f := make([]float32, len(v))
	for i, x := range v {
		f[i] = float32(x)
	}
	return put(t, p, f)
}

// putComplex copies v into p in the transform's precision.
func (t *Transform) putComplex(p cuda.DevicePtr, v []complex128) error {
	if t.prec == Double {
		return put(t, p, v)
	}
	return put(t, p, toComplex64(v))
}

// growPoints makes the points' buffers hold n points, keeping them when
// they already do.
func (t *Transform) growPoints(n int) error {
	return t.reserveCoords(&t.pts, t.lay.Dim, n, t.prec.realBytes())
}

// placeMargin is how far (outer-grid cells) Place lets a point past the
// plan's extent before clamping it: within the cell of margin the grid
// has beyond the kernel's half width (nufft's axis sizing), so a point
// there is transformed as accurately as one inside.
const placeMargin = 0.5

// ReservePoints makes room for Place to place up to n points without
// allocating (a caller that allocates once, before its loop).
func (t *Transform) ReservePoints(n int) error { return t.growPoints(n) }

// Place queues the placement of n points whose coordinates are already on
// the device, in the transform's precision, one array per active axis
// (x[d][i], the caller's order; x[d] for an inactive axis is not read):
// the plan's point map (nufft.Layout.PointScale, PointShift) on the
// device, with no sort — the points stay in the caller's order, and
// spreading them costs more when that order is far from the grid's. Each
// coordinate must lie in the extent the plan was made for; one a rounding
// past it is transformed as it is, one further than placeMargin cells
// (or NaN) is clamped there, so that no point reaches outside the grid. The plan must need no pre-phase (its
// targets centred at 0: nufft.Options.Real); the points' strengths are
// then Execute's c, n per vector.
func (t *Transform) Place(n int, x [3]cuda.DevicePtr) error {
	l := &t.lay
	if l.PrePhased {
		return fmt.Errorf("nufftgpu: Place: the plan's targets are not centred at 0, so its points need pre-phases (plan with nufft.Options.Real)")
	}
	if n < 0 {
		return fmt.Errorf("nufftgpu: Place: %d points", n)
	}
	if err := t.growPoints(n); err != nil {
		return err
	}
	t.pts.n, t.stale = n, false
	if n == 0 {
		return nil
	}
	var xs [3]cuda.DevicePtr
	for d := range 3 {
		xs[d] = x[min(d, l.Dim-1)] // an inactive axis: any valid pointer, unread
	}
	cd := t.pts
	// The clamp leaves half a cell of the grid's margin (nufft.Layout)
	// on either side: a coordinate a rounding past the extent is placed
	// where it is, exactly; only one far outside it (or NaN) is moved.
	var lo, hi [3]float64
	for d := range 3 {
		lo[d], hi[d] = l.PointLo[d]-placeMargin, l.PointHi[d]+placeMargin
	}
	return wrapErr("place points", t.k.placePoints(t.s, int64(n), xs[0], xs[1], xs[2],
		l.PointScale[0], l.PointScale[1], l.PointScale[2], l.PointShift[0], l.PointShift[1], l.PointShift[2],
		lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], cd.first, cd.off, cd.order, cd.phase))
}

// Retarget makes the transform's targets, phases and corrections those of
// plan pl: RetargetTo(NewTargets(pl, precision)).
func (t *Transform) Retarget(pl *nufft.Plan) error {
	tg, err := NewTargets(pl, t.prec)
	if err != nil {
		return err
	}
	return t.RetargetTo(tg)
}
