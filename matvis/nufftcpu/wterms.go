package nufftcpu

import (
	"math"
	"math/cmplx"
	"strconv"

	"github.com/gomatvis/gomatvis/matvis/beam"
)

// The w-terms of a non-coplanar array as a few 2-D transforms. With the up
// component u ∈ (0, 1] of a direction written u = ½ + ½τ, τ ∈ [−1, 1],
// and s_w = ω·(z_j − z_i), the Jacobi–Anger expansion (with cos θ = τ)
// gives
//
//	exp(i·s_w·u) = exp(i·s_w/2) · Σ_n ε_n·iⁿ·J_n(s_w/2)·T_n(τ),
//
// ε_0 = 1, ε_n = 2, T_n the Chebyshev polynomials. So each visibility is
// Σ_n a_n(k)·F_n(k), where F_n is the 2-D (east, north) transform of the
// strengths times T_n(τ_s) and a_n(k) = ε_n·iⁿ·J_n(ρ_k)·exp(i·s_w,k/2),
// ρ_k = s_w,k/2. The series converges like (ρ/2)ⁿ/n!: for surveyed
// positions a few centimetres off a plane at 150 MHz (ρ ≲ 0.3), eight or
// nine terms reach 1e-12, each a 2-D transform far cheaper than the 3-D
// transform's grid, whose third axis needs 2w points however thin the
// array.

// maxTerms bounds the expansion: beyond it the 3-D transform is used.
const maxTerms = 24

// jaTermsAt is the number of terms channel fi needs: the least n with
// 2·Σ_{m≥n}|J_m(ρ)| ≤ ε/4 at the largest ρ, from the standard bound
// |J_m(ρ)| ≤ (ρ/2)^m/m! (checked against math.Jn for m ≤ 24, ρ ≤ 8 on
// 2026-12-01) and a geometric tail; maxTerms+1 when more are needed.
func (r *run) jaTermsAt(fi int) int {
	sim := r.sim
	omega := 2 * math.Pi * sim.Freqs[fi] / beam.SpeedOfLight
	var rho float64
	for _, p := range r.targets {
		rho = math.Max(rho, math.Abs(omega*(sim.Antennas[p[1]][2]-sim.Antennas[p[0]][2]))/2)
	}
	return jaTerms(rho, r.eps())
}

// jaTerms is the least number of terms n ≥ 1 whose tail bound
// 2·(ρ/2)^n/n!/(1 − ρ/(2(n+1))) is at most ε/4, or maxTerms+1.
func jaTerms(rho, eps float64) int {
	term := 1.0 // (ρ/2)^n / n!
	for n := 0; n <= maxTerms; n++ {
		if ratio := rho / (2 * float64(n+1)); ratio < 0.5 && 2*term/(1-ratio) <= eps/4 {
			return max(n, 1)
		}
		term *= rho / 2 / float64(n+1)
	}
	return maxTerms + 1
}

// jaCoefficients are a_n(k) for every term and pair at ω: per target one
// exponential and a Bessel function per term, split among the workers
// (10⁵ targets × 9 terms are ~10⁶ Bessel functions).
func (r *run) jaCoefficients(omega float64) [][]complex128 {
	sim := r.sim
	ja := make([][]complex128, r.terms)
	for n := range ja {
		ja[n] = make([]complex128, len(r.targets))
	}
	parallel(r.b.workers, len(r.targets), func(lo, hi int) {
		jn := make([]float64, r.terms)
		for k := lo; k < hi; k++ {
			p := r.targets[k]
			sw := omega * (sim.Antennas[p[1]][2] - sim.Antennas[p[0]][2])
			e := cmplx.Exp(complex(0, sw/2))
			in := complex(1, 0)
			besselJ(sw/2, jn)
			for n := range r.terms {
				eps := 2.0
				if n == 0 {
					eps = 1
				}
				ja[n][k] = complex(eps*jn[n], 0) * in * e
				in *= 1i
			}
		}
	})
	return ja
}

// transform computes r.acc, the visibilities of the strengths r.base: one
// transform, or with w-terms the sum over the expansion's terms.
func (r *run) transform() error {
	if r.terms == 0 {
		return r.execute(r.base, r.acc)
	}
	k := len(r.base)
	r.tPrev, r.tCur = grow(r.tPrev, k), grow(r.tCur, k)
	clear(r.acc)
	if r.pack {
		return r.transformPacked()
	}
	for n := range r.terms {
		// T_0 = 1, T_1 = τ, T_{n+1} = 2τ·T_n − T_{n−1}.
		switch n {
		case 0:
			for i := range r.tCur {
				r.tCur[i] = 1
			}
		case 1:
			copy(r.tPrev, r.tCur)
			copy(r.tCur, r.tau[:k])
		default:
			for i, t := range r.tau[:k] {
				r.tPrev[i], r.tCur[i] = r.tCur[i], 2*t*r.tCur[i]-r.tPrev[i]
			}
		}
		for i, b := range r.base {
			r.str[i] = b * complex(r.tCur[i], 0)
		}
		if err := r.execute(r.str, r.f); err != nil {
			return err
		}
		for kk, a := range r.ja[n] {
			r.acc[kk] += a * r.f[kk]
		}
	}
	return nil
}

// execute transforms the strengths c into f: as real strengths when the
// run's are (realStrengths), which halves the FFT.
func (r *run) execute(c, f []complex128) error {
	if !r.realStrengths() {
		copy(r.str, c)
		return r.plan.ExecuteContext(r.ctx, r.str, f)
	}
	for i, v := range c {
		r.rstr[i] = real(v)
	}
	return r.plan.ExecuteRealContext(r.ctx, r.rstr, f)
}

// wNote describes the w-terms for the strategy's name.
func (r *run) wNote() string {
	if r.terms > 0 {
		note := " with w-terms in " + strconv.Itoa(r.terms) + " Jacobi–Anger terms"
		if r.pack {
			note += ", two a transform"
		}
		return note
	}
	return ""
}

// transformPacked is transform for real strengths r.base with every
// pair's reverse among the targets: terms n and n+1 go in one transform
// of c·(T_n + i·T_{n+1}), whose F(s) = F_n(s) + i·F_{n+1}(s); a transform
// of real strengths at −s is the conjugate of the one at s, and the
// reverse pair's target is −s, so F_n = (F + conj(F_rev))/2 and
// F_{n+1} = (F − conj(F_rev))/(2i).
func (r *run) transformPacked() error {
	pl := r.plan
	k := len(r.base)
	r.tNext = grow(r.tNext, k)
	for n := 0; n < r.terms; n += 2 {
		// r.tCur holds T_n and r.tNext T_{n+1}.
		switch n {
		case 0:
			for i := range r.tCur {
				r.tCur[i] = 1
			}
			copy(r.tNext, r.tau[:k])
		default:
			for i, t := range r.tau[:k] {
				t2 := 2*t*r.tNext[i] - r.tCur[i]
				r.tCur[i], r.tNext[i] = t2, 2*t*t2-r.tNext[i]
			}
		}
		second := n+1 < r.terms
		for i, b := range r.base {
			im := 0.0
			if second {
				im = r.tNext[i]
			}
			r.str[i] = complex(real(b)*r.tCur[i], real(b)*im)
		}
		if err := pl.ExecuteContext(r.ctx, r.str, r.f); err != nil {
			return err
		}
		an := r.ja[n]
		var an1 []complex128
		if second {
			an1 = r.ja[n+1]
		}
		for kk, v := range r.f {
			w := cmplx.Conj(r.f[r.rev[kk]])
			r.acc[kk] += an[kk] * (v + w) / 2
			if second {
				r.acc[kk] += an1[kk] * (v - w) / complex(0, 2)
			}
		}
	}
	return nil
}
