package cblas

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// naiveGram is the obviously-right twin: C[i][j] = Σ_c A[i,c]·conj(A[j,c]).
func naiveGram(n, k int, a []complex128) []complex128 {
	c := make([]complex128, n*n)
	for i := range n {
		for j := range n {
			var s complex128
			for l := range k {
				s += a[i*k+l] * cmplx.Conj(a[j*k+l])
			}
			c[i*n+j] = s
		}
	}
	return c
}

func impls(t *testing.T) []Herk {
	out := []Herk{Gonum{}}
	if s, err := LoadSystem(); err == nil {
		out = append(out, s)
	} else {
		t.Logf("system CBLAS not tested: %v", err)
	}
	return out
}

func TestHerkAgainstLoop(t *testing.T) {
	shapes := []struct{ n, k int }{{1, 1}, {3, 7}, {16, 33}, {40, 200}}
	for _, h := range impls(t) {
		for _, sh := range shapes {
			rng := rand.New(rand.NewPCG(uint64(sh.n), uint64(sh.k)))
			a := make([]complex128, sh.n*sh.k)
			a64 := make([]complex64, len(a))
			for i := range a {
				a[i] = complex(rng.NormFloat64(), rng.NormFloat64())
				a64[i] = complex64(a[i])
			}
			want := naiveGram(sh.n, sh.k, a)
			c := make([]complex128, sh.n*sh.n)
			c64 := make([]complex64, sh.n*sh.n)
			for i := range c {
				c[i] = cmplx.NaN() // poison: beta = 0 must overwrite
				c64[i] = complex64(cmplx.NaN())
			}
			h.Zherk(sh.n, sh.k, 1, a, sh.k, 0, c, sh.n)
			h.Cherk(sh.n, sh.k, 1, a64, sh.k, 0, c64, sh.n)
			scale := 0.0
			for _, v := range want {
				scale = math.Max(scale, cmplx.Abs(v))
			}
			for i := range sh.n {
				for j := i; j < sh.n; j++ {
					w := want[i*sh.n+j]
					if d := cmplx.Abs(c[i*sh.n+j] - w); !(d <= 1e-12*scale) {
						t.Fatalf("%s zherk %dx%d: C[%d,%d] = %v, want %v", h.Name(), sh.n, sh.k, i, j, c[i*sh.n+j], w)
					}
					if d := cmplx.Abs(complex128(c64[i*sh.n+j]) - w); !(d <= 1e-5*scale) {
						t.Fatalf("%s cherk %dx%d: C[%d,%d] = %v, want %v", h.Name(), sh.n, sh.k, i, j, c64[i*sh.n+j], w)
					}
				}
			}
			// Accumulation: beta = 1 adds a second update.
			h.Zherk(sh.n, sh.k, 1, a, sh.k, 1, c, sh.n)
			if d := cmplx.Abs(c[0] - 2*want[0]); !(d <= 1e-12*scale) {
				t.Fatalf("%s zherk beta=1: %v, want %v", h.Name(), c[0], 2*want[0])
			}
		}
	}
}

// TestQuietOpenBLASThreads: loading a system CBLAS gives OpenBLAS a short
// idle spin unless the user set one, whose value is kept.
func TestQuietOpenBLASThreads(t *testing.T) {
	t.Setenv("OPENBLAS_THREAD_TIMEOUT", "")
	os.Unsetenv("OPENBLAS_THREAD_TIMEOUT")
	quietOpenBLASThreads()
	if got := os.Getenv("OPENBLAS_THREAD_TIMEOUT"); got != openBLASThreadTimeout {
		t.Errorf("unset: OPENBLAS_THREAD_TIMEOUT = %q, want %q", got, openBLASThreadTimeout)
	}
	if v, _ := strconv.Atoi(openBLASThreadTimeout); v < 4 || v > 30 {
		t.Errorf("%s is outside the 4–30 OpenBLAS accepts (it ignores the variable there)", openBLASThreadTimeout)
	}
	t.Setenv("OPENBLAS_THREAD_TIMEOUT", "25")
	quietOpenBLASThreads()
	if got := os.Getenv("OPENBLAS_THREAD_TIMEOUT"); got != "25" {
		t.Errorf("the user's 25 became %q", got)
	}
}
