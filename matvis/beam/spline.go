package beam

import (
	"fmt"
	"math"
)

// This file holds the numerical kernels behind gridded beams, written to
// behave like the scipy routines pyuvdata calls:
//
//   - scipy.ndimage.map_coordinates with mode="constant", cval=0, order 1
//     or 3 (prefilter on): B-spline coefficients from a recursive filter
//     whose boundary is the whole-sample mirror ("mirror" mode), spline
//     footprints that cross an edge read mirrored coefficients, and
//     coordinates outside [0, n−1] on any axis give 0;
//   - scipy.interpolate.interp1d(kind="cubic"), i.e. the not-a-knot cubic
//     interpolating spline, used along frequency.

// cubicPole is the single pole of the cubic B-spline prefilter, √3 − 2.
const cubicPole = -0.267949192431122706472553658494127633

// prefilter2D turns a row-major nrow × ncol plane into cubic B-spline
// coefficients in place: along the rows' axis (axis 0) first, then along
// the columns' axis, as scipy.ndimage.spline_filter does.
//
// Both passes run as prefilterColumns — the rows' pass on the transposed
// plane — because a single line's recursive filter is a chain of dependent
// multiply-adds, while a sweep over many columns at once is not: the same
// operations per line, so the same bits as the one-line filter of the
// tests (prefilterLine) line by line.
func prefilter2D(p []float64, nrow, ncol int) {
	prefilterColumns(p, nrow, ncol)
	t := make([]float64, nrow*ncol)
	transpose(t, p, nrow, ncol)
	prefilterColumns(t, ncol, nrow)
	transpose(p, t, ncol, nrow)
}

// transpose writes the nrow × ncol row-major src to dst as ncol × nrow,
// in 32 × 32 blocks so that both sides stay in cache.
func transpose(dst, src []float64, nrow, ncol int) {
	const blk = 32
	for i0 := 0; i0 < nrow; i0 += blk {
		for j0 := 0; j0 < ncol; j0 += blk {
			for i := i0; i < min(i0+blk, nrow); i++ {
				for j := j0; j < min(j0+blk, ncol); j++ {
					dst[j*nrow+i] = src[i*ncol+j]
				}
			}
		}
	}
}

// prefilterColumns is the one-line recursive filter (the tests'
// prefilterLine) applied to every column of the
// row-major nrow × ncol plane p, the same operations in the same order per
// column (so the same bits), but swept row by row over all columns at once:
// contiguous memory instead of a stride of ncol values per step, which
// made the column pass most of a gridded beam's preparation.
func prefilterColumns(p []float64, nrow, ncol int) {
	n := nrow
	if n <= 1 {
		return
	}
	row := func(i int) []float64 { return p[i*ncol : (i+1)*ncol] }
	z := cubicPole
	gain := (1 - z) * (1 - 1/z)
	for i := range p[:n*ncol] {
		p[i] *= gain
	}
	zn1 := math.Pow(z, float64(n-1))
	c0 := make([]float64, ncol)
	first, last := row(0), row(n-1)
	for j := range c0 {
		c0[j] = first[j] + zn1*last[j]
	}
	zi := z
	for i := 1; i < n-1; i++ {
		a, b := row(i), row(n-1-i)
		for j := range c0 {
			c0[j] += zi * (a[j] + zn1*b[j])
		}
		zi *= z
	}
	for j := range c0 {
		first[j] = c0[j] / (1 - zn1*zn1)
	}
	for i := 1; i < n; i++ {
		cur, prev := row(i), row(i-1)
		for j := range cur {
			cur[j] += z * prev[j]
		}
	}
	prev := row(n - 2)
	for j := range last {
		last[j] = (z*prev[j] + last[j]) * z / (z*z - 1)
	}
	for i := n - 2; i >= 0; i-- {
		cur, next := row(i), row(i+1)
		for j := range cur {
			cur[j] = z * (next[j] - cur[j])
		}
	}
}

// mirrorIndex maps a footprint index onto [0, n) by whole-sample mirror
// symmetry about the first and last samples (scipy's "mirror" mode).
func mirrorIndex(i, n int) int {
	if n <= 1 {
		return 0
	}
	sz2 := 2*n - 2
	switch {
	case i < 0:
		i += sz2 * (-i / sz2)
		if i <= 1-n {
			i += sz2
		} else {
			i = -i
		}
	case i > n-1:
		i -= sz2 * (i / sz2)
		if i >= n {
			i = sz2 - i
		}
	}
	return i
}

// CubicWeights are the cubic B-spline's weights of the four samples
// around a point a fraction x ∈ [0, 1) past sample i: those of samples
// i−1, i, i+1, i+2, adding up to 1 (the last is 1 minus the others, so
// that they do exactly). The GPU kernels compute the same in device code
// (axis_weights in kernels/vis_beam.cuh); its host twin in the GPU tests
// uses this.
func CubicWeights(x float64) [4]float64 {
	var w [4]float64
	z := 1 - x
	w[1] = (x*x*(x-2)*3 + 4) / 6
	w[2] = (z*z*(z-2)*3 + 4) / 6
	w[0] = z * z * z / 6
	w[3] = 1 - w[0] - w[1] - w[2]
	return w
}

// axisWeights finds, for a fractional index c inside [0, n−1], the
// spline footprint along one axis: the order+1 (mirrored) sample indices
// and their weights. order is 1 or 3.
func axisWeights(c float64, n, order int, idx *[4]int, w *[4]float64) {
	fl := math.Floor(c)
	x := c - fl
	start := int(fl)
	if order == 1 {
		w[0] = 1 - x
		w[1] = 1 - w[0]
	} else {
		start--
		*w = CubicWeights(x)
	}
	if start >= 0 && start+order < n {
		for k := 0; k <= order; k++ {
			idx[k] = start + k
		}
		return
	}
	for k := 0; k <= order; k++ {
		idx[k] = mirrorIndex(start+k, n)
	}
}

// freqWeights says how the beam channels x (strictly increasing, Hz)
// combine into the value at f, following pyuvdata's UVBeam.interp: the
// nearest channel alone when it is closer than tol Hz, otherwise the
// not-a-knot cubic spline of scipy's interp1d(kind="cubic"), which needs
// at least 4 channels and f inside [x₀, x_last]. The result has one
// weight per channel.
func freqWeights(x []float64, f, tol float64) ([]float64, error) {
	n := len(x)
	if n == 0 {
		return nil, fmt.Errorf("beam has no frequencies")
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("frequency %v Hz is not finite", f)
	}
	w := make([]float64, n)
	best, bestD := 0, math.Inf(1)
	for i, v := range x {
		if d := math.Abs(v - f); d < bestD {
			best, bestD = i, d
		}
	}
	if bestD < tol {
		w[best] = 1
		return w, nil
	}
	if n == 1 {
		return nil, fmt.Errorf("frequency %g Hz is %g Hz from the beam's only frequency %g Hz (tolerance %g Hz): cannot interpolate from one frequency", f, bestD, x[0], tol)
	}
	if f < x[0] || f > x[n-1] {
		return nil, fmt.Errorf("frequency %g Hz is outside the beam's frequency range [%g, %g] Hz", f, x[0], x[n-1])
	}
	if n < 4 {
		return nil, fmt.Errorf("frequency %g Hz is not within %g Hz of a beam frequency and cubic interpolation along frequency needs at least 4 beam frequencies, the beam has %d (%v Hz)", f, tol, n, x)
	}
	w = notAKnotWeights(x, f)
	// The spline's weights decay geometrically (×0.27 per channel) away
	// from f; dropping those below 1e-17 of the total changes the result by
	// less than float64 rounding and spares whole-plane passes on long
	// frequency axes.
	var sum float64
	for _, v := range w {
		sum += math.Abs(v)
	}
	for j, v := range w {
		if math.Abs(v) < 1e-17*sum {
			w[j] = 0
		}
	}
	return w, nil
}

// notAKnotWeights returns w with S(t) = Σ w_j y_j for the not-a-knot
// cubic interpolating spline S through (x_j, y_j), n = len(x) ≥ 4,
// x strictly increasing and t in [x₀, x_{n−1}].
//
// With second derivatives M, S on [x_i, x_{i+1}] is
// a·y_i + b·y_{i+1} + c·M_i + d·M_{i+1}, and M = A⁻¹ R y where A holds the
// continuity and not-a-knot rows and R the right-hand side operator.
// So w = a·e_i + b·e_{i+1} + Rᵀ z with Aᵀ z = c·e_i + d·e_{i+1}.
func notAKnotWeights(x []float64, t float64) []float64 {
	n := len(x)
	h := make([]float64, n-1)
	for i := range h {
		h[i] = x[i+1] - x[i]
	}
	// A, dense row-major n×n.
	a := make([]float64, n*n)
	a[0*n+0], a[0*n+1], a[0*n+2] = -h[1], h[0]+h[1], -h[0]
	for i := 1; i < n-1; i++ {
		a[i*n+i-1] = h[i-1]
		a[i*n+i] = 2 * (h[i-1] + h[i])
		a[i*n+i+1] = h[i]
	}
	l := n - 1
	a[l*n+l-2], a[l*n+l-1], a[l*n+l] = -h[l-1], h[l-2]+h[l-1], -h[l-2]
	// Interval of t.
	i := 0
	for i < n-2 && t > x[i+1] {
		i++
	}
	hi := h[i]
	u, v := x[i+1]-t, t-x[i]
	ca := u*u*u/(6*hi) - hi*u/6
	cb := v*v*v/(6*hi) - hi*v/6
	// Solve Aᵀ z = ca·e_i + cb·e_{i+1}.
	at := make([]float64, n*n)
	for r := 0; r < n; r++ {
		for c := 0; c < n; c++ {
			at[r*n+c] = a[c*n+r]
		}
	}
	z := make([]float64, n)
	z[i], z[i+1] = ca, cb
	solveDense(at, z, n)
	w := make([]float64, n)
	w[i] += u / hi
	w[i+1] += v / hi
	// R: rows 1..n−2 carry 6·(divided-difference change); rows 0, n−1 are 0.
	for r := 1; r < n-1; r++ {
		w[r-1] += z[r] * 6 / h[r-1]
		w[r] -= z[r] * 6 * (1/h[r-1] + 1/h[r])
		w[r+1] += z[r] * 6 / h[r]
	}
	return w
}

// solveDense solves m·x = b in place (b becomes x) by Gaussian
// elimination with partial pivoting; m (n×n, row-major) is destroyed.
func solveDense(m, b []float64, n int) {
	for k := 0; k < n; k++ {
		p := k
		for r := k + 1; r < n; r++ {
			if math.Abs(m[r*n+k]) > math.Abs(m[p*n+k]) {
				p = r
			}
		}
		if p != k {
			for c := k; c < n; c++ {
				m[k*n+c], m[p*n+c] = m[p*n+c], m[k*n+c]
			}
			b[k], b[p] = b[p], b[k]
		}
		piv := m[k*n+k]
		for r := k + 1; r < n; r++ {
			f := m[r*n+k] / piv
			if f == 0 {
				continue
			}
			for c := k; c < n; c++ {
				m[r*n+c] -= f * m[k*n+c]
			}
			b[r] -= f * b[k]
		}
	}
	for k := n - 1; k >= 0; k-- {
		s := b[k]
		for c := k + 1; c < n; c++ {
			s -= m[k*n+c] * b[c]
		}
		b[k] = s / m[k*n+k]
	}
}
