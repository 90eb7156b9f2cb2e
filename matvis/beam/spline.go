package beam

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// This file holds the numerical kernels behind gridded beams, written to
// behave like the scipy routines pyuvdata calls:
//
//   - scipy.ndimage.map_coordinates with mode="constant", cval=0, order 1
//     or 3 (prefilter on): B-spline coefficients from a recursive filter
//     whose boundary is the whole-sample mirror ("mirror" mode), spline
//     footprints that cross an edge read mirrored coefficients, and
//     coordinates outside [0, n−1] on any axis give 0;
//   - scipy.interpolate.interp1d along frequency: kind "cubic" (the
//     not-a-knot cubic interpolating spline, the default), "quadratic"
//     (make_interp_spline with k = 2 and its default knots), "linear" and
//     "slinear", "zero", "previous", "next", "nearest-up", and pyuvdata's
//     own "nearest" (np.argmin of the distance).

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
	prefilterRows(p, nrow, ncol)
}

// prefilterRows is prefilter2D's second pass: the recursive filter along
// each row of the row-major nrow × ncol plane p, in place.
func prefilterRows(p []float64, nrow, ncol int) {
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
// (axis_weights in matvis/gpu/vis_beam.cuh); its host twin in the GPU tests
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

// freqWeights is freqWeightsKind with pyuvdata's default kind, cubic.
func freqWeights(x []float64, f, tol float64) ([]float64, error) {
	return freqWeightsKind(x, f, tol, "cubic")
}

// freqWeightsKind says how the beam channels x (strictly increasing, Hz)
// combine into the value at f, following pyuvdata's UVBeam.interp
// (_interp_freq) with freq_interp_kind kind: the nearest channel alone
// when it is closer than tol Hz; otherwise, for "nearest", the channel
// np.argmin(|x − f|) picks (the first, i.e. lower, of two equally near;
// no range check: pyuvdata does not pass "nearest" to scipy), and for the
// other kinds scipy's interp1d(x, y, kind) at f, which needs at least 2
// channels and f inside [x₀, x_last] (pyuvdata's own checks), and
// quadratic at least 3, cubic at least 4 (scipy's). The result has one
// weight per channel, zero for the channels that do not contribute.
func freqWeightsKind(x []float64, f, tol float64, kind string) ([]float64, error) {
	n := len(x)
	if n == 0 {
		return nil, fmt.Errorf("beam has no frequencies")
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("frequency %v Hz is not finite", f)
	}
	if !validFreqInterp(kind) {
		return nil, fmt.Errorf("freq_interp_kind %q: want one of %s", kind, strings.Join(FreqInterpKinds(), ", "))
	}
	w := make([]float64, n)
	best, bestD := 0, math.Inf(1)
	for i, v := range x {
		if d := math.Abs(v - f); d < bestD {
			best, bestD = i, d
		}
	}
	if bestD < tol || kind == "nearest" {
		w[best] = 1
		return w, nil
	}
	if n == 1 {
		return nil, fmt.Errorf("frequency %g Hz is %g Hz from the beam's only frequency %g Hz (tolerance %g Hz): cannot interpolate from one frequency", f, bestD, x[0], tol)
	}
	if f < x[0] || f > x[n-1] {
		return nil, fmt.Errorf("frequency %g Hz is outside the beam's frequency range [%g, %g] Hz", f, x[0], x[n-1])
	}
	switch kind {
	case "linear", "slinear":
		linearWeights(x, f, w)
		return w, nil
	case "zero", "previous":
		// interp1d's "previous" (and the degree-0 B-spline of "zero"):
		// the last channel at or below f.
		i := sort.Search(n, func(j int) bool { return x[j] > f }) - 1
		w[i] = 1
		return w, nil
	case "next":
		w[sort.Search(n, func(j int) bool { return x[j] >= f })] = 1
		return w, nil
	case "nearest-up":
		// interp1d's midpoints x_j/2 + x_{j+1}/2, searchsorted side
		// "right": a frequency on a midpoint takes the upper channel.
		i := sort.Search(n-1, func(j int) bool { return x[j]/2+x[j+1]/2 > f })
		w[i] = 1
		return w, nil
	case "quadratic":
		if n < 3 {
			return nil, fmt.Errorf("frequency %g Hz is not within %g Hz of a beam frequency and quadratic interpolation along frequency needs at least 3 beam frequencies, the beam has %d (%v Hz)", f, tol, n, x)
		}
		w = interpSplineWeights(x, 2, quadraticKnots(x), f)
	default: // cubic
		if n < 4 {
			return nil, fmt.Errorf("frequency %g Hz is not within %g Hz of a beam frequency and cubic interpolation along frequency needs at least 4 beam frequencies, the beam has %d (%v Hz)", f, tol, n, x)
		}
		w = notAKnotWeights(x, f)
	}
	// The spline's weights decay geometrically (×0.27 per channel for the
	// cubic) away from f; dropping those below 1e-17 of the total changes
	// the result by less than float64 rounding and spares whole-plane
	// passes on long frequency axes.
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

// FreqInterpKinds are the frequency interpolation kinds a gridded beam
// takes (WithFreqInterp): scipy's interp1d kinds, as pyuvdata's
// UVBeam.interp uses them.
func FreqInterpKinds() []string {
	return []string{"cubic", "linear", "nearest", "nearest-up", "next", "previous", "quadratic", "slinear", "zero"}
}

func validFreqInterp(kind string) bool {
	for _, k := range FreqInterpKinds() {
		if k == kind {
			return true
		}
	}
	return false
}

// linearWeights writes into w (zeros) the weights of interp1d's "linear"
// at f ∈ [x₀, x_last]: the channels lo = i−1, hi = i with i the
// searchsorted (side "left") index of f clipped to [1, n−1], as scipy's
// _call_linear picks them, and y_lo + (y_hi − y_lo)·s with s = (f −
// x_lo)/(x_hi − x_lo) written as (1 − s)·y_lo + s·y_hi. "slinear" (the
// degree-1 interpolating B-spline) is the same function.
func linearWeights(x []float64, f float64, w []float64) {
	n := len(x)
	i := sort.Search(n, func(j int) bool { return x[j] >= f })
	i = max(1, min(i, n-1))
	lo, hi := i-1, i
	s := (f - x[lo]) / (x[hi] - x[lo])
	w[lo] = 1 - s
	w[hi] = s
}

// quadraticKnots is make_interp_spline's default knot vector for k = 2
// (scipy's "Greville sites + omit 2nd and 2nd-to-last points, a la
// not-a-knot"): x₀ three times, the midpoints (x_j + x_{j+1})/2 for
// j = 1 … n−3, x_last three times; n + 3 knots for n ≥ 3 points.
func quadraticKnots(x []float64) []float64 {
	n := len(x)
	t := []float64{x[0], x[0], x[0]}
	for j := 1; j <= n-3; j++ {
		t = append(t, (x[j+1]+x[j])/2)
	}
	return append(t, x[n-1], x[n-1], x[n-1])
}

// interpSplineWeights returns w with S(f) = Σ w_j y_j for the degree-k
// interpolating B-spline S = Σ c_j B_j on knots t through (x_j, y_j), as
// scipy's make_interp_spline(x, y, k, t) builds it (n = len(x) =
// len(t) − k − 1 coefficients, collocation B c = y, B_ij = B_j(x_i)):
// S(f) = b(f)ᵀ B⁻¹ y, so w solves Bᵀ w = b(f), b_j(f) = B_j(f).
func interpSplineWeights(x []float64, k int, t []float64, f float64) []float64 {
	n := len(x)
	bt := make([]float64, n*n)
	h := make([]float64, k+1)
	for i, xi := range x {
		l := bsplInterval(t, k, xi)
		bsplBasis(t, k, l, xi, h)
		for a := 0; a <= k; a++ {
			bt[(l-k+a)*n+i] = h[a] // Bᵀ[j][i] = B_j(x_i)
		}
	}
	w := make([]float64, n)
	l := bsplInterval(t, k, f)
	bsplBasis(t, k, l, f, h)
	for a := 0; a <= k; a++ {
		w[l-k+a] = h[a]
	}
	solveDense(bt, w, n)
	return w
}

// bsplInterval is scipy's find_interval (_bspl.pyx) for a point v inside
// [t_k, t_m], m = len(t) − k − 1: the l in [k, m−1] with t_l ≤ v < t_{l+1},
// and m−1 at v = t_m.
func bsplInterval(t []float64, k int, v float64) int {
	m := len(t) - k - 1
	l := k + 1
	for v >= t[l] && l != m {
		l++
	}
	return l - 1
}

// bsplBasis writes into h the k+1 B-splines B_{l−k} … B_l nonzero on
// [t_l, t_{l+1}) at v, by the Cox–de Boor recursion as scipy's _deBoor_D
// computes them (derivative order 0).
func bsplBasis(t []float64, k, l int, v float64, h []float64) {
	hh := make([]float64, k+1)
	h[0] = 1
	for j := 1; j <= k; j++ {
		copy(hh[:j], h[:j])
		h[0] = 0
		for m := 1; m <= j; m++ {
			xb, xa := t[l+m], t[l+m-j]
			if xb == xa {
				h[m] = 0
				continue
			}
			c := hh[m-1] / (xb - xa)
			h[m-1] += c * (xb - v)
			h[m] = c * (v - xa)
		}
	}
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
