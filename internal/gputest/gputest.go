// Package gputest holds what the GPU packages' tests (cuda, cuda/gram,
// matvis/gpu) share: skipping a test, with a clear message, on a machine
// without a CUDA device, and a reference Gram product with its error
// measure.
package gputest

import (
	"errors"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/gomatvis/gomatvis/cuda"
)

// Require takes the error of opening a device (cuda.Open, gpu.Open): it
// skips t when the error says this machine has no CUDA driver or device
// (CI), so that such a test never counts as passed, and fails t on any
// other error.
func Require(t testing.TB, err error) {
	t.Helper()
	if errors.Is(err, cuda.ErrNoDevice) {
		t.Skipf("needs a CUDA device: %v", err)
	}
	if err != nil {
		t.Fatalf("open device: %v", err)
	}
}

// Open returns a context on device 0, closed when t ends, or skips t as
// Require does.
func Open(t testing.TB) *cuda.Context {
	t.Helper()
	c, err := cuda.Open(0)
	Require(t, err)
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("close device: %v", err)
		}
	})
	return c
}

// Must fails t at once on a non-nil error.
func Must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// RandC returns n complex values with normal real and imaginary parts
// drawn from rng (sharedtest.RNG: its seed is logged).
func RandC(rng *rand.Rand, n int) []complex128 {
	z := make([]complex128, n)
	for i := range z {
		z[i] = complex(rng.NormFloat64(), rng.NormFloat64())
	}
	return z
}

// GramRef is C = Aᴴ·A for the column-major k×m A, as an m×m column-major
// matrix, by a plain loop in complex128.
func GramRef(a []complex128, m, k int) []complex128 {
	c := make([]complex128, m*m)
	for j := 0; j < m; j++ {
		for i := 0; i < m; i++ {
			var s complex128
			ai, aj := a[i*k:(i+1)*k], a[j*k:(j+1)*k]
			for l := range ai {
				s += cmplx.Conj(ai[l]) * aj[l]
			}
			c[i+j*m] = s
		}
	}
	return c
}

// RelErr is max|got−want| / max|want| over every entry of want (got may be
// longer); +Inf when a compared entry of got is NaN.
func RelErr(got, want []complex128) float64 { return relErr(got, want, nil) }

// MaxRelErr is RelErr of the m×m column-major matrices, comparing the
// lower triangle only when lowerOnly (the peak is still over all of want).
func MaxRelErr(got, want []complex128, m int, lowerOnly bool) float64 {
	if !lowerOnly {
		return relErr(got, want[:m*m], nil)
	}
	return relErr(got, want[:m*m], func(k int) bool { return k%m >= k/m })
}

// relErr is RelErr over the entries k of want for which compare(k) holds
// (all of them when compare is nil).
func relErr(got, want []complex128, compare func(k int) bool) float64 {
	var peak, worst float64
	for _, v := range want {
		peak = math.Max(peak, cmplx.Abs(v))
	}
	for k, w := range want {
		if compare != nil && !compare(k) {
			continue
		}
		d := cmplx.Abs(got[k] - w)
		if math.IsNaN(d) {
			return math.Inf(1)
		}
		worst = math.Max(worst, d)
	}
	return worst / peak
}

// Download reads n complex values at p on stream s as complex128:
// complex128 on the device when double, else complex64, widened.
func Download(t testing.TB, c *cuda.Context, s cuda.Stream, p cuda.DevicePtr, n int, double bool) []complex128 {
	t.Helper()
	out := make([]complex128, n)
	if double {
		Must(t, cuda.Download(c, out, p, s))
		return out
	}
	o32 := make([]complex64, n)
	Must(t, cuda.Download(c, o32, p, s))
	for i, v := range o32 {
		out[i] = complex128(v)
	}
	return out
}
