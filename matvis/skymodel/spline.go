package skymodel

import "sort"

// The not-a-knot cubic spline through (x[k], y[k]), k = 0..n-1 (n ≥ 4), is
// fixed by its second derivatives M at the knots, which solve
//
//	h[i-1]·M[i-1] + 2(h[i-1]+h[i])·M[i] + h[i]·M[i+1] = 6·(Δy[i]/h[i] − Δy[i-1]/h[i-1])
//
// for the interior knots, closed by continuity of the third derivative at
// x[1] and x[n-2] (the "not-a-knot" conditions; de Boor, A Practical Guide
// to Splines, 1978, ch. IV), the spline scipy's interp1d(kind="cubic")
// builds. M[0] and M[n-1] are eliminated with those conditions, leaving a
// tridiagonal system in M[1..n-2]; its elimination factors depend only on
// x, so they are computed once and applied to many right-hand sides.
type tridiag struct {
	x      []float64
	b, c   []float64 // eliminated diagonal and super-diagonal
	w      []float64 // forward-elimination multipliers (w[0] unused)
	q0, q1 float64   // M0 = (1+q0)M1 − q0·M2; M[n-1] = (1+q1)M[n-2] − q1·M[n-3]
}

func newTridiag(x []float64) *tridiag {
	n := len(x)
	h := func(i int) float64 { return x[i+1] - x[i] }
	nn := n - 2
	a := make([]float64, nn)
	t := &tridiag{x: x, b: make([]float64, nn), c: make([]float64, nn), w: make([]float64, nn)}
	for r := range nn {
		i := r + 1
		a[r], t.b[r], t.c[r] = h(i-1), 2*(h(i-1)+h(i)), h(i)
	}
	t.q0, t.q1 = h(0)/h(1), h(n-2)/h(n-3)
	t.b[0] += a[0] * (1 + t.q0)
	t.c[0] -= a[0] * t.q0
	t.b[nn-1] += t.c[nn-1] * (1 + t.q1)
	a[nn-1] -= t.c[nn-1] * t.q1
	for r := 1; r < nn; r++ {
		t.w[r] = a[r] / t.b[r-1]
		t.b[r] -= t.w[r] * t.c[r-1]
	}
	return t
}

// solveRows computes the second-derivative rows m[k] (each of length L)
// for data rows y[k]: L splines on the same knots at once.
func (t *tridiag) solveRows(y, m [][]float64) {
	n := len(t.x)
	nn := n - 2
	// Right-hand sides go into m[1..n-2] and are solved in place.
	for r := range nn {
		i := r + 1
		hl, hr := t.x[i]-t.x[i-1], t.x[i+1]-t.x[i]
		ym, y0, yp, out := y[i-1], y[i], y[i+1], m[i]
		for l := range out {
			out[l] = 6 * ((yp[l]-y0[l])/hr - (y0[l]-ym[l])/hl)
		}
		if r > 0 {
			prev, w := m[i-1], t.w[r]
			for l := range out {
				out[l] -= w * prev[l]
			}
		}
	}
	last := m[nn]
	for l := range last {
		last[l] /= t.b[nn-1]
	}
	for r := nn - 2; r >= 0; r-- {
		out, next, c, b := m[r+1], m[r+2], t.c[r], t.b[r]
		for l := range out {
			out[l] = (out[l] - c*next[l]) / b
		}
	}
	for l := range m[0] {
		m[0][l] = (1+t.q0)*m[1][l] - t.q0*m[2][l]
		m[n-1][l] = (1+t.q1)*m[n-2][l] - t.q1*m[n-3][l]
	}
}

// segment locates f (x[0] ≤ f ≤ x[n-1], n ≥ 2) in interval j and returns
// the spline's basis values there: s(f) = a·y[j] + b·y[j+1] + ca·M[j] + cb·M[j+1]
// (a, b alone give linear interpolation).
func segment(x []float64, f float64) (j int, a, b, ca, cb float64) {
	n := len(x)
	j = sort.SearchFloat64s(x, f) - 1 // x[j] < f ≤ x[j+1]
	j = max(0, min(j, n-2))
	hj := x[j+1] - x[j]
	a = (x[j+1] - f) / hj
	b = (f - x[j]) / hj
	ca = (a*a*a - a) * hj * hj / 6
	cb = (b*b*b - b) * hj * hj / 6
	return j, a, b, ca, cb
}
