package cuda

import (
	"fmt"
	"sync"
)

// cuFFT, loaded at run time like cuBLAS (cublas.go): the complex-to-complex
// transforms of one, two or three dimensions that matvis/nufftgpu runs on
// its padded grids.

var specFFT = libSpec{
	stem: "libcufft",
	// cuFFT's soname runs one ahead of the toolkit's: 12 ships with CUDA
	// 13, 11 with CUDA 12.
	versions:  []string{".so.12", ".so.11", ".so.10", ".so"},
	wheelDirs: []string{"cu13/lib", "cu12/lib", "cufft/lib"},
}

// fftAPI holds the cuFFT entry points; each returns a cufftResult.
type fftAPI struct {
	lib        loadedLib
	plan1d     func(plan *int32, nx, typ, batch int32) int32
	plan2d     func(plan *int32, nx, ny, typ int32) int32
	plan3d     func(plan *int32, nx, ny, nz, typ int32) int32
	setStream  func(plan int32, s uintptr) int32
	execC2C    func(plan int32, in, out uint64, dir int32) int32
	execZ2Z    func(plan int32, in, out uint64, dir int32) int32
	destroy    func(plan int32) int32
	getVersion func(v *int32) int32
}

// The library is process-wide (it holds no per-context state we use), so
// it is opened once for every Context rather than stored in one.
var (
	fftOnce sync.Once
	fftLib  *fftAPI
	fftErr  error
)

func loadFFT() (*fftAPI, error) {
	fftOnce.Do(func() {
		lib, err := openLib(specFFT)
		if err != nil {
			fftErr = fmt.Errorf("open cuFFT: %w", err)
			return
		}
		a := &fftAPI{lib: lib}
		b := &binder{lib: lib}
		b.fn(&a.plan1d, "cufftPlan1d")
		b.fn(&a.plan2d, "cufftPlan2d")
		b.fn(&a.plan3d, "cufftPlan3d")
		b.fn(&a.setStream, "cufftSetStream")
		b.fn(&a.execC2C, "cufftExecC2C")
		b.fn(&a.execZ2Z, "cufftExecZ2Z")
		b.fn(&a.destroy, "cufftDestroy")
		b.fn(&a.getVersion, "cufftGetVersion")
		if err := b.err(); err != nil {
			fftErr = fmt.Errorf("open cuFFT: %w", err)
			return
		}
		fftLib = a
	})
	return fftLib, fftErr
}

var cufftResultNames = map[int]string{
	0: "CUFFT_SUCCESS", 1: "CUFFT_INVALID_PLAN", 2: "CUFFT_ALLOC_FAILED", 3: "CUFFT_INVALID_TYPE",
	4: "CUFFT_INVALID_VALUE", 5: "CUFFT_INTERNAL_ERROR", 6: "CUFFT_EXEC_FAILED", 7: "CUFFT_SETUP_FAILED",
	8: "CUFFT_INVALID_SIZE", 9: "CUFFT_UNALIGNED_DATA", 11: "CUFFT_INVALID_DEVICE",
	13: "CUFFT_NO_WORKSPACE", 14: "CUFFT_NOT_IMPLEMENTED", 16: "CUFFT_NOT_SUPPORTED",
}

func (a *fftAPI) check(fn string, code int32) error {
	if code == 0 {
		return nil
	}
	name := cufftResultNames[int(code)]
	if name == "" {
		name = "CUFFT_UNKNOWN"
	}
	return &Error{Lib: "cufft", Func: fn, Code: int(code), Name: name}
}

// FFT is a cuFFT plan for in-place or out-of-place complex transforms of
// one fixed shape, in complex64 (C2C) or complex128 (Z2Z), queued on one
// stream. The transform is unnormalized:
// out_k = Σ_j in_j · exp(sign·2πi·j·k/n) along every axis.
type FFT struct {
	c      *Context
	api    *fftAPI
	plan   int32
	double bool
	live   bool
}

// cuFFT's transform types.
const (
	cufftC2C = 0x29
	cufftZ2Z = 0x69
)

// NewFFT plans the transform of a row-major array of shape dims (1 to 3
// axes, the last fastest) in complex128 when double, else complex64, on
// stream s.
func (c *Context) NewFFT(dims []int, double bool, s Stream) (*FFT, error) {
	api, err := loadFFT()
	if err != nil {
		return nil, err
	}
	for _, d := range dims {
		if d < 1 || d > 1<<30 {
			return nil, fmt.Errorf("cuda: NewFFT: axis of %d points", d)
		}
	}
	typ := int32(cufftC2C)
	if double {
		typ = cufftZ2Z
	}
	unbind, err := c.bind()
	if err != nil {
		return nil, err
	}
	defer unbind()
	f := &FFT{c: c, api: api, double: double}
	var code int32
	switch len(dims) {
	case 1:
		code = api.plan1d(&f.plan, int32(dims[0]), typ, 1)
	case 2:
		code = api.plan2d(&f.plan, int32(dims[0]), int32(dims[1]), typ)
	case 3:
		code = api.plan3d(&f.plan, int32(dims[0]), int32(dims[1]), int32(dims[2]), typ)
	default:
		return nil, fmt.Errorf("cuda: NewFFT: %d axes, want 1, 2 or 3", len(dims))
	}
	if err := api.check("cufftPlan", code); err != nil {
		return nil, fmt.Errorf("cuda: NewFFT %v: %w", dims, err)
	}
	f.live = true
	if err := api.check("cufftSetStream", api.setStream(f.plan, uintptr(s))); err != nil {
		api.destroy(f.plan)
		return nil, err
	}
	return f, nil
}

// Path is the file cuFFT was loaded from.
func (f *FFT) Path() string { return f.api.lib.path }

// Version is cuFFT's version number, e.g. 12000.
func (f *FFT) Version() (int, error) {
	var v int32
	err := f.api.check("cufftGetVersion", f.api.getVersion(&v))
	return int(v), err
}

// Exec queues the transform of in into out (they may be the same buffer)
// with exponent sign sign (+1 or −1).
func (f *FFT) Exec(in, out DevicePtr, sign int) error {
	if sign != 1 && sign != -1 {
		return fmt.Errorf("cuda: FFT.Exec: sign %d, want +1 or -1", sign)
	}
	if !f.live {
		return fmt.Errorf("cuda: FFT.Exec: plan is closed")
	}
	unbind, err := f.c.bind()
	if err != nil {
		return err
	}
	defer unbind()
	// CUFFT_FORWARD is −1 and CUFFT_INVERSE +1: the exponent's sign.
	if f.double {
		return f.api.check("cufftExecZ2Z", f.api.execZ2Z(f.plan, uint64(in), uint64(out), int32(sign)))
	}
	return f.api.check("cufftExecC2C", f.api.execC2C(f.plan, uint64(in), uint64(out), int32(sign)))
}

// Close destroys the plan (and its work area).
func (f *FFT) Close() error {
	if f == nil || !f.live {
		return nil
	}
	f.live = false
	unbind, err := f.c.bind()
	if err != nil {
		return err
	}
	defer unbind()
	return f.api.check("cufftDestroy", f.api.destroy(f.plan))
}
