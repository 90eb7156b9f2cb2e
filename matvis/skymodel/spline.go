package skymodel

import "sort"

// newKnots prepares interpolation on the increasing abscissae x. For four
// or more knots it precomputes d2, the linear map from the data y to the
// second derivatives M of the not-a-knot cubic spline through (x, y):
//
//	h[i-1]·M[i-1] + 2(h[i-1]+h[i])·M[i] + h[i]·M[i+1] = 6·(Δy[i]/h[i] − Δy[i-1]/h[i-1])
//
// for the interior knots, closed by continuity of the third derivative at
// x[1] and x[n-2] (the "not-a-knot" conditions; de Boor, A Practical Guide
// to Splines, 1978, ch. IV). Column k of d2 is the solution for y = e_k.
func newKnots(x []float64) knots {
	k := knots{x: x}
	n := len(x)
	if n < 4 {
		return k
	}
	k.d2 = make([]float64, n*n)
	col := make([]float64, n)
	for j := range n {
		notAKnotSecondDerivs(x, j, col)
		for i := range n {
			k.d2[i*n+j] = col[i]
		}
	}
	return k
}

// notAKnotSecondDerivs solves for the spline second derivatives M when
// y = e_j (n ≥ 4), into m. M[0] and M[n-1] are eliminated with the
// not-a-knot conditions, leaving a tridiagonal system in M[1..n-2] that is
// solved by the Thomas algorithm.
func notAKnotSecondDerivs(x []float64, j int, m []float64) {
	n := len(x)
	h := func(i int) float64 { return x[i+1] - x[i] }
	y := func(i int) float64 {
		if i == j {
			return 1
		}
		return 0
	}
	nn := n - 2              // unknowns M[1..n-2]
	a := make([]float64, nn) // sub-diagonal
	b := make([]float64, nn) // diagonal
	c := make([]float64, nn) // super-diagonal
	r := make([]float64, nn)
	for t := range nn {
		i := t + 1
		a[t], b[t], c[t] = h(i-1), 2*(h(i-1)+h(i)), h(i)
		r[t] = 6 * ((y(i+1)-y(i))/h(i) - (y(i)-y(i-1))/h(i-1))
	}
	// M0 = (1+h0/h1)·M1 − (h0/h1)·M2, substituted into the first row.
	q0 := h(0) / h(1)
	b[0] += a[0] * (1 + q0)
	c[0] -= a[0] * q0
	// M[n-1] = (1+h[n-2]/h[n-3])·M[n-2] − (h[n-2]/h[n-3])·M[n-3].
	q1 := h(n-2) / h(n-3)
	b[nn-1] += c[nn-1] * (1 + q1)
	a[nn-1] -= c[nn-1] * q1
	for t := 1; t < nn; t++ {
		w := a[t] / b[t-1]
		b[t] -= w * c[t-1]
		r[t] -= w * r[t-1]
	}
	m[nn] = r[nn-1] / b[nn-1]
	for t := nn - 2; t >= 0; t-- {
		m[t+1] = (r[t] - c[t]*m[t+2]) / b[t]
	}
	m[0] = (1+q0)*m[1] - q0*m[2]
	m[n-1] = (1+q1)*m[n-2] - q1*m[n-3]
}

// weights returns w with Σ_k w[k]·y[k] the interpolant at f (x[0] ≤ f ≤
// x[n-1]): the cubic spline for 4 or more knots unless kind is Linear,
// else linear; a single knot gives weight 1.
func (k *knots) weights(f float64, kind Interp) []float64 {
	n := len(k.x)
	w := make([]float64, n)
	if n == 1 {
		w[0] = 1
		return w
	}
	j := sort.SearchFloat64s(k.x, f) - 1 // x[j] < f ≤ x[j+1]
	j = max(0, min(j, n-2))
	hj := k.x[j+1] - k.x[j]
	a := (k.x[j+1] - f) / hj
	b := (f - k.x[j]) / hj
	w[j], w[j+1] = a, b
	if kind == Linear || k.d2 == nil {
		return w
	}
	ca := (a*a*a - a) * hj * hj / 6
	cb := (b*b*b - b) * hj * hj / 6
	rj, rj1 := k.d2[j*n:(j+1)*n], k.d2[(j+1)*n:(j+2)*n]
	for i := range n {
		w[i] += ca*rj[i] + cb*rj1[i]
	}
	return w
}
