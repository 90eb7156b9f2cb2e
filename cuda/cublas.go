package cuda

import (
	"fmt"
	"unsafe"
)

// blasAPI holds the cuBLAS entry points; each returns a cublasStatus_t.
type blasAPI struct {
	lib loadedLib

	create        func(h *uintptr) int32
	destroy       func(h uintptr) int32
	setStream     func(h, s uintptr) int32
	setMathMode   func(h uintptr, mode int32) int32
	getVersion    func(h uintptr, v *int32) int32
	setWorkspace  func(h uintptr, ws uint64, n uint64) int32
	cherk         func(h uintptr, uplo, trans, n, k int32, alpha *float32, a uint64, lda int32, beta *float32, c uint64, ldc int32) int32
	zherk         func(h uintptr, uplo, trans, n, k int32, alpha *float64, a uint64, lda int32, beta *float64, c uint64, ldc int32) int32
	cgemm         func(h uintptr, ta, tb, m, n, k int32, alpha *complex64, a uint64, lda int32, b uint64, ldb int32, beta *complex64, c uint64, ldc int32) int32
	cgemm3m       func(h uintptr, ta, tb, m, n, k int32, alpha *complex64, a uint64, lda int32, b uint64, ldb int32, beta *complex64, c uint64, ldc int32) int32
	zgemm         func(h uintptr, ta, tb, m, n, k int32, alpha *complex128, a uint64, lda int32, b uint64, ldb int32, beta *complex128, c uint64, ldc int32) int32
	gemmEx        func(h uintptr, ta, tb, m, n, k int32, alpha unsafe.Pointer, a uint64, atype, lda int32, b uint64, btype, ldb int32, beta unsafe.Pointer, c uint64, ctype, ldc int32, compute, algo int32) int32
	getStatusName func(status int32) string
	getStatusStr  func(status int32) string
}

// PreloadBLAS loads cuBLAS's libraries into the process, as a Context's
// first NewBlas would: the dynamic loader's work (libcublasLt alone is
// hundreds of MB to map and relocate) needs no device, so a program can
// run it beside the driver's start; NewBlas then finds the libraries
// loaded. Loading twice is harmless (the loader counts references).
func PreloadBLAS() error {
	_, err := openLib(specBLAS)
	return err
}

func (c *Context) loadBLAS() (*blasAPI, error) {
	if c.blas != nil {
		return c.blas, nil
	}
	lib, err := openLib(specBLAS)
	if err != nil {
		return nil, fmt.Errorf("open cuBLAS: %w", err)
	}
	a := &blasAPI{lib: lib}
	b := &binder{lib: lib}
	b.fn(&a.create, "cublasCreate_v2")
	b.fn(&a.destroy, "cublasDestroy_v2")
	b.fn(&a.setStream, "cublasSetStream_v2")
	b.fn(&a.setMathMode, "cublasSetMathMode")
	b.fn(&a.getVersion, "cublasGetVersion_v2")
	b.fn(&a.setWorkspace, "cublasSetWorkspace_v2")
	b.fn(&a.cherk, "cublasCherk_v2")
	b.fn(&a.zherk, "cublasZherk_v2")
	b.fn(&a.cgemm, "cublasCgemm_v2")
	b.fn(&a.cgemm3m, "cublasCgemm3m")
	b.fn(&a.zgemm, "cublasZgemm_v2")
	b.fn(&a.gemmEx, "cublasGemmEx")
	// Older cuBLAS lacks these; check then names the code from its table.
	b.optFn(&a.getStatusName, "cublasGetStatusName")
	b.optFn(&a.getStatusStr, "cublasGetStatusString")
	if err := b.err(); err != nil {
		return nil, fmt.Errorf("open cuBLAS: %w", err)
	}
	c.blas = a
	return a, nil
}

func (a *blasAPI) check(fn string, code int32) error {
	if code == 0 {
		return nil
	}
	e := &Error{Lib: "cublas", Func: fn, Code: int(code), Name: cublasStatusNames[int(code)]}
	if a.getStatusName != nil {
		e.Name = a.getStatusName(code)
	}
	if a.getStatusStr != nil {
		e.Msg = a.getStatusStr(code)
	}
	if e.Name == "" {
		e.Name = "CUBLAS_STATUS_UNKNOWN"
	}
	return e
}

// Fill selects the triangle a Hermitian routine reads or writes
// (column-major, as cuBLAS sees it).
type Fill int32

// Triangles.
const (
	Lower Fill = 0
	Upper Fill = 1
)

// Op is a cuBLAS operation on an operand.
type Op int32

// Operations.
const (
	OpN Op = 0 // as stored
	OpT Op = 1 // transposed
	OpC Op = 2 // conjugate transposed
)

// MathMode is a cuBLAS math mode.
type MathMode int32

// Math modes (cublasMath_t).
const (
	DefaultMath  MathMode = 0
	PedanticMath MathMode = 2
	TF32Math     MathMode = 3 // reduced-precision tensor-core fp32: NOT fp32 accuracy
	// DisallowReducedPrecisionReduction is OR-ed into another mode.
	DisallowReducedPrecisionReduction MathMode = 16
)

// DataType is a cudaDataType_t.
type DataType int32

// Data types used here.
const (
	R32F DataType = 0
	R64F DataType = 1
	C32F DataType = 4
	C64F DataType = 5
)

// ComputeType is a cublasComputeType_t.
type ComputeType int32

// Compute types.
const (
	Compute32F          ComputeType = 68
	Compute32FPedantic  ComputeType = 69
	Compute64F          ComputeType = 70
	Compute32FFast16F   ComputeType = 74
	Compute32FFast16BF  ComputeType = 75
	Compute32FFastTF32  ComputeType = 77
	Compute32FEmuBF16x9 ComputeType = 78 // cuBLAS 13: fp32 emulated with 9 bf16 products
)

// Blas is a cuBLAS handle bound to one stream. Scalars are passed from the
// host (the default pointer mode).
type Blas struct {
	c   *Context
	api *blasAPI
	h   uintptr
	s   Stream
}

// NewBlas creates a cuBLAS handle whose work is queued on s.
func (c *Context) NewBlas(s Stream) (*Blas, error) {
	api, err := c.loadBLAS()
	if err != nil {
		return nil, err
	}
	unbind, err := c.bind()
	if err != nil {
		return nil, err
	}
	defer unbind()
	var h uintptr
	if err := api.check("cublasCreate", api.create(&h)); err != nil {
		return nil, err
	}
	if err := api.check("cublasSetStream", api.setStream(h, uintptr(s))); err != nil {
		api.destroy(h)
		return nil, err
	}
	return &Blas{c: c, api: api, h: h, s: s}, nil
}

// Path is the file cuBLAS was loaded from.
func (b *Blas) Path() string { return b.api.lib.path }

// Close destroys the handle.
func (b *Blas) Close() error {
	if b == nil || b.h == 0 {
		return nil
	}
	h := b.h
	b.h = 0
	return b.run("cublasDestroy", func() int32 { return b.api.destroy(h) })
}

func (b *Blas) run(name string, f func() int32) error {
	unbind, err := b.c.bind()
	if err != nil {
		return err
	}
	defer unbind()
	return b.api.check(name, f())
}

// Version is cuBLAS's version number, e.g. 130100.
func (b *Blas) Version() (int, error) {
	var v int32
	err := b.run("cublasGetVersion", func() int32 { return b.api.getVersion(b.h, &v) })
	return int(v), err
}

// SetMathMode sets the handle's math mode.
func (b *Blas) SetMathMode(m MathMode) error {
	return b.run("cublasSetMathMode", func() int32 { return b.api.setMathMode(b.h, int32(m)) })
}

// Cherk computes C = alpha·op(A)·op(A)ᴴ + beta·C on the triangle fill of the
// n×n column-major C (complex64), A being n×k (OpN) or k×n (OpC).
func (b *Blas) Cherk(fill Fill, trans Op, n, k int, alpha float32, A DevicePtr, lda int, beta float32, C DevicePtr, ldc int) error {
	return b.run("cublasCherk", func() int32 {
		return b.api.cherk(b.h, int32(fill), int32(trans), int32(n), int32(k), &alpha, uint64(A), int32(lda), &beta, uint64(C), int32(ldc))
	})
}

// Zherk is Cherk in complex128.
func (b *Blas) Zherk(fill Fill, trans Op, n, k int, alpha float64, A DevicePtr, lda int, beta float64, C DevicePtr, ldc int) error {
	return b.run("cublasZherk", func() int32 {
		return b.api.zherk(b.h, int32(fill), int32(trans), int32(n), int32(k), &alpha, uint64(A), int32(lda), &beta, uint64(C), int32(ldc))
	})
}

// Cgemm computes C = alpha·op(A)·op(B) + beta·C (complex64, column-major,
// C is m×n and the inner dimension k).
func (b *Blas) Cgemm(ta, tb Op, m, n, k int, alpha complex64, A DevicePtr, lda int, B DevicePtr, ldb int, beta complex64, C DevicePtr, ldc int) error {
	return b.run("cublasCgemm", func() int32 {
		return b.api.cgemm(b.h, int32(ta), int32(tb), int32(m), int32(n), int32(k), &alpha, uint64(A), int32(lda), uint64(B), int32(ldb), &beta, uint64(C), int32(ldc))
	})
}

// Cgemm3m is Cgemm with the Gauss three-multiplication scheme.
func (b *Blas) Cgemm3m(ta, tb Op, m, n, k int, alpha complex64, A DevicePtr, lda int, B DevicePtr, ldb int, beta complex64, C DevicePtr, ldc int) error {
	return b.run("cublasCgemm3m", func() int32 {
		return b.api.cgemm3m(b.h, int32(ta), int32(tb), int32(m), int32(n), int32(k), &alpha, uint64(A), int32(lda), uint64(B), int32(ldb), &beta, uint64(C), int32(ldc))
	})
}

// Zgemm is Cgemm in complex128.
func (b *Blas) Zgemm(ta, tb Op, m, n, k int, alpha complex128, A DevicePtr, lda int, B DevicePtr, ldb int, beta complex128, C DevicePtr, ldc int) error {
	return b.run("cublasZgemm", func() int32 {
		return b.api.zgemm(b.h, int32(ta), int32(tb), int32(m), int32(n), int32(k), &alpha, uint64(A), int32(lda), uint64(B), int32(ldb), &beta, uint64(C), int32(ldc))
	})
}

// GemmEx is cublasGemmEx with all operands of type dt (C32F or C64F) and
// the given compute type; alpha and beta are complex64 for C32F and
// complex128 for C64F.
func (b *Blas) GemmEx(ta, tb Op, m, n, k int, alpha complex128, A DevicePtr, lda int, B DevicePtr, ldb int, beta complex128, C DevicePtr, ldc int, dt DataType, ct ComputeType) error {
	var pa, pb unsafe.Pointer
	a32, b32 := complex64(alpha), complex64(beta)
	switch dt {
	case C32F:
		pa, pb = unsafe.Pointer(&a32), unsafe.Pointer(&b32)
	case C64F:
		pa, pb = unsafe.Pointer(&alpha), unsafe.Pointer(&beta)
	default:
		return fmt.Errorf("cuda: GemmEx: data type %d not supported here", dt)
	}
	return b.run("cublasGemmEx", func() int32 {
		return b.api.gemmEx(b.h, int32(ta), int32(tb), int32(m), int32(n), int32(k), pa, uint64(A), int32(dt), int32(lda),
			uint64(B), int32(dt), int32(ldb), pb, uint64(C), int32(dt), int32(ldc), int32(ct), -1 /* CUBLAS_GEMM_DEFAULT */)
	})
}
