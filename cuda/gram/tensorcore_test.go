package gram_test

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/cuda/gram"
	"github.com/gomatvis/gomatvis/internal/gputest"
	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// uploadSplit copies z (m rows of k, leading dimension ld ≥ k, the
// padding filled with NaN) to the device as complex64 and splits it with
// scale s for TCF16 (the split's padding is zero).
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
	gputest.Must(t, e.g.Split(d, ld, sp, ld, m, k))
	gputest.Must(t, e.c.SyncStream(e.s))
	e.c.Free(d)
	t.Cleanup(func() { e.c.Free(sp) })
	return sp
}

// tensorCoreStrategies are the split-FP16 products this card runs: TCF16
// everywhere, TCF16WG on sm_90 (where its absence is an error).
func tensorCoreStrategies(t *testing.T, e *env) []gram.Strategy {
	t.Helper()
	sts := []gram.Strategy{gram.TCF16}
	info := e.c.Info()
	switch {
	case e.g.Wgmma():
		sts = append(sts, gram.TCF16WG)
	case info.Major == 9 && info.Minor == 0:
		t.Errorf("an sm_90 card without the wgmma product (tc-f16-wg)")
	}
	return sts
}

// forEachTensorCore runs f as a subtest per split-FP16 product.
func forEachTensorCore(t *testing.T, e *env, f func(t *testing.T, st gram.Strategy)) {
	for _, st := range tensorCoreStrategies(t, e) {
		t.Run(string(st), func(t *testing.T) { f(t, st) })
	}
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
	forEachTensorCore(t, e, func(t *testing.T, st gram.Strategy) { tensorCoreMatchesGoLoop(t, e, st) })
}

func tensorCoreMatchesGoLoop(t *testing.T, e *env, st gram.Strategy) {
	cases := []struct{ m, k, ld int }{
		{1, 1, 4}, {5, 3, 8}, {63, 31, 32}, {64, 32, 36}, {65, 33, 40}, {128, 4000, 4004},
		{130, 1001, 1004}, {200, 257, 260}, {700, 300, 304}, {1400, 70, 72},
	}
	for _, tc := range cases {
		seed := sharedtest.Seed(t)
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
			gputest.Must(t, e.g.AccumulateScaled(st, d, tc.ld, tc.m, tc.k, c, alpha, beta))
		}
		got := download(t, e, c, tc.m, false)
		if err := e.g.Accumulate(st, c, tc.ld+2, tc.m, tc.k, c, 1); err == nil {
			t.Errorf("m=%d: ldz %d (not a multiple of 4) accepted", tc.m, tc.ld+2)
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

// The product kernel keeps its accumulators in registers (no spills to
// local memory) and as many blocks fit on an SM as the K split assumes.
func TestTensorCoreKernelFits(t *testing.T) {
	e := setup(t)
	forEachTensorCore(t, e, func(t *testing.T, st gram.Strategy) {
		k, err := e.g.TensorCoreKernel(st)
		gputest.Must(t, err)
		t.Logf("%s: %+v", st, k)
		if k.LocalBytes != 0 || k.BlocksPerSM < k.PlannedBlocksPerSM {
			t.Errorf("%s: %d bytes of local memory (spills), %d blocks per SM (want 0 and ≥ %d)", st, k.LocalBytes, k.BlocksPerSM, k.PlannedBlocksPerSM)
		}
	})
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
	forEachTensorCore(t, e, func(t *testing.T, st gram.Strategy) { tensorCoreDynamicRange(t, e, st) })
}

func tensorCoreDynamicRange(t *testing.T, e *env, st gram.Strategy) {
	const m, k = 130, 6000
	seed := sharedtest.Seed(t)
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
	gputest.Must(t, e.g.Accumulate(st, d, k, m, k, c, 0))
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

// Restrict: only the tiles holding the given entries are computed and
// written; the entries are right and every other tile keeps its poison.
func TestTensorCoreRestrict(t *testing.T) {
	e := setup(t)
	forEachTensorCore(t, e, func(t *testing.T, st gram.Strategy) { tensorCoreRestrict(t, e, st) })
}

func tensorCoreRestrict(t *testing.T, e *env, st gram.Strategy) {
	const m, k = 300, 500
	rng := sharedtest.RNG(t, 3)
	z := make([]complex128, m*k)
	for i := range z {
		z[i] = complex(rng.NormFloat64(), rng.NormFloat64())
	}
	d := uploadSplit(t, e, z, m, k, k, gram.Pow2Scale(maxPart(z)))
	ref := gputest.GramRef(z, m, k)
	entries := [][2]int{{0, 0}, {299, 0}, {5, 200}, {130, 129}}
	for range 20 {
		entries = append(entries, [2]int{rng.IntN(m), rng.IntN(m)})
	}
	got, total, err := e.g.Restrict(m, entries)
	gputest.Must(t, err)
	const ts = gram.TensorCoreTile
	inTile := map[[2]int]bool{}
	for _, en := range entries {
		inTile[[2]int{max(en[0], en[1]) / ts, min(en[0], en[1]) / ts}] = true
	}
	nt := (m + ts - 1) / ts
	if got != len(inTile) || total != nt*(nt+1)/2 {
		t.Errorf("Restrict: %d of %d tiles, want %d of %d", got, total, len(inTile), nt*(nt+1)/2)
	}
	c := poisoned(t, e, m)
	gputest.Must(t, e.g.Accumulate(st, d, k, m, k, c, 0))
	out := download(t, e, c, m, false)
	peak := 0.0
	for _, v := range ref {
		peak = max(peak, cmplx.Abs(v))
	}
	for j := 0; j < m; j++ {
		for i := j; i < m; i++ {
			v := out[i+j*m]
			if !inTile[[2]int{i / ts, j / ts}] {
				if !cmplx.IsNaN(v) {
					t.Fatalf("entry (%d, %d) of an unrequested tile written: %v", i, j, v)
				}
				continue
			}
			if er := cmplx.Abs(v-ref[i+j*m]) / peak; !(er <= 2e-6) {
				t.Fatalf("entry (%d, %d): error %.2e of the peak", i, j, er)
			}
		}
	}
	if _, _, err := e.g.Restrict(m, [][2]int{{m, 0}}); err == nil {
		t.Error("Restrict accepted an entry outside the product")
	}
	gputest.Must(t, func() error { _, _, err := e.g.Restrict(m, nil); return err }())
}

// TestTensorCoreSubsets (with -gemm-bench) times the product restricted
// to three 10 % subsets of the 61 425 baselines of 350 dual-feed
// antennas (M = 700, one prodslice chunk, K = 33 334) against the full
// one: the baselines among antennas 0–110 (a sub-array), those with
// |a1 − a2| ≤ 17 (short baselines of a layout numbered row by row), and
// 10 % drawn at random.
func TestTensorCoreSubsets(t *testing.T) {
	rng := sharedtest.RNG(t, 5)
	if !*benchFlag {
		t.Skip("GEMM benchmark: run with -gemm-bench")
	}
	e := setup(t)
	const nant, m, k = 350, 700, 33334
	a := make([]complex64, m*k)
	for i := range a {
		a[i] = complex(float32(rng.NormFloat64()), float32(rng.NormFloat64()))
	}
	d, err := cuda.AllocFor[complex64](e.c, len(a))
	gputest.Must(t, err)
	defer e.c.Free(d)
	gputest.Must(t, cuda.Upload(e.c, d, a, e.s))
	const ldz = k + 2 // a multiple of 4
	sp, err := cuda.AllocFor[complex64](e.c, m*ldz)
	gputest.Must(t, err)
	defer e.c.Free(sp)
	e.g.SetZScale(gram.Pow2Scale(8))
	gputest.Must(t, e.g.Split(d, k, sp, ldz, m, k))
	c, err := e.c.Alloc(m * m * 8)
	gputest.Must(t, err)
	defer e.c.Free(c)
	rows := func(pairs [][2]int) [][2]int {
		var en [][2]int
		for _, p := range pairs {
			for f1 := 0; f1 < 2; f1++ {
				for f2 := 0; f2 < 2; f2++ {
					en = append(en, [2]int{2*p[0] + f1, 2*p[1] + f2})
				}
			}
		}
		return en
	}
	var sub, short, random [][2]int
	for i := 0; i < nant; i++ {
		for j := i; j < nant; j++ {
			if j <= 110 {
				sub = append(sub, [2]int{i, j})
			}
			if j-i <= 17 {
				short = append(short, [2]int{i, j})
			}
			if rng.Float64() < 0.1 {
				random = append(random, [2]int{i, j})
			}
		}
	}
	all := nant * (nant + 1) / 2
	for _, st := range tensorCoreStrategies(t, e) {
		time := func(entries [][2]int) (float64, int, int) {
			n, total, err := e.g.Restrict(m, entries)
			gputest.Must(t, err)
			ms, err := gram.TimeMs(e.c, e.s, 3, 15, func() error { return e.g.Accumulate(st, sp, ldz, m, k, c, 0) })
			gputest.Must(t, err)
			return ms, n, total
		}
		full, nfull, _ := time(nil)
		fmt.Printf("| %s subset (M = %d, K = %d, tiles of %d) | pairs | tiles | ms (median of 15) | × full |\n| --- | --- | --- | --- | --- |\n", st, m, k, gram.TensorCoreTile)
		fmt.Printf("| all | %d | %d | %.3f | 1 |\n", all, nfull, full)
		for _, s := range []struct {
			name  string
			pairs [][2]int
		}{{"antennas 0–110", sub}, {"|a1 − a2| ≤ 17", short}, {"random 10 %", random}} {
			ms, n, total := time(rows(s.pairs))
			fmt.Printf("| %s | %d (%.1f %%) | %d of %d | %.3f | %.2f |\n", s.name, len(s.pairs), 100*float64(len(s.pairs))/float64(all), n, total, ms, ms/full)
		}
		gputest.Must(t, func() error { _, _, err := e.g.Restrict(m, nil); return err }())
	}
}
