package cpu

import (
	"math"
	"slices"

	"github.com/gomatvis/gomatvis/internal/blocks"
)

// Subnormal-free Z (finding 8).
//
// Z entries far down a beam's sidelobes (a 0.15 rad Gaussian falls to 1e-24
// at the horizon) multiply, in the Gram product, to values below float32's
// smallest normal number 2⁻¹²⁶ ≈ 1.2e-38. OpenBLAS's generic kernels
// (Prescott, Core2: a multiply, then an add) multiply such subnormals
// several times slower on AMD Zen 5 and about 50 times slower on Intel
// Xeons, where each one takes a microcode assist; FMA kernels
// (Haswell, SkylakeX) are not slowed on Zen 5 (bench/RESULTS.md).
// buildZ therefore writes each chunk's Z as follows.
//
//  1. Scale. P is an upper bound on the chunk's largest |Z|: the maximum
//     over sources s, used beams and components of amp_s·(|Re b| + |Im b|),
//     between max|Z| and √2·max|Z|. Z is multiplied by 2^e, with e chosen
//     so that P·2^e ∈ [1, 2), and its Gram by alpha = 2^−2e. Both are
//     powers of two, so the sums are bit-identical to unscaled ones
//     wherever those stay normal; the scaling only moves the products away
//     from the bottom of the exponent range, whatever the flux units.
//  2. Flush. Each real or imaginary part of a scaled entry smaller in
//     magnitude than 2^flushExp·P·2^e is set to zero: 2⁻⁶⁰·P in complex64,
//     2⁻⁵⁰⁰·P in complex128.
//
// No subnormal product: every nonzero part is then at least 2⁻⁶⁰ (scaled),
// so every product of two parts, which is what herk multiplies, is at least
// 2⁻¹²⁰, 64 times above float32's normal range (2⁻¹⁰⁰⁰ for float64, whose
// normal range ends at 2⁻¹⁰²²).
//
// Error bound: flushing changes an entry by |ΔZ| ≤ √2·τ·P, with τ = 2⁻⁶⁰,
// and a Gram term conj(Z_r)·Z_q by at most |ΔZ_r|·|Z_q| + |Z'_r|·|ΔZ_q| ≤
// 2√2·τ·P² (|Z|, |Z'| ≤ P). Summed over the N columns (nfeed × sources) of
// all the chunks of an integration, with P the largest chunk's,
//
//	|ΔV| ≤ 2√2·N·2⁻⁶⁰·P² = N·2⁻⁵⁸·⁵·P².
//
// P² ≤ 2·max|Z|², and max|Z|² is one term of an autocorrelation Σ|Z_r|²,
// so |ΔV| ≤ N·2⁻⁵⁷·⁵ times the largest autocorrelation |V_rr|, which also
// bounds every |V_rq| (Cauchy–Schwarz). float32's unit roundoff is
// u = 2⁻²⁴; the finding's dev run (20 000 sources, two axes: N ≤ 4·10⁴ ≈
// 2^15.3) gives |ΔV| ≤ 2⁻⁴²·|V_rr|, 2¹⁸ times below one rounding of the
// largest visibility, and even N = 2³² columns (more sources than any sky
// model) give 2⁻²⁵·⁵·|V_rr| < u/2: the flush cannot move a result by more
// than fp32 rounding (the tests' bar is 1e-5 of the peak |V|). In
// complex128 the bound is N·2⁻⁴⁹⁷·⁵·|V_rr|, far below 2⁻⁵³.
//
// Limits: when P itself is outside the range a float32 alpha can undo
// (P < 2⁻⁶³ or P ≥ 2⁶⁴: a chunk whose brightest beam-weighted flux 2P² is
// below 2e-38 or above 7e38 in the sky model's units), e is clamped to
// ±63; the flush threshold stays 2⁻⁶⁰·P, so the error bound holds, but
// products may then be subnormal: such a run's visibilities (≈ P²) are
// themselves at the edge of float32's range. In complex128 the clamp is
// at ±500, P < 2⁻⁵⁰⁰ or P ≥ 2⁵⁰¹.
const (
	flushExp32 = -60
	flushExp64 = -500
	// maxExp32 and maxExp64 bound |e| so that alpha = 2^−2e is a normal
	// float32 or float64.
	maxExp32 = 63
	maxExp64 = 500
)

// zscale is how one chunk's Z is scaled and flushed.
type zscale struct {
	// mul = 2^e multiplies the amplitudes, and so Z.
	mul float64
	// alpha = 2^−2e multiplies the Gram.
	alpha float64
	// floor: scaled real and imaginary parts below it are set to zero.
	floor float64
}

// scaleZ finds the chunk's scaling, multiplies amp by its mul (exactly: a
// power of two) and returns it. beams are the evaluated responses (only
// the used ones are read), amp the sources' amplitudes in the same order.
func (r *run) scaleZ(amp []float64, beams [][]complex128, p1 bool) zscale {
	if r.b.noFlush {
		return zscale{mul: 1, alpha: 1}
	}
	peak := r.peakZ(amp, beams)
	if !(peak > 0) || math.IsInf(peak, 0) {
		// All zero, or a NaN/Inf flux that the result must show.
		return zscale{mul: 1, alpha: 1}
	}
	fexp, maxExp := flushExp64, maxExp64
	if p1 {
		fexp, maxExp = flushExp32, maxExp32
	}
	_, pe := math.Frexp(peak) // peak = f·2^pe, f ∈ [0.5, 1)
	e := min(max(1-pe, -maxExp), maxExp)
	sc := zscale{mul: math.Ldexp(1, e), alpha: math.Ldexp(1, -2*e), floor: math.Ldexp(peak, e+fexp)}
	r.parallel(len(amp), func(lo, hi int) {
		for s := lo; s < hi; s++ {
			amp[s] *= sc.mul
		}
	})
	return sc
}

// peakZ returns max over sources s, used beams and components of
// amp[s]·(|Re b| + |Im b|), an upper bound within √2 of the largest |Z|.
// The sources are taken a block of at most blocks.Grain at a time, so
// that a cancel stops it within a block (r.parallel); the caller then
// discards the peak.
func (r *run) peakZ(amp []float64, beams [][]complex128) float64 {
	k := len(amp)
	nb := min(r.b.workers, max(1, k/256))
	per := min((k+nb-1)/nb, blocks.Grain)
	nb = max(1, (k+per-1)/per)
	peaks := make([]float64, nb)
	_ = blocks.RunContext(r.context(), nb, min(r.b.workers, nb), 1, func(blo, bhi int) {
		for blk := blo; blk < bhi; blk++ {
			peaks[blk] = blockPeak(amp, beams, r.used, k, min(blk*per, k), min((blk+1)*per, k))
		}
	})
	// The block peaks are never NaN (blockPeak's comparisons skip NaN).
	return slices.Max(peaks)
}

// blockPeak is peakZ over sources lo..hi−1.
func blockPeak(amp []float64, beams [][]complex128, used []bool, k, lo, hi int) float64 {
	p := 0.0
	for bi, b := range beams {
		if !used[bi] {
			continue
		}
		for c := range len(b) / k {
			for s, v := range b[c*k+lo : c*k+hi] {
				// NaN compares false: a NaN flux or beam is no peak.
				if m := amp[lo+s] * (math.Abs(real(v)) + math.Abs(imag(v))); m > p {
					p = m
				}
			}
		}
	}
	return p
}

// c64 rounds a scaled entry to complex64, flushing small parts.
func (sc zscale) c64(v complex128) complex64 {
	return complex(float32(sc.flush(real(v))), float32(sc.flush(imag(v))))
}

// c128 flushes a scaled entry's small parts.
func (sc zscale) c128(v complex128) complex128 {
	return complex(sc.flush(real(v)), sc.flush(imag(v)))
}

// flush returns x, or 0 when |x| < floor. It is branchless: which parts
// are flushed follows the sources' order in the sky and would mispredict
// a branch often. For non-negative floats (and NaN above them, kept) the
// order of the bit patterns is the order of the values.
func (sc zscale) flush(x float64) float64 {
	bits := math.Float64bits(x)
	abs := bits &^ (1 << 63)
	// All ones when abs < floor's bits, else zero; both are below 2⁶³.
	keep := ^uint64(int64(abs-math.Float64bits(sc.floor)) >> 63)
	return math.Float64frombits(bits & keep)
}
