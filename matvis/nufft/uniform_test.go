package nufft

import (
	"math"
	"math/cmplx"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// TestExportedFFT: FFT.Transform equals the plain DFT for lengths of
// every radix, both signs and a batch of interleaved sequences, and
// TransformSparse equals Transform on inputs zero in the middle half.
func TestExportedFFT(t *testing.T) {
	rng := sharedtest.RNG(t, 41)
	for _, n := range []int{1, 8, 12, 30, 64, 56} {
		for _, sign := range []int{-1, 1} {
			const batch = 3
			f := NewFFT(n, sign)
			x := make([]complex128, n*batch)
			for i := range x {
				x[i] = complex(rng.NormFloat64(), rng.NormFloat64())
			}
			if f.Sparse() {
				for i := n / 4 * batch; i < 3*n/4*batch; i++ {
					x[i] = 0
				}
			}
			want := make([]complex128, n*batch)
			for b := range batch {
				for k := range n {
					for j := range n {
						want[k*batch+b] += x[j*batch+b] * cmplx.Exp(complex(0, float64(sign)*2*math.Pi*float64(j*k%n)/float64(n)))
					}
				}
			}
			in := append([]complex128(nil), x...)
			got := f.Transform(in, make([]complex128, n*batch), batch)
			check := func(what string, got []complex128) {
				for i := range want {
					if d := cmplx.Abs(got[i] - want[i]); d > 1e-12*float64(n) {
						t.Fatalf("%s n=%d sign=%d: element %d off by %.3g", what, n, sign, i, d)
					}
				}
			}
			check("Transform", got)
			if f.Sparse() {
				in = append([]complex128(nil), x...)
				for i := n / 4 * batch; i < 3*n/4*batch; i++ {
					in[i] = complex(math.NaN(), 0) // not read
				}
				check("TransformSparse", f.TransformSparse(in, make([]complex128, n*batch), batch))
			}
		}
	}
}

// TestExportedKernel: the tabulated weights equal the exact ones, and a
// grid sum of the kernel is its transform (the identity the w-gridder's
// corrections rest on), Σ_g φ(2(g − p)/W)·e^{−iθg} = e^{−iθp}·(W/2)·FT(θW/2),
// to the tolerance for |θ| ≤ π/2.
func TestExportedKernel(t *testing.T) {
	rng := sharedtest.RNG(t, 42)
	if _, err := NewKernel(0); err == nil {
		t.Error("NewKernel(0): no error")
	}
	for _, eps := range []float64{1e-4, 1e-6, 1e-10} {
		k, err := NewKernel(eps)
		if err != nil {
			t.Fatal(err)
		}
		w := k.Width()
		ft := k.FT(1.01 * math.Pi * float64(w) / 4)
		a, b := make([]float64, w), make([]float64, w)
		for range 50 {
			p := 100 * (rng.Float64() - 0.5)
			fa, fb := k.Weights(a, p), k.ExactWeights(b, p)
			if fa != fb {
				t.Fatalf("first tap %d, exact %d", fa, fb)
			}
			var sum complex128
			theta := math.Pi / 2 * (2*rng.Float64() - 1)
			for i := range w {
				// The table's design bound (table.go, TestTableWeights):
				// cubic interpolation errs most near the support's ends,
				// where φ's square-root branch dominates — ε/20 there.
				if math.Abs(a[i]-b[i]) > max(eps/20, 2e-14) {
					t.Fatalf("eps %g p %v tap %d: table %v, exact %v", eps, p, i, a[i], b[i])
				}
				sum += complex(b[i], 0) * cmplx.Exp(complex(0, -theta*float64(fb+i)))
			}
			want := cmplx.Exp(complex(0, -theta*p)) * complex(float64(w)/2*ft(theta*float64(w)/2), 0)
			if d := cmplx.Abs(sum - want); d > 10*eps*cmplx.Abs(want) {
				t.Errorf("eps %g θ %.3f p %.3f: grid sum off its transform by %.3g relative", eps, theta, p, d/cmplx.Abs(want))
			}
		}
	}
}
