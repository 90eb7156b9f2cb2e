package nufft

import (
	"sync"
	"sync/atomic"
)

// slabs partition the outer grid's rows (its slowest axis) among workers:
// slab b owns rows [edge[b], edge[b+1]) and lists every point whose kernel
// reaches one of them, so that each worker adds only into rows it owns.
type slabs struct {
	edge   []int
	points [][]int32
}

// newSlabs bins points with axis-0 grid coordinates p (nil when the axis
// is inactive: every point is on row 0) into slabs at least w rows wide,
// about four per worker so that uneven slabs balance. Each slab lists its
// points in increasing order (the plan's sorted order: nearby points
// together).
func newSlabs(p []float64, w, nf int, active bool, workers, n int) slabs {
	nb := 1
	if active {
		nb = max(1, min(4*workers, nf/w))
	}
	sl := slabs{edge: make([]int, nb+1), points: make([][]int32, nb)}
	for b := range sl.edge {
		sl.edge[b] = b * nf / nb
	}
	if !active {
		sl.points[0] = make([]int32, n)
		for j := range n {
			sl.points[0][j] = int32(j)
		}
		return sl
	}
	slabOf := make([]int, nf)
	for b := range nb {
		for r := sl.edge[b]; r < sl.edge[b+1]; r++ {
			slabOf[r] = b
		}
	}
	ker := kernel{w: w}
	for j, pj := range p {
		j32 := int32(j)
		first := ker.first(pj)
		if first >= 0 && first+w <= nf {
			// Slabs are at least w rows wide: the kernel's rows lie in
			// the slabs of its first and last row.
			b0, b1 := slabOf[first], slabOf[first+w-1]
			for b := b0; b <= b1; b++ {
				sl.points[b] = append(sl.points[b], j32)
			}
			continue
		}
		for a := range w {
			b := slabOf[wrap(first+a, nf)]
			lst := sl.points[b]
			if len(lst) == 0 || lst[len(lst)-1] != j32 {
				sl.points[b] = append(lst, j32)
			}
		}
	}
	return sl
}

// wrap reduces i into [0, n).
func wrap(i, n int) int {
	i %= n
	if i < 0 {
		i += n
	}
	return i
}

// gather fills pl.cs with the strengths c pre-phased, in sorted order.
func (pl *Plan) gather(c []complex128) {
	if cap(pl.cs) < pl.n {
		pl.cs = make([]complex128, pl.n)
	}
	pl.cs = pl.cs[:pl.n]
	if pl.pre == nil {
		for i, j := range pl.perm {
			pl.cs[i] = c[j]
		}
		return
	}
	for i, j := range pl.perm {
		pl.cs[i] = c[j] * pl.pre[i]
	}
}

// stopCheck+1 is how many points a spreading worker spreads between two
// looks at the Execute's context (a few milliseconds of work).
const stopCheck = 1<<12 - 1

// spread sets pl.grid to the pre-phased strengths c spread, one goroutine
// per slab at a time, each clearing its slab's rows first (in parallel,
// and while they are about to be written anyway).
func (pl *Plan) spread(c []complex128) {
	row := pl.ax[1].nf * pl.ax[2].nf
	pl.gather(c)
	pl.eachSlab(func(sp *spreader, b, lo, hi int) {
		clear(pl.grid[lo*row : hi*row])
		for i, j := range pl.slabs.points[b] {
			if i&stopCheck == 0 && pl.stopped() {
				return
			}
			sp.point(int(j), pl.cs[j], lo, hi)
		}
	})
}

// eachSlab runs fn on every slab b (outer-grid rows lo … hi−1) once, the
// workers taking the next slab as they finish one (slabs differ in their
// points), each with a spreader of its own: no two workers write one row.
func (pl *Plan) eachSlab(fn func(sp *spreader, b, lo, hi int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	nb := len(pl.slabs.points)
	for range min(pl.opt.Workers, nb) {
		wg.Go(func() {
			sp := newSpreader(pl)
			for {
				b := int(next.Add(1) - 1)
				if b >= nb {
					return
				}
				fn(sp, b, pl.slabs.edge[b], pl.slabs.edge[b+1])
			}
		})
	}
	wg.Wait()
}

// spreadSerial is spread's plain twin: every point, one goroutine, every
// row (tests compare the two grids).
func (pl *Plan) spreadSerial(c []complex128) {
	clear(pl.grid)
	pl.gather(c)
	sp := newSpreader(pl)
	for j := range pl.n {
		sp.point(j, pl.cs[j], 0, pl.ax[0].nf)
	}
}

// spreader holds one worker's kernel weights.
type spreader struct {
	pl     *Plan
	wt     [3][]float64
	idx    [3][]int
	nf     [3]int
	widths [3]int
}

func newSpreader(pl *Plan) *spreader {
	sp := &spreader{pl: pl}
	for d := range 3 {
		sp.nf[d] = pl.ax[d].nf
		sp.widths[d] = 1
		if pl.ax[d].active {
			sp.widths[d] = pl.ker.w
		}
		sp.wt[d] = make([]float64, sp.widths[d])
		sp.idx[d] = make([]int, sp.widths[d])
	}
	return sp
}

// weights fills the kernel weights of axis d for a point at coordinate
// p (a single weight 1 when the axis is inactive) and returns the
// unwrapped first index.
func (sp *spreader) weights(d int, p []float64, j int) int {
	if !sp.pl.ax[d].active {
		sp.wt[d][0] = 1
		return 0
	}
	return sp.pl.tab.weights(sp.wt[d], p[j])
}

// wrapIndices fills the wrapped grid indices of kernels starting at
// first: only a kernel that crosses a grid edge needs them, and a modulo
// per tap costs more than the tap.
func (sp *spreader) wrapIndices(first [3]int) {
	for d := range 3 {
		for a := range sp.idx[d] {
			sp.idx[d][a] = wrap(first[d]+a, sp.nf[d])
		}
	}
}

// point adds v times the kernel around point j into the grid rows
// [lo, hi) of axis 0.
func (sp *spreader) point(j int, v complex128, lo, hi int) {
	pl := sp.pl
	var first [3]int
	contiguous := true
	for d := range 3 {
		first[d] = sp.weights(d, pl.p[d], j)
		contiguous = contiguous && first[d] >= 0 && first[d]+len(sp.wt[d]) <= sp.nf[d]
	}
	n1, n2 := sp.nf[1], sp.nf[2]
	w0, w1, w2 := sp.wt[0], sp.wt[1], sp.wt[2]
	g := pl.grid
	if contiguous {
		// The usual case (the outer grid leaves a margin, see axis):
		// runs of w consecutive cells along the fastest axis.
		f2 := first[2]
		for a0 := range w0 {
			r0 := first[0] + a0
			if r0 < lo || r0 >= hi {
				continue
			}
			vr, vi := real(v)*w0[a0], imag(v)*w0[a0]
			if n2 == 1 {
				// Two dimensions: the run is along axis 1.
				base := r0*n1 + first[1]
				row := g[base : base+len(w1)]
				for a1, k1 := range w1 {
					row[a1] += complex(vr*k1, vi*k1)
				}
				continue
			}
			for a1, k1 := range w1 {
				base := (r0*n1+first[1]+a1)*n2 + f2
				row := g[base : base+len(w2)]
				ar, ai := vr*k1, vi*k1
				for a2, k2 := range w2 {
					row[a2] += complex(ar*k2, ai*k2)
				}
			}
		}
		return
	}
	sp.wrapIndices(first)
	i0, i1, i2 := sp.idx[0], sp.idx[1], sp.idx[2]
	for a0, r0 := range i0 {
		if r0 < lo || r0 >= hi {
			continue
		}
		v0 := v * complex(w0[a0], 0)
		for a1, r1 := range i1 {
			v1 := v0 * complex(w1[a1], 0)
			base := (r0*n1 + r1) * n2
			for a2, r2 := range i2 {
				g[base+r2] += v1 * complex(w2[a2], 0)
			}
		}
	}
}

// spreadReal is spread for real strengths c into the real grid g
// (ExecuteReal; no pre-phase: the plan's targets are about 0).
func (pl *Plan) spreadReal(c, g []float64) {
	row := pl.ax[1].nf * pl.ax[2].nf
	if len(pl.csr) != pl.n {
		pl.csr = make([]float64, pl.n)
	}
	for i, j := range pl.perm {
		pl.csr[i] = c[j]
	}
	pl.eachSlab(func(sp *spreader, b, lo, hi int) {
		clear(g[lo*row : hi*row])
		for i, j := range pl.slabs.points[b] {
			if i&stopCheck == 0 && pl.stopped() {
				return
			}
			sp.pointReal(g, int(j), pl.csr[j], lo, hi)
		}
	})
}

// pointReal is point for a real strength v into the real grid g.
func (sp *spreader) pointReal(g []float64, j int, v float64, lo, hi int) {
	pl := sp.pl
	var first [3]int
	contiguous := true
	for d := range 3 {
		first[d] = sp.weights(d, pl.p[d], j)
		contiguous = contiguous && first[d] >= 0 && first[d]+len(sp.wt[d]) <= sp.nf[d]
	}
	n1, n2 := sp.nf[1], sp.nf[2]
	w0, w1, w2 := sp.wt[0], sp.wt[1], sp.wt[2]
	if !contiguous {
		sp.wrapIndices(first)
		i0, i1, i2 := sp.idx[0], sp.idx[1], sp.idx[2]
		for a0, r0 := range i0 {
			if r0 < lo || r0 >= hi {
				continue
			}
			for a1, r1 := range i1 {
				v1 := v * w0[a0] * w1[a1]
				base := (r0*n1 + r1) * n2
				for a2, r2 := range i2 {
					g[base+r2] += v1 * w2[a2]
				}
			}
		}
		return
	}
	for a0 := range w0 {
		r0 := first[0] + a0
		if r0 < lo || r0 >= hi {
			continue
		}
		v0 := v * w0[a0]
		if n2 == 1 {
			base := r0*n1 + first[1]
			row := g[base : base+len(w1)]
			for a1, k1 := range w1 {
				row[a1] += v0 * k1
			}
			continue
		}
		for a1, k1 := range w1 {
			base := (r0*n1+first[1]+a1)*n2 + first[2]
			row := g[base : base+len(w2)]
			v1 := v0 * k1
			for a2, k2 := range w2 {
				row[a2] += v1 * k2
			}
		}
	}
}
