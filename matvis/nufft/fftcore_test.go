package nufft

import (
	"math"
	"math/cmplx"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// TestFFTCoreAgainstDFT compares the Stockham FFT with the direct DFT
// sum on fresh random batches, for lengths of every radix and mixtures,
// both signs.
func TestFFTCoreAgainstDFT(t *testing.T) {
	rng := sharedtest.RNG(t, 21)
	for _, n := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 25, 30, 49, 60, 64, 90, 96, 120, 144, 150, 256} {
		for _, sign := range []int{1, -1} {
			for _, batch := range []int{1, 3} {
				x := make([]complex128, n*batch)
				for i := range x {
					x[i] = complex(rng.NormFloat64(), rng.NormFloat64())
				}
				in := append([]complex128(nil), x...)
				got := newFFTCore(n, sign).run(x, make([]complex128, n*batch), batch)
				for b := range batch {
					for k := range n {
						var want complex128
						for j := range n {
							want += in[j*batch+b] * expi(float64(sign)*2*math.Pi*float64((j*k)%n)/float64(n))
						}
						if cmplx.Abs(got[k*batch+b]-want) > 1e-12*math.Sqrt(float64(n))*(1+cmplx.Abs(want)) {
							t.Fatalf("n=%d sign=%d batch=%d: X[%d] of sequence %d = %v, DFT %v", n, sign, batch, k, b, got[k*batch+b], want)
						}
					}
				}
			}
		}
	}
}

// TestFFTCoreSparse compares runSparse with the direct DFT of batches
// whose middle half is zero, the middle of the input buffer filled with
// garbage (runSparse must not read it), for lengths with a first stage of
// radix 4.
func TestFFTCoreSparse(t *testing.T) {
	rng := sharedtest.RNG(t, 22)
	for _, n := range []int{4, 8, 12, 16, 36, 48, 96, 144, 160, 2304} {
		for _, sign := range []int{1, -1} {
			for _, batch := range []int{1, 5, 16} {
				core := newFFTCore(n, sign)
				if !core.sparse() {
					t.Fatalf("n=%d: no first stage of radix 4", n)
				}
				x := make([]complex128, n*batch)
				in := make([]complex128, n*batch)
				for i := range x {
					x[i] = complex(rng.NormFloat64(), rng.NormFloat64())
					if j := i / batch; j < n/4 || j >= 3*n/4 {
						in[i] = x[i]
					} else {
						x[i] = complex(math.NaN(), 1e300)
					}
				}
				got := core.runSparse(x, make([]complex128, n*batch), batch)
				for b := range batch {
					for k := 0; k < n; k += 1 + n/37 {
						var want complex128
						for j := range n {
							want += in[j*batch+b] * expi(float64(sign)*2*math.Pi*float64((j*k)%n)/float64(n))
						}
						if cmplx.Abs(got[k*batch+b]-want) > 1e-12*math.Sqrt(float64(n))*(1+cmplx.Abs(want)) {
							t.Fatalf("n=%d sign=%d batch=%d: X[%d] of sequence %d = %v, DFT %v", n, sign, batch, k, b, got[k*batch+b], want)
						}
					}
				}
			}
		}
	}
	if newFFTCore(18, 1).sparse() {
		t.Error("n=18 (radices 2, 3, 3): sparse")
	}
}
