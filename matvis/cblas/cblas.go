// Package cblas provides the Hermitian rank-k update (herk) that forms
// visibilities on the CPU. It loads a system CBLAS (OpenBLAS) at run time
// through purego, so a static binary uses an optimised BLAS where one is
// installed, and falls back to gonum's pure-Go BLAS where none is.
package cblas

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/ebitengine/purego"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// Herk computes the upper triangle of C = alpha·A·Aᴴ + beta·C for a
// row-major n×k matrix A (leading dimension lda) and a row-major n×n C
// (leading dimension ldc). The strict lower triangle of C is left as is.
type Herk interface {
	// Name says which implementation runs ("openblas …" or "gonum").
	Name() string
	// Zherk is the complex128 update.
	Zherk(n, k int, alpha float64, a []complex128, lda int, beta float64, c []complex128, ldc int)
	// Cherk is the complex64 update.
	Cherk(n, k int, alpha float32, a []complex64, lda int, beta float32, c []complex64, ldc int)
}

// Gonum is the pure-Go implementation.
type Gonum struct{}

// Name returns "gonum".
func (Gonum) Name() string { return "gonum" }

// Zherk implements Herk.
func (Gonum) Zherk(n, k int, alpha float64, a []complex128, lda int, beta float64, c []complex128, ldc int) {
	gonum.Implementation{}.Zherk(blas.Upper, blas.NoTrans, n, k, alpha, a, lda, beta, c, ldc)
}

// Cherk implements Herk.
func (Gonum) Cherk(n, k int, alpha float32, a []complex64, lda int, beta float32, c []complex64, ldc int) {
	gonum.Implementation{}.Cherk(blas.Upper, blas.NoTrans, n, k, alpha, a, lda, beta, c, ldc)
}

// CBLAS constants (cblas.h).
const (
	cblasRowMajor = 101
	cblasNoTrans  = 111
	cblasUpper    = 121
)

// System is a CBLAS library loaded at run time.
type System struct {
	path string
	// corename and config are OpenBLAS's openblas_get_corename and
	// openblas_get_config; nil for other libraries.
	corename, config func() string
	zherk            func(order, uplo, trans, n, k int32, alpha float64, a unsafe.Pointer, lda int32, beta float64, c unsafe.Pointer, ldc int32)
	cherk            func(order, uplo, trans, n, k int32, alpha float32, a unsafe.Pointer, lda int32, beta float32, c unsafe.Pointer, ldc int32)
}

// Name returns the library's file name.
func (s *System) Name() string { return "cblas " + s.path }

// Zherk implements Herk.
func (s *System) Zherk(n, k int, alpha float64, a []complex128, lda int, beta float64, c []complex128, ldc int) {
	if n == 0 {
		return
	}
	var ap unsafe.Pointer
	if k > 0 {
		ap = unsafe.Pointer(&a[0])
	}
	s.zherk(cblasRowMajor, cblasUpper, cblasNoTrans, int32(n), int32(k), alpha, ap, int32(max(lda, 1)), beta, unsafe.Pointer(&c[0]), int32(ldc))
}

// Cherk implements Herk.
func (s *System) Cherk(n, k int, alpha float32, a []complex64, lda int, beta float32, c []complex64, ldc int) {
	if n == 0 {
		return
	}
	var ap unsafe.Pointer
	if k > 0 {
		ap = unsafe.Pointer(&a[0])
	}
	s.cherk(cblasRowMajor, cblasUpper, cblasNoTrans, int32(n), int32(k), alpha, ap, int32(max(lda, 1)), beta, unsafe.Pointer(&c[0]), int32(ldc))
}

// candidates are the shared objects tried in order; GOMATVIS_CBLAS names
// one explicitly.
var candidates = []string{
	"libopenblas.so.0", "libopenblas.so", "libopenblasp-r0.so",
	"libcblas.so.3", "libblis.so.4", "libmkl_rt.so.2", "libmkl_rt.so",
}

// openBLASThreadTimeout is the OPENBLAS_THREAD_TIMEOUT gomatvis gives
// OpenBLAS unless the user set one: its idle worker threads spin for 2^16
// cycles (~25 µs) after a call before they sleep, against OpenBLAS's
// default 2^28 (~0.1 s). The library is loaded and verified when a CPU
// backend opens, often for a run whose Gram products are not OpenBLAS's
// (the transform, nufftcpu): its threads then spun, yielding, through
// the first 0.1 s of the compute, which a 350-antenna × 2·10⁵-source run
// is. On 2 cores: compute 0.139–0.169 s with the default, 0.121–0.141 s
// with a short timeout, 0.119–0.131 s without OpenBLAS (bench/RESULTS.md).
// A Gram product's calls are milliseconds or more, so waking the workers
// for each costs nothing measurable.
const openBLASThreadTimeout = "16"

// quietOpenBLASThreads sets OPENBLAS_THREAD_TIMEOUT, which OpenBLAS reads
// once, as it loads, unless the environment sets it already.
func quietOpenBLASThreads() {
	if _, set := os.LookupEnv("OPENBLAS_THREAD_TIMEOUT"); !set {
		os.Setenv("OPENBLAS_THREAD_TIMEOUT", openBLASThreadTimeout)
	}
}

// ErrNotFound says no system CBLAS could be loaded.
var ErrNotFound = errors.New("cblas: no system CBLAS library found")

// LoadSystem loads the first CBLAS library that can be opened. The
// environment variable GOMATVIS_CBLAS, when set, is the only path tried
// ("none" disables the system library).
func LoadSystem() (*System, error) {
	quietOpenBLASThreads()
	names := candidates
	if p := os.Getenv("GOMATVIS_CBLAS"); p != "" {
		if p == "none" {
			return nil, fmt.Errorf("%w (GOMATVIS_CBLAS=none)", ErrNotFound)
		}
		names = []string{p}
	}
	var errs []error
	for _, name := range names {
		h, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s := &System{path: filepath.Base(name)}
		if err := register(h, s); err != nil {
			purego.Dlclose(h)
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			continue
		}
		return s, nil
	}
	return nil, fmt.Errorf("%w: %w", ErrNotFound, errors.Join(errs...))
}

func register(h uintptr, s *System) error {
	for _, sym := range []string{"cblas_zherk", "cblas_cherk"} {
		if _, err := purego.Dlsym(h, sym); err != nil {
			return fmt.Errorf("symbol %s: %w", sym, err)
		}
	}
	purego.RegisterLibFunc(&s.zherk, h, "cblas_zherk")
	purego.RegisterLibFunc(&s.cherk, h, "cblas_cherk")
	if _, err := purego.Dlsym(h, "openblas_get_corename"); err == nil {
		purego.RegisterLibFunc(&s.corename, h, "openblas_get_corename")
	}
	if _, err := purego.Dlsym(h, "openblas_get_config"); err == nil {
		purego.RegisterLibFunc(&s.config, h, "openblas_get_config")
	}
	return nil
}

// Best returns the system CBLAS when one loads and agrees with gonum on a
// small product (Verify), and gonum otherwise; Choose says why.
func Best() Herk { return Choose().Herk }
