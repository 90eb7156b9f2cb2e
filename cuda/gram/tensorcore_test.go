package gram_test

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/cuda/gram"
	"github.com/gomatvis/gomatvis/internal/gputest"
)

// uploadSplit copies z (column-major, leading dimension ld ≥ k, the
// padding filled with NaN so a read past k shows) to the device as
// complex64 and splits it with scale s for TCF16.
func uploadSplit(t *testing.T, e *env, z []complex128, m, k, ld int, s float64) cuda.DevicePtr {
	t.Helper()
	h := make([]complex64, m*ld)
	for i := range h {
		h[i] = complex64(cmplx.NaN())
	}
	for i := 0; i < m; i++ {
		for l := 0; l < k; l++ {
			h[i*ld+l] = complex64(z[i*k+l])
		}
	}
	d, err := cuda.AllocFor[complex64](e.c, max(len(h), 1))
	gputest.Must(t, err)
	gputest.Must(t, cuda.Upload(e.c, d, h, e.s))
	sp, err := cuda.AllocFor[complex64](e.c, max(len(h), 1))
	gputest.Must(t, err)
	e.g.SetZScale(s)
	gputest.Must(t, e.g.Split(d, sp, int64(len(h))))
	gputest.Must(t, e.c.SyncStream(e.s))
	e.c.Free(d)
	t.Cleanup(func() { e.c.Free(sp) })
	return sp
}

// poisoned allocates an m×m complex64 C filled with NaN.
func poisoned(t *testing.T, e *env, m int) cuda.DevicePtr {
	t.Helper()
	c, err := e.c.Alloc(int64(m * m * 8))
	gputest.Must(t, err)
	gputest.Must(t, e.c.Memset8(c, 0xFF, int64(m*m*8), e.s))
	t.Cleanup(func() { e.c.Free(c) })
	return c
}

func maxPart(z []complex128) float64 {
	b := 0.0
	for _, v := range z {
		b = max(b, math.Abs(real(v)), math.Abs(imag(v)))
	}
	return b
}

// The split-FP16 tensor-core product against a plain complex128 loop on
// fresh random Z over shapes that cross every tile and stage edge: C
// poisoned with NaN before a beta-0 product, then a second product added
// (beta 1) and a third subtracted (alpha −1, a Stokes sky's negative
// factors); only the lower triangle is written.
func TestTensorCoreMatchesGoLoop(t *testing.T) {
	e := setup(t)
	cases := []struct{ m, k, ld int }{
		{1, 1, 2}, {5, 3, 8}, {63, 31, 32}, {64, 32, 34}, {65, 33, 40}, {128, 4000, 4002},
		{130, 1001, 1002}, {200, 257, 258}, {700, 300, 302}, {1400, 70, 70},
	}
	for _, tc := range cases {
		seed := rand.Uint64()
		rng := rand.New(rand.NewPCG(seed, 1))
		mag := math.Ldexp(1, rng.IntN(40)-20) // any overall magnitude: the scale follows the bound
		zs := make([][]complex128, 3)
		for i := range zs {
			zs[i] = make([]complex128, tc.m*tc.k)
			for j := range zs[i] {
				zs[i][j] = complex(rng.NormFloat64(), rng.NormFloat64()) * complex(mag, 0)
			}
		}
		ref := gputest.GramRef(zs[0], tc.m, tc.k)
		for i, v := range gputest.GramRef(zs[1], tc.m, tc.k) {
			ref[i] += v
		}
		for i, v := range gputest.GramRef(zs[2], tc.m, tc.k) {
			ref[i] -= v
		}
		c := poisoned(t, e, tc.m)
		for i, z := range zs {
			alpha, beta := 1.0, 1.0
			switch i {
			case 0:
				beta = 0
			case 2:
				alpha = -1
			}
			d := uploadSplit(t, e, z, tc.m, tc.k, tc.ld, gram.Pow2Scale(maxPart(z)))
			gputest.Must(t, e.g.AccumulateScaled(gram.TCF16, d, tc.ld, tc.m, tc.k, c, alpha, beta))
		}
		got := download(t, e, c, tc.m, false)
		if err := e.g.Accumulate(gram.TCF16, c, tc.ld+1, tc.m, tc.k, c, 1); err == nil {
			t.Errorf("m=%d: odd ldz %d accepted", tc.m, tc.ld+1)
		}
		er := gputest.MaxRelErr(got, ref, tc.m, true)
		t.Logf("m=%d k=%d ld=%d magnitude 2^%.0f seed %d: error/peak %.2e", tc.m, tc.k, tc.ld, math.Log2(mag), seed, er)
		if !(er <= 2e-6) {
			t.Errorf("m=%d k=%d: error %.2e of the peak (seed %d), want ≤ 2e-6", tc.m, tc.k, er, seed)
		}
		for j := 0; j < tc.m; j++ {
			for i := 0; i < j; i++ {
				if v := got[i+j*tc.m]; !cmplx.IsNaN(v) {
					t.Fatalf("m=%d: upper entry (%d, %d) written (%v): the product writes the lower triangle only", tc.m, i, j, v)
				}
			}
		}
	}
}

// Dynamic range: the FP16 scale is per frequency, so a chunk of faint
// sources (10⁻³…1 Jy) is scaled for the channel's brightest (10⁴ Jy) and
// its small parts fall into FP16's subnormals. The bound of tc_f16.cuh
// must hold entry by entry: |ΔC_rc| ≤ 2⁻²⁴·b·Σ|x|+|y| (the split's floor,
// 2⁻²⁵·b per value, doubled) + 2⁻¹⁶·Σ|x·y| (split, truncating
// tensor-core adds over one stage and float32 running sums), b the
// largest |Z| of the channel — fp32-level accuracy relative to it.
func TestTensorCoreDynamicRange(t *testing.T) {
	e := setup(t)
	const m, k = 130, 6000
	seed := rand.Uint64()
	rng := rand.New(rand.NewPCG(seed, 2))
	flux := func(lo, hi float64) float64 { return math.Exp(math.Log(lo) + rng.Float64()*math.Log(hi/lo)) }
	beam := make([]float64, m)
	for i := range beam {
		beam[i] = 0.2 + 0.8*rng.Float64()
	}
	z := make([]complex128, m*k)
	for l := 0; l < k; l++ {
		a := math.Sqrt(flux(1e-3, 1) / 2) // every source of this chunk faint
		for i := 0; i < m; i++ {
			z[i*k+l] = cmplx.Rect(a*beam[i], 2*math.Pi*rng.Float64())
		}
	}
	b := math.Sqrt(1e4 / 2) // the channel's brightest source, in another chunk
	d := uploadSplit(t, e, z, m, k, k, gram.Pow2Scale(b))
	c := poisoned(t, e, m)
	gputest.Must(t, e.g.Accumulate(gram.TCF16, d, k, m, k, c, 0))
	got := download(t, e, c, m, false)
	ref := gputest.GramRef(z, m, k)
	worst, worstAbs := 0.0, 0.0
	for j := 0; j < m; j++ {
		for i := j; i < m; i++ {
			var s1, s2 float64
			for l := 0; l < k; l++ {
				x, y := cmplx.Abs(z[i*k+l]), cmplx.Abs(z[j*k+l])
				s1 += x + y
				s2 += x * y
			}
			bound := math.Ldexp(b*s1, -24) + math.Ldexp(s2, -16)
			err := cmplx.Abs(got[i+j*m] - ref[i+j*m])
			worst = max(worst, err/bound)
			worstAbs = max(worstAbs, err/cmplx.Abs(ref[i+j*m]))
		}
	}
	t.Logf("seed %d: worst error / bound %.3f; worst error relative to the entry %.2e", seed, worst, worstAbs)
	if !(worst <= 1) {
		t.Errorf("faint chunk scaled for a 10⁴ Jy channel: error %.2f× the documented bound (seed %d)", worst, seed)
	}
}
