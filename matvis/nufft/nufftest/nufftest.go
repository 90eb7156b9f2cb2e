// Package nufftest draws the random problems the tests of a type-3 NUFFT
// (matvis/nufft on the CPU, matvis/nufftgpu on the GPU) check against the
// direct sum, and measures their error, the same way for both.
package nufftest

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
)

// Problem draws n points in xoff + [−xh, xh)^d, m targets in
// soff + [−sh, sh)^d, and n complex strengths of unit normal parts.
func Problem(rng *rand.Rand, d, n, m int, xh, sh, xoff, soff float64) (x [][]float64, c []complex128, s [][]float64) {
	x, s = make([][]float64, d), make([][]float64, d)
	for a := range d {
		x[a], s[a] = make([]float64, n), make([]float64, m)
		for j := range x[a] {
			x[a][j] = xoff + xh*(2*rng.Float64()-1)
		}
		for k := range s[a] {
			s[a][k] = soff + sh*(2*rng.Float64()-1)
		}
	}
	c = make([]complex128, n)
	for j := range c {
		c[j] = complex(rng.NormFloat64(), rng.NormFloat64())
	}
	return x, c, s
}

// RelErr is ‖got − want‖₂ / ‖want‖₂; a NaN anywhere in got makes it NaN.
func RelErr(got, want []complex128) float64 {
	var num, den float64
	for i := range want {
		e := cmplx.Abs(got[i] - want[i])
		num += e * e
		a := cmplx.Abs(want[i])
		den += a * a
	}
	return math.Sqrt(num / den)
}
