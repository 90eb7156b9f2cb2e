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

// Condition is κ = √M·‖c‖₂ / ‖want‖₂ for M exact outputs want of the
// strengths c: the factor by which the transform's relative ℓ2 error
// exceeds ε when the output cancels. The transform's error at one target
// is a sum of the points' kernel errors, c_j·δ_jk with |δ_jk| ≲ ε and
// unrelated phases, so it adds like a random walk to about ε·‖c‖₂ (the
// worst case, all in phase, is ε·‖c‖₁); over M targets that is
// ε·√M·‖c‖₂, and the relative error is ε·κ. Targets spread over many
// periods of the points give ‖want‖₂² ≈ M·‖c‖₂² (κ ≈ 1); targets that all
// coincide give f_k = F for every k and κ = ‖c‖₂/|F|, large when the
// terms of F cancel. κ is +Inf when want is all zero.
func Condition(c, want []complex128) float64 {
	var cc, ww float64
	for _, v := range c {
		a := cmplx.Abs(v)
		cc += a * a
	}
	for _, v := range want {
		a := cmplx.Abs(v)
		ww += a * a
	}
	return math.Sqrt(float64(len(want)) * cc / ww)
}
