package nufft

import "math"

// Layout is everything a plan computed that another implementation of the
// same transform needs to run it (matvis/nufftgpu runs it on a GPU): the
// kernel, the grids, the points' and targets' grid coordinates in sorted
// order with their permutations, phases and corrections. Sharing the
// plan, rather than planning again, keeps one derivation of every
// constant (plan.go) and makes the two implementations compute the same
// function up to rounding. The slices are the plan's own: read only.
type Layout struct {
	Dim  int     // 1, 2 or 3
	N, M int     // points, targets
	W    int     // kernel width in grid points
	Beta float64 // kernel shape: φ(z) = exp(β(√(1−z²) − 1))
	Sign int     // the exponent's sign
	// NF and N2 are the outer (spreading) and padded (FFT) grids' axes,
	// 1 for an inactive axis; both grids are row-major, axis 2 fastest.
	NF, N2 [3]int
	// P[d][i] is sorted point i's outer-grid coordinate along active
	// axis d, in grid spacings; Perm[i] its caller's index; Pre[i] its
	// pre-phase.
	P    [3][]float64
	Perm []int32
	Pre  []complex128
	// Q[d][i] is sorted target i's padded-grid coordinate; QOrder[i] its
	// caller's index; Post[i] its post-phase times the kernel correction.
	Q      [3][]float64
	QOrder []int32
	Post   []complex128
	// PointScale and PointShift place a point computed elsewhere (on a
	// device, from coordinates it made itself): its outer-grid
	// coordinate along active axis d is x·PointScale[d] + PointShift[d],
	// which for every point inside the extent the plan was made for lies
	// in [PointLo[d], PointHi[d]]; the grid has room for the kernel's
	// half width beyond both. Its pre-phase is 1 when PrePhased is
	// false (the targets centred at 0: Options.Real, or symmetric).
	PointScale, PointShift, PointLo, PointHi [3]float64
	PrePhased                                bool
	// Deconv[d][i] multiplies outer-grid index i of active axis d on its
	// way into the padded grid, at padded index (i − NF/2) mod N2
	// (deconvolveInto).
	Deconv [3][]float64
}

// Layout returns the plan's layout (see Layout). A plan whose points need
// no pre-phase (centred at 0) keeps none; the layout then has ones, so
// that Pre always has a phase per point.
func (pl *Plan) Layout() Layout {
	pre := pl.pre
	if pre == nil {
		pre = make([]complex128, pl.n)
		for i := range pre {
			pre[i] = 1
		}
	}
	l := Layout{Dim: pl.dim, N: pl.n, M: pl.m, W: pl.ker.w, Beta: pl.ker.beta, Sign: pl.opt.Sign,
		P: pl.p, Perm: pl.perm, Pre: pre, Q: pl.q, QOrder: pl.qOrder, Post: pl.post, Deconv: pl.deconv}
	for d := range 3 {
		l.NF[d], l.N2[d] = pl.ax[d].nf, pl.ax[d].n2
		if d >= pl.dim {
			continue
		}
		a := pl.ax[d]
		// scalePoints' (x − xc)/γ/h1 + nf/2, h1 = 2π/nf.
		l.PointScale[d] = float64(a.nf) / (2 * math.Pi * a.gamma)
		l.PointShift[d] = float64(a.nf/2) - a.xc*l.PointScale[d]
		l.PointLo[d] = float64(a.nf/2) - a.xh*l.PointScale[d]
		l.PointHi[d] = float64(a.nf/2) + a.xh*l.PointScale[d]
		l.PrePhased = l.PrePhased || a.sc != 0
	}
	return l
}
