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
// about four per worker so that uneven slabs balance.
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
		first := ker.first(pj)
		for a := range w {
			b := slabOf[wrap(first+a, nf)]
			lst := sl.points[b]
			if len(lst) == 0 || lst[len(lst)-1] != int32(j) {
				sl.points[b] = append(lst, int32(j))
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

// spread adds the pre-phased strengths c into pl.grid, one goroutine per
// slab at a time.
func (pl *Plan) spread(c []complex128) {
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
				lo, hi := pl.slabs.edge[b], pl.slabs.edge[b+1]
				for _, j := range pl.slabs.points[b] {
					sp.point(int(j), c[j]*pl.pre[j], lo, hi)
				}
			}
		})
	}
	wg.Wait()
}

// spreadSerial is spread's plain twin: every point, one goroutine, every
// row (tests compare the two grids).
func (pl *Plan) spreadSerial(c []complex128) {
	sp := newSpreader(pl)
	for j := range pl.n {
		sp.point(j, c[j]*pl.pre[j], 0, pl.ax[0].nf)
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

// weights fills the kernel weights and wrapped grid indices of axis d for
// a point at coordinate p (a single weight 1 at index 0 when the axis is
// inactive).
func (sp *spreader) weights(d int, p []float64, j int) {
	if !sp.pl.ax[d].active {
		sp.wt[d][0], sp.idx[d][0] = 1, 0
		return
	}
	first := sp.pl.ker.weights(sp.wt[d], p[j])
	for a := range sp.idx[d] {
		sp.idx[d][a] = wrap(first+a, sp.nf[d])
	}
}

// point adds v times the kernel around point j into the grid rows
// [lo, hi) of axis 0.
func (sp *spreader) point(j int, v complex128, lo, hi int) {
	pl := sp.pl
	for d := range 3 {
		sp.weights(d, pl.p[d], j)
	}
	n1, n2 := sp.nf[1], sp.nf[2]
	w1, w2 := sp.wt[1], sp.wt[2]
	i1, i2 := sp.idx[1], sp.idx[2]
	g := pl.grid
	for a0, r0 := range sp.idx[0] {
		if r0 < lo || r0 >= hi {
			continue
		}
		v0 := v * complex(sp.wt[0][a0], 0)
		for a1, r1 := range i1 {
			v1 := v0 * complex(w1[a1], 0)
			row := g[(r0*n1+r1)*n2 : (r0*n1+r1+1)*n2]
			for a2, r2 := range i2 {
				row[r2] += v1 * complex(w2[a2], 0)
			}
		}
	}
}
