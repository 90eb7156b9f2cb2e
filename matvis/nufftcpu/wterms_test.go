package nufftcpu

import (
	"math"
	"math/cmplx"
	"testing"

	"github.com/gomatvis/gomatvis/matvis/backendtest"
)

// TestJacobiAnger checks the truncated expansion against exp(iρτ) itself
// at fresh random ρ and τ: with jaTerms(ρ, ε) terms the difference is at
// most ε, for every ε from 1e-3 to 1e-12.
func TestJacobiAnger(t *testing.T) {
	rng := backendtest.NewRNG(t, 34)
	for p := 3; p <= 12; p++ {
		eps := math.Pow(10, -float64(p))
		for range 200 {
			rho := 4 * (2*rng.Float64() - 1)
			tau := 2*rng.Float64() - 1
			n := jaTerms(math.Abs(rho), eps)
			if n > maxTerms {
				t.Fatalf("rho=%g eps=%g: %d terms", rho, eps, n)
			}
			jn := make([]float64, n)
			besselJ(rho, jn)
			var sum complex128
			in := complex(1, 0)
			t0, t1 := 1.0, tau
			for k := range n {
				tk := t0
				if k == 1 {
					tk = t1
				} else if k > 1 {
					t0, t1 = t1, 2*tau*t1-t0
					tk = t1
				}
				e := 2.0
				if k == 0 {
					e = 1
				}
				sum += complex(e*jn[k]*tk, 0) * in
				in *= 1i
			}
			if d := cmplx.Abs(sum - cmplx.Exp(complex(0, rho*tau))); d > eps {
				t.Fatalf("rho=%g tau=%g eps=%g: %d terms differ from exp(i rho tau) by %.3g", rho, tau, eps, n, d)
			}
		}
	}
}
