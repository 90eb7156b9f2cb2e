package matvis

import (
	"context"
	"fmt"
	"math"
)

// PolarizedSpectrum is a Spectrum that also gives Stokes Q, U and V:
// skymodel.Sky implements it. A Config whose Sky is one, and whose
// Polarized reports true, is a full-Stokes simulation (docs/stokes.md).
type PolarizedSpectrum interface {
	Spectrum
	// StokesAt writes Stokes parameter k (0 I, 1 Q, 2 U, 3 V), in Jy, of
	// every source at freqHz into dst (one value per source).
	StokesAt(freqHz float64, k int, dst []float64) error
	// Polarized reports whether any source has a non-zero Q, U or V.
	Polarized() bool
}

// PolBasis gives, per source and time, the orientation of the sky's
// polarization basis (θ̂ = −deĉ, φ̂ = +râ, ICRS) in the local basis of the
// beams (ẑâ, φ̂ with azimuth from East toward North, as UVBeam and
// matvis.AzZa). FDBasis implements it with matvis/astro.
type PolBasis interface {
	// NSources and NTimes are the sizes, as Coordinates'.
	NSources() int
	NTimes() int
	// Basis writes cos X and sin X of every source at time index ti, with
	// cos X = ẑâ·θ̂ and sin X = ẑâ·φ̂ (pyradiosky's coherency_calc), so that
	// a field's components map as E_(za,az) = R·E_(θ,φ),
	// R = [[cos X, sin X], [−sin X, cos X]].
	Basis(ti int, cosX, sinX []float64) error
}

// ContextPolBasis is a PolBasis whose Basis can stop part-way (the
// finite-difference basis rotates three copies of the sky: seconds at
// 10⁷ sources). Use BasisContext, which takes any PolBasis.
type ContextPolBasis interface {
	PolBasis
	// BasisContext is Basis that stops soon after ctx is done and then
	// returns ctx's error, the slices partly written.
	BasisContext(ctx context.Context, ti int, cosX, sinX []float64) error
}

// BasisContext writes b's basis angles of time ti, stopping soon after a
// cancel when b is a ContextPolBasis; any other PolBasis runs to its end,
// with ctx checked before and after.
func BasisContext(ctx context.Context, b PolBasis, ti int, cosX, sinX []float64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if cb, ok := b.(ContextPolBasis); ok {
		return cb.BasisContext(ctx, ti, cosX, sinX)
	}
	if err := b.Basis(ti, cosX, sinX); err != nil {
		return err
	}
	return ctx.Err()
}

// CoherencyRotation chooses how the sky's coherency is turned into the
// beams' local basis.
type CoherencyRotation string

const (
	// RotationPyradiosky is pyradiosky's (and so pyuvsim's) C_loc = Rᵀ·C·R,
	// with C = ½[[I+Q, U−iV], [U+iV, I−Q]] in the (θ̂, φ̂) basis. It
	// reproduces pyuvsim 1.2 (with RigidBasis, NewPolBasis's pairing), but
	// it mirrors the polarization angle about each source's vertical
	// (docs/stokes.md): selectable, not the default.
	RotationPyradiosky CoherencyRotation = "pyradiosky"
	// RotationIAU is the rotation derived from first principles
	// (docs/stokes.md): Stokes in the IAU convention (position angle from
	// North through East, C = ½[[I+Q, U−iV], [U+iV, I−Q]] in the basis
	// (deĉ, râ)), the field vectors projected onto (ẑâ, φ̂). Its diagonal
	// equals pyradiosky's; its off-diagonal terms have the opposite sign.
	// It is the default (Options.Rotation ""), for every input.
	RotationIAU CoherencyRotation = "iau"
)

// EffectiveRotation is the rotation r runs as: RotationIAU for "".
func EffectiveRotation(r CoherencyRotation) CoherencyRotation {
	if r == "" {
		return RotationIAU
	}
	return r
}

// RotationNote is one sentence naming the rotation a polarized sky ran
// with and how to get the other, for an output's history and a run's
// console.
func RotationNote(r CoherencyRotation) string {
	if EffectiveRotation(r) == RotationPyradiosky {
		return "Stokes rotation: pyradiosky (pyuvsim 1.2's Rᵀ·C·R with pyradiosky's rigid basis, which mirrors the polarization angle about the source's vertical); --stokes-rotation iau, the default, gives the physically derived one (docs/stokes.md)."
	}
	return "Stokes rotation: iau (the default, derived from the IAU convention: a first-principles field projection); --stokes-rotation pyradiosky reproduces pyuvsim 1.2 (docs/stokes.md)."
}

// Coherency is a 2×2 Hermitian coherency matrix in the beams' axis order:
// index 0 is the φ̂ (azimuth) axis and 1 the ẑâ axis, UVBeam's Naxes_vec
// order, which Response.Eval's component (feed f, axis k) uses.
type Coherency [2][2]complex128

// LocalCoherency is the coherency of a source with Stokes (i, q, u, v) whose
// sky basis sits at angle X (cosX, sinX, PolBasis) in the local basis,
// rotated by rot ("": RotationIAU, the default), in the beams' axis order
// (φ̂, ẑâ).
func LocalCoherency(i, q, u, v, cosX, sinX float64, rot CoherencyRotation) Coherency {
	// Sky coherency in (θ̂, φ̂).
	a, d := 0.5*(i+q), 0.5*(i-q)
	b := complex(0.5*u, -0.5*v) // C[θ][φ]
	// Rᵀ·C·R for R = [[c, s], [−s, c]]: the pyradiosky rotation.
	c, s := cosX, sinX
	cs := c * s
	br := real(b)
	tt := c*c*a - 2*cs*br + s*s*d
	pp := s*s*a + 2*cs*br + c*c*d
	tp := complex(cs*(a-d)+(c*c-s*s)*br, imag(b)) // C_loc[za][az]
	if EffectiveRotation(rot) == RotationIAU {
		tp = -tp
	}
	// Axis order (φ̂, ẑâ): index 0 is az, 1 is za.
	return Coherency{
		{complex(pp, 0), conj(tp)},
		{tp, complex(tt, 0)},
	}
}

func conj(z complex128) complex128 { return complex(real(z), -imag(z)) }

// Factor writes a Hermitian coherency as C = Σ_k sign[k]·w_k·w_kᴴ, the
// columns w_k = W[·][k] = √|λ_k|·e_k of its eigendecomposition, λ₀ ≥ λ₁,
// sign[k] = +1 for λ_k ≥ 0 and −1 otherwise. A physical source
// (I ≥ √(Q²+U²+V²)) has both signs +1; a negative eigenvalue (a negative-I
// or over-polarized sky) goes into the subtracted Gram product.
func (c Coherency) Factor() (w [2][2]complex128, sign [2]float64) {
	a, d := real(c[0][0]), real(c[1][1])
	b := c[0][1]
	m, h := 0.5*(a+d), 0.5*(a-d)
	r := math.Hypot(h, cmplx2abs(b))
	lp, lm := m+r, m-r
	var e0, e1 [2]complex128
	switch {
	case r == 0:
		e0, e1 = [2]complex128{1, 0}, [2]complex128{0, 1}
	case h >= 0:
		// (λ₊ − d, b*) is λ₊'s eigenvector; (−b, λ₊ − d) is orthogonal.
		x := h + r // λ₊ − d > 0
		n := math.Hypot(x, cmplx2abs(b))
		e0 = [2]complex128{complex(x/n, 0), conj(b) / complex(n, 0)}
		e1 = [2]complex128{-b / complex(n, 0), complex(x/n, 0)}
	default:
		// (b, λ₊ − a) and (λ₊ − a, −b*).
		x := r - h // λ₊ − a > 0
		n := math.Hypot(x, cmplx2abs(b))
		e0 = [2]complex128{b / complex(n, 0), complex(x/n, 0)}
		e1 = [2]complex128{complex(x/n, 0), -conj(b) / complex(n, 0)}
	}
	for k, l := range [2]float64{lp, lm} {
		e := e0
		if k == 1 {
			e = e1
		}
		sign[k] = 1
		if l < 0 {
			sign[k] = -1
		}
		amp := complex(math.Sqrt(math.Abs(l)), 0)
		w[0][k], w[1][k] = amp*e[0], amp*e[1]
	}
	return w, sign
}

func cmplx2abs(z complex128) float64 { return math.Hypot(real(z), imag(z)) }

// SkyPolarized reports whether the simulation's sky has Stokes Q, U or V:
// then the backends form each source's local coherency (PolBasis,
// Options.Rotation) instead of the Stokes-I path.
func (s *Simulation) SkyPolarized() bool {
	ps, ok := s.Sky.(PolarizedSpectrum)
	return ok && ps.Polarized()
}

// StokesAt writes Stokes I, Q, U and V (Jy) of every source at frequency
// index fi into dst[0..3] (each NSrc long). A value that is not finite is
// an error naming the source, the parameter and the channel; a negative I
// is allowed (its coherency has a negative eigenvalue, which the
// subtracted Gram product carries).
func (s *Simulation) StokesAt(fi int, dst [4][]float64) error {
	ps, ok := s.Sky.(PolarizedSpectrum)
	if !ok {
		return fmt.Errorf("matvis: the sky has no Stokes Q, U, V")
	}
	for k := range dst {
		if len(dst[k]) != s.NSrc() {
			return fmt.Errorf("matvis: Stokes buffer %d holds %d values for %d sources", k, len(dst[k]), s.NSrc())
		}
		if err := ps.StokesAt(s.Freqs[fi], k, dst[k]); err != nil {
			return fmt.Errorf("matvis: sky Stokes %c at freqs[%d] = %g Hz: %w", "IQUV"[k], fi, s.Freqs[fi], err)
		}
		for src, v := range dst[k] {
			if !finite(v) {
				return fmt.Errorf("matvis: sky Stokes %c of source %d at freqs[%d] = %g Hz is %v: must be finite", "IQUV"[k], src, fi, s.Freqs[fi], v)
			}
		}
	}
	return nil
}
