package cuda_test

import (
	"math"
	"math/cmplx"
	"testing"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/internal/gputest"
	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// TestFFTAgainstDFT: cuFFT's 1-, 2- and 3-D complex transforms, both
// signs, both precisions, equal the plain DFT
// out_k = Σ_j in_j exp(sign·2πi j·k/n) (row-major, the last axis fastest)
// to rounding.
func TestFFTAgainstDFT(t *testing.T) {
	rng := sharedtest.RNG(t, 8)
	c := gputest.Open(t)
	s, err := c.NewStream()
	gputest.Must(t, err)
	defer c.DestroyStream(s)
	for _, dims := range [][]int{{12}, {6, 10}, {4, 6, 10}} {
		n := 1
		for _, d := range dims {
			n *= d
		}
		in := gputest.RandC(rng, n)
		for _, double := range []bool{true, false} {
			for _, sign := range []int{1, -1} {
				want := dft(in, dims, sign)
				got := runFFT(t, c, s, dims, double, sign, in)
				var num, den float64
				for i := range want {
					num += math.Pow(cmplx.Abs(got[i]-want[i]), 2)
					den += math.Pow(cmplx.Abs(want[i]), 2)
				}
				e := math.Sqrt(num / den)
				tol := 1e-13
				if !double {
					tol = 1e-6
				}
				t.Logf("dims %v double=%v sign=%+d: rel l2 err %.3g", dims, double, sign, e)
				if !(e <= tol) {
					t.Errorf("dims %v double=%v sign=%+d: rel l2 err %.3g > %g", dims, double, sign, e, tol)
				}
			}
		}
	}
}

// runFFT transforms in on the device, in place.
func runFFT(t *testing.T, c *cuda.Context, s cuda.Stream, dims []int, double bool, sign int, in []complex128) []complex128 {
	t.Helper()
	f, err := c.NewFFT(dims, double, s)
	gputest.Must(t, err)
	defer f.Close()
	if v, err := f.Version(); err == nil {
		t.Logf("cuFFT %d from %s", v, f.Path())
	}
	n := len(in)
	cb := 8
	if double {
		cb = 16
	}
	p, err := c.Alloc(int64(n * cb))
	gputest.Must(t, err)
	defer c.Free(p)
	out := make([]complex128, n)
	if double {
		gputest.Must(t, cuda.Upload(c, p, in, s))
		gputest.Must(t, f.Exec(p, p, sign))
		gputest.Must(t, cuda.Download(c, out, p, s))
		return out
	}
	in32 := make([]complex64, n)
	for i, v := range in {
		in32[i] = complex64(v)
	}
	gputest.Must(t, cuda.Upload(c, p, in32, s))
	gputest.Must(t, f.Exec(p, p, sign))
	gputest.Must(t, cuda.Download(c, in32, p, s))
	for i, v := range in32 {
		out[i] = complex128(v)
	}
	return out
}

// dft is the plain multi-dimensional DFT of the row-major x.
func dft(x []complex128, dims []int, sign int) []complex128 {
	idx := func(flat int) []int {
		ix := make([]int, len(dims))
		for a := len(dims) - 1; a >= 0; a-- {
			ix[a] = flat % dims[a]
			flat /= dims[a]
		}
		return ix
	}
	out := make([]complex128, len(x))
	for k := range x {
		kk := idx(k)
		var sum complex128
		for j, v := range x {
			jj := idx(j)
			var ph float64
			for a := range dims {
				ph += float64(jj[a]*kk[a]) / float64(dims[a])
			}
			sum += v * cmplx.Exp(complex(0, float64(sign)*2*math.Pi*ph))
		}
		out[k] = sum
	}
	return out
}
