package gram_test

import (
	"fmt"
	"testing"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/cuda/gram"
	"github.com/gomatvis/gomatvis/internal/gputest"
	"github.com/gomatvis/gomatvis/kernels"
)

// TestMMARates (with -gemm-bench) measures the mma.sync rates of FP16
// (m16n8k16, float32 sums) and INT8 (m16n8k32, int32 sums) products and
// prints what they imply for one float32-accurate Gram product of a
// prodslice chunk: the FP16 split takes 3 FP16 products per product; an
// Ozaki-style INT8 split with s slices takes s(s+1)/2 INT8 products, and
// needs s = 4 (28 bits, against the split's 22 plus the 2⁻²⁵ floor) to
// keep a 10⁻³ Jy source of a 10⁴ Jy channel at float32 level relative to
// the channel's largest |Z| (row scaling leaves it 12 bits fewer).
func TestMMARates(t *testing.T) {
	if !*benchFlag {
		t.Skip("GEMM benchmark: run with -gemm-bench")
	}
	e := setup(t)
	code, headers, err := kernels.Program(gram.KernelFiles, "mmarate.cu")
	gputest.Must(t, err)
	mod, err := e.c.Compile(cuda.Source{Name: "mmarate.cu", Code: code, Headers: headers})
	gputest.Must(t, err)
	defer mod.Unload()
	sms := e.c.Info().SMs
	const threads, iters = 128, 20000
	out, err := cuda.AllocFor[float32](e.c, sms*16*threads)
	gputest.Must(t, err)
	defer e.c.Free(out)
	rate := func(name string, opsPerMMA float64, warpsPerSM int) float64 {
		f, err := mod.Function(name)
		gputest.Must(t, err)
		blocks := sms * warpsPerSM / (threads / 32)
		ms, err := gram.TimeMs(e.c, e.s, 2, 7, func() error {
			return f.Launch(cuda.Dim3{X: uint32(blocks), Y: 1, Z: 1}, cuda.Dim3{X: threads, Y: 1, Z: 1}, 0, e.s, int32(iters), out)
		})
		gputest.Must(t, err)
		mmas := float64(blocks) * threads / 32 * iters * 8
		return mmas * opsPerMMA / (ms * 1e-3)
	}
	for _, w := range []int{4, 8, 16, 32} {
		fmt.Printf("%d warps per SM (8 independent products each): FP16 %.0f TFLOP/s, INT8 %.0f TOPS\n", w,
			rate("mma_rate_f16", 2*16*8*16, w)/1e12, rate("mma_rate_s8", 2*16*8*32, w)/1e12)
	}
	f16 := rate("mma_rate_f16", 2*16*8*16, 32)
	s8 := rate("mma_rate_s8", 2*16*8*32, 32)
	// One prodslice chunk's product (M = 700, K = 33 334 complex columns,
	// lower triangle): 4 real products of M(M+1)/2 × K, each 2 ops.
	const m, k = 700.0, 33334.0
	real := 4 * m * (m + 1) / 2 * k * 2
	fmt.Printf("mma.sync rates on %s: FP16 %.0f TFLOP/s, INT8 %.0f TOPS (ratio %.2f)\n\n", e.c.Info().Name, f16/1e12, s8/1e12, s8/f16)
	fmt.Printf("| scheme (one prodslice chunk, M = 700, K = 33 334) | products | bits kept | ms at the measured instruction rate |\n| --- | --- | --- | --- |\n")
	fmt.Printf("| FP16 split (big·big + big·small + small·big) | 3 FP16 | 22 + 2⁻²⁵ floor | %.3f |\n", 3*real/f16*1e3)
	for _, s := range []int{3, 4} {
		fmt.Printf("| Ozaki INT8, %d slices | %d INT8 | %d per row | %.3f |\n", s, s*(s+1)/2, 7*s, float64(s*(s+1)/2)*real/s8*1e3)
	}
	if !(f16 > 0 && s8 > 0) {
		t.Errorf("rates %g, %g", f16, s8)
	}
}
