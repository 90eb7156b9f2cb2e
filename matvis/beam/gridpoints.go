package beam

import (
	"fmt"
	"math"
	"runtime"

	"github.com/gomatvis/gomatvis/internal/blocks"
)

// GridPoints are directions located on the planes of one grid geometry:
// for each direction its spline footprint (the node rows and columns and
// their weights along each axis) or a mark that it lies outside the grid.
// The footprint depends only on the direction and the geometry (the axes'
// size and extent and the spline order), not on the beam, so one
// GridPoints serves every GriddedResponse whose grid it Fits; locating the
// directions once spares that arithmetic for every further beam.
//
// The zero value is empty; Reset sizes it for a geometry. A GridPoints is
// reused across calls (Reset keeps its storage).
type GridPoints struct {
	geom pointGeom
	pts  []gridPoint
}

// pointGeom is what a footprint depends on.
type pointGeom struct {
	nza, naz                       int
	zaMin, zaScale, azMin, azScale float64
	order                          int
	// clamp, with the steps and cover: az_za_simple (PlaneGrid.Clamp).
	clamp                 bool
	zaStep, azStep, cover float64
}

// gridPoint is one located direction: node index = row[a] + col[b] for
// a, b ≤ order, weight wz[a]·wa[b]; row[0] < 0 marks a direction outside
// the grid.
type gridPoint struct {
	row, col [4]int32
	wz, wa   [4]float64
}

func geomOf(g PlaneGrid) pointGeom {
	p := pointGeom{nza: g.NZa, naz: g.NAz, zaMin: g.ZaMin, zaScale: g.ZaScale, azMin: g.AzMin, azScale: g.AzScale, order: g.Order}
	if g.Clamp {
		p.clamp, p.zaStep, p.azStep, p.cover = true, g.ZaStep, g.AzStep, g.CoverRad
	}
	return p
}

// Reset makes p hold n directions, not yet located, on grid g's geometry.
// It fails for a spline order other than 1 or 3 and for grids of 2³¹ or
// more nodes.
func (p *GridPoints) Reset(g PlaneGrid, n int) error {
	if g.Order != 1 && g.Order != 3 {
		return fmt.Errorf("beam: grid points: spline order %d: want 1 or 3", g.Order)
	}
	if g.NZa < 1 || g.NAz < 1 || int64(g.NZa)*int64(g.NAz) > math.MaxInt32 {
		return fmt.Errorf("beam: grid points: %d × %d grid: want 1 to 2³¹ − 1 nodes", g.NZa, g.NAz)
	}
	if n < 0 {
		return fmt.Errorf("beam: grid points: %d directions", n)
	}
	p.geom = geomOf(g)
	if cap(p.pts) < n {
		p.pts = make([]gridPoint, n)
	}
	p.pts = p.pts[:n]
	return nil
}

// Len is the number of directions.
func (p *GridPoints) Len() int { return len(p.pts) }

// Fits reports whether p's footprints are those of grid g: same axes,
// extent and spline order.
func (p *GridPoints) Fits(g PlaneGrid) bool { return p.geom == geomOf(g) }

// Locate computes the footprints of directions lo, lo+1, ..., lo+len(az)−1
// from (az[i], za[i]), radians. Calls on disjoint ranges may run
// concurrently.
func (p *GridPoints) Locate(lo int, az, za []float64) {
	locate(&p.geom, az, za, p.pts[lo:lo+len(az)])
}

// locate fills pts[i] with the footprint of (az[i], za[i]) on geometry g,
// with pyuvdata's arithmetic (see PlaneGrid).
func locate(g *pointGeom, az, za []float64, pts []gridPoint) {
	if g.clamp {
		locateClamped(g, az, za, pts)
		return
	}
	var iz, ia [4]int
	for i := range pts {
		pt := &pts[i]
		cz := (za[i] - g.zaMin) * g.zaScale
		ca := (az[i] - g.azMin) * g.azScale
		if !(cz >= 0 && cz <= float64(g.nza-1)) || !(ca >= 0 && ca <= float64(g.naz-1)) {
			pt.row[0] = -1
			continue
		}
		axisWeights(cz, g.nza, g.order, &iz, &pt.wz)
		axisWeights(ca, g.naz, g.order, &ia, &pt.wa)
		for k := 0; k <= g.order; k++ {
			pt.row[k] = int32(iz[k] * g.naz)
			pt.col[k] = int32(ia[k])
		}
	}
}

// EvalPoints writes the response at directions lo..hi−1 of p, which must
// fit the response's grid (see GridPoints.Fits): component c of direction
// s goes to out[c·p.Len() + s], the layout of Eval over all of p's
// directions, so out has Mode.Components()·p.Len() values. The values are
// those Eval gives. Calls on disjoint ranges may run concurrently.
func (r *GriddedResponse) EvalPoints(p *GridPoints, lo, hi int, out []complex128) error {
	n := p.Len()
	switch {
	case !p.Fits(r.grid):
		return fmt.Errorf("beam: grid points located on another grid geometry than the response's %d × %d order-%d grid", r.grid.NZa, r.grid.NAz, r.grid.Order)
	case lo < 0 || hi > n || lo > hi:
		return fmt.Errorf("beam: directions %d..%d of %d", lo, hi, n)
	case len(out) < r.nplane*n:
		return fmt.Errorf("beam: output of %d values for %d components × %d directions", len(out), r.nplane, n)
	}
	r.eval(p.pts[lo:hi], out, n, lo)
	return nil
}

// evalChunk is the number of directions below which Eval stays on one
// goroutine.
const evalChunk = 4096

// locateBlock is the number of directions Eval locates at a time.
const locateBlock = 256

// Eval writes the response at the directions (az[s], za[s]), radians; see
// Response. Unpolarized values are sqrt of the interpolated power (NaN
// where a cubic overshoot makes it negative, as in matvis). Large inputs
// are split over goroutines.
func (r *GriddedResponse) Eval(az, za []float64, out []complex128) {
	n := len(az)
	workers := min(runtime.GOMAXPROCS(0), (n+evalChunk-1)/evalChunk)
	blocks.Run(n, workers, func(lo, hi int) { r.evalRange(az, za, out, n, lo, hi) })
}

// evalRange evaluates directions lo..hi−1, locating them a block at a time.
func (r *GriddedResponse) evalRange(az, za []float64, out []complex128, n, lo, hi int) {
	g := geomOf(r.grid)
	var buf [locateBlock]gridPoint
	for b := lo; b < hi; b += locateBlock {
		e := min(b+locateBlock, hi)
		pts := buf[:e-b]
		locate(&g, az[b:e], za[b:e], pts)
		r.eval(pts, out, n, b)
	}
}

// eval writes component c of pts[j] to out[c·stride + base + j].
func (r *GriddedResponse) eval(pts []gridPoint, out []complex128, stride, base int) {
	if r.c32 != nil {
		evalNodes(r, r.c32, pts, out, stride, base)
	} else {
		evalNodes(r, r.c64, pts, out, stride, base)
	}
}

// evalNodes sums the footprints over the interleaved planes c. Each
// plane's value is accumulated as Σ_a Σ_b (c·wz[a])·wa[b], rows outer,
// in scipy map_coordinates' order and rounding.
func evalNodes[T float32 | float64](r *GriddedResponse, c []T, pts []gridPoint, out []complex128, stride, base int) {
	if r.grid.Order == 3 && r.nv == 4 {
		evalCubic4(c, pts, out, stride, base)
		return
	}
	nv, np, order := r.nv, r.nplane, r.grid.Order
	var acc [8]float64
	for j := range pts {
		pt := &pts[j]
		s := base + j
		if pt.row[0] < 0 {
			for p := range np {
				out[p*stride+s] = 0
			}
			continue
		}
		acc = [8]float64{}
		for a := 0; a <= order; a++ {
			row, wz := int(pt.row[a]), pt.wz[a]
			for b := 0; b <= order; b++ {
				k := (row + int(pt.col[b])) * nv
				q := c[k : k+nv]
				wa := pt.wa[b]
				for v, x := range q {
					acc[v] += float64(x) * wz * wa
				}
			}
		}
		switch {
		case r.grid.SqrtAfterwards:
			out[s] = complex(math.Sqrt(acc[0]), 0)
		case r.cplx:
			for p := range np {
				out[p*stride+s] = complex(acc[2*p], acc[2*p+1])
			}
		default:
			for p := range np {
				out[p*stride+s] = complex(acc[p], 0)
			}
		}
	}
}

// evalCubic4 is evalNodes for cubic splines over 4 real planes (the
// polarized response of a real E-field beam).
func evalCubic4[T float32 | float64](c []T, pts []gridPoint, out []complex128, stride, base int) {
	o0 := out[base : base+len(pts)]
	o1 := out[stride+base : stride+base+len(pts)]
	o2 := out[2*stride+base : 2*stride+base+len(pts)]
	o3 := out[3*stride+base : 3*stride+base+len(pts)]
	for j := range pts {
		pt := &pts[j]
		if pt.row[0] < 0 {
			o0[j], o1[j], o2[j], o3[j] = 0, 0, 0, 0
			continue
		}
		var t0, t1, t2, t3 float64
		for a := range 4 {
			row, wz := int(pt.row[a]), pt.wz[a]
			for b := range 4 {
				k := (row + int(pt.col[b])) * 4
				q := c[k : k+4 : k+4]
				wa := pt.wa[b]
				t0 += float64(q[0]) * wz * wa
				t1 += float64(q[1]) * wz * wa
				t2 += float64(q[2]) * wz * wa
				t3 += float64(q[3]) * wz * wa
			}
		}
		o0[j], o1[j], o2[j], o3[j] = complex(t0, 0), complex(t1, 0), complex(t2, 0), complex(t3, 0)
	}
}

// Cell returns the row-major index ⌊iza⌋·NAz + ⌊iaz⌋ of the grid cell that
// holds direction (az, za), radians, or −1 outside the grid. Directions
// evaluated in cell order (za row, then az) read neighbouring nodes one
// after the other, so each beam's planes are swept once rather than read
// at random.
func (g PlaneGrid) Cell(az, za float64) int {
	cz := (za - g.ZaMin) * g.ZaScale
	ca := (az - g.AzMin) * g.AzScale
	if !(cz >= 0 && cz <= float64(g.NZa-1)) || !(ca >= 0 && ca <= float64(g.NAz-1)) {
		return -1
	}
	return int(cz)*g.NAz + int(ca)
}
