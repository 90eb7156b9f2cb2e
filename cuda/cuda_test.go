package cuda_test

import (
	"embed"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/internal/gputest"
	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/kernels"
)

func TestOpenErrorIsNoDeviceOrNil(t *testing.T) {
	c, err := cuda.Open(0)
	if err != nil {
		if !errors.Is(err, cuda.ErrNoDevice) {
			t.Fatalf("Open failed with an error that is not ErrNoDevice: %v", err)
		}
		t.Skipf("no CUDA device/driver found: %v", err)
	}
	defer c.Close()
	info := c.Info()
	free, total, err := c.MemInfo()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("device %q sm_%d%d, %d SMs, L2 %d B, memory %d/%d MiB free, driver %d (%s)",
		info.Name, info.Major, info.Minor, info.SMs, info.L2Bytes, free>>20, total>>20, info.DriverVersion, c.DriverPath())
	if info.SMs <= 0 || total <= 0 || info.Major <= 0 {
		t.Errorf("implausible device info %+v", info)
	}
	if _, err := cuda.Open(1 << 20); err == nil {
		t.Error("Open of a device ordinal far out of range succeeded")
	}
}

// TestPreloadBLAS: loading cuBLAS ahead of any context either succeeds,
// twice (the loader counts references), or fails as a missing library
// does, with ErrNoDevice, as NewBlas would.
func TestPreloadBLAS(t *testing.T) {
	err := cuda.PreloadBLAS()
	if err != nil {
		if !errors.Is(err, cuda.ErrNoDevice) || !strings.Contains(err.Error(), "libcublas") {
			t.Fatalf("PreloadBLAS: %v, want nil or ErrNoDevice naming libcublas", err)
		}
		t.Skipf("no cuBLAS here: %v", err)
	}
	if err := cuda.PreloadBLAS(); err != nil {
		t.Fatalf("a second PreloadBLAS: %v", err)
	}
}

func TestMemcpyRoundTrip(t *testing.T) {
	rng := sharedtest.RNG(t, 1)
	c := gputest.Open(t)
	s, err := c.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer c.DestroyStream(s)
	const n = 1<<20 + 3
	src := make([]float64, n)
	for i := range src {
		src[i] = rng.NormFloat64()
	}
	d, err := cuda.AllocFor[float64](c, n)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free(d)
	if err := cuda.Upload(c, d, src, s); err != nil {
		t.Fatal(err)
	}
	// Through pinned memory, poisoned first, asynchronously.
	h, err := c.AllocHost(n * 8)
	if err != nil {
		t.Fatal(err)
	}
	defer c.FreeHost(h)
	dst := cuda.HostSlice[float64](h)
	for i := range dst {
		dst[i] = math.NaN()
	}
	d2, err := cuda.AllocFor[float64](c, n)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free(d2)
	if err := c.Memset8(d2, 0xFF, n*8, s); err != nil {
		t.Fatal(err)
	}
	if err := c.CopyDtoD(d2, d, n*8, s); err != nil {
		t.Fatal(err)
	}
	if err := c.CopyDtoH(h.Ptr(), d2, n*8, s); err != nil {
		t.Fatal(err)
	}
	if err := c.SyncStream(s); err != nil {
		t.Fatal(err)
	}
	for i := range src {
		if dst[i] != src[i] {
			t.Fatalf("element %d: got %v want %v", i, dst[i], src[i])
		}
	}
	if _, err := c.Alloc(-1); err == nil {
		t.Error("Alloc(-1) succeeded")
	}
	if _, err := c.Alloc(1 << 60); err == nil {
		t.Error("Alloc of 1 EiB succeeded")
	} else {
		t.Logf("huge alloc error (expected): %v", err)
	}
}

// testKernels is the tests' own program, selftest.cu (a saxpy/daxpy
// pair).
//
//go:embed testdata/selftest.cu
var testKernels embed.FS

func compileProgram(t testing.TB, c *cuda.Context, name string) *cuda.Module {
	t.Helper()
	fsys, err := fs.Sub(testKernels, "testdata")
	if err != nil {
		t.Fatal(err)
	}
	code, headers, err := kernels.Program(fsys, name)
	if err != nil {
		t.Fatal(err)
	}
	m, err := c.Compile(cuda.Source{Name: name, Code: code, Headers: headers})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Unload() })
	return m
}

func TestNVRTCKernel(t *testing.T) {
	rng := sharedtest.RNG(t, 2)
	c := gputest.Open(t)
	c.SetKernelCacheDir(t.TempDir())
	ma, mi, err := c.NVRTCVersion()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("NVRTC %d.%d, device arch %s", ma, mi, c.Info().Arch())
	m := compileProgram(t, c, "selftest.cu")
	s, err := c.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer c.DestroyStream(s)
	const n = 100003
	for _, prec := range []string{"f32", "f64"} {
		f, err := m.Function("axpy_" + prec)
		if err != nil {
			t.Fatal(err)
		}
		x := make([]float64, n)
		y := make([]float64, n)
		for i := range x {
			x[i], y[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		a := rng.NormFloat64()
		var got []float64
		var tol float64
		if prec == "f32" {
			x32, y32 := toF32(x), toF32(y)
			dx, _ := cuda.AllocFor[float32](c, n)
			dy, _ := cuda.AllocFor[float32](c, n)
			defer c.Free(dx)
			defer c.Free(dy)
			gputest.Must(t, cuda.Upload(c, dx, x32, s))
			gputest.Must(t, cuda.Upload(c, dy, y32, s))
			gputest.Must(t, f.Launch(cuda.Grid1(n, 256), cuda.Dim3{X: 256, Y: 1, Z: 1}, 0, s, int64(n), float32(a), dx, dy))
			out := make([]float32, n)
			gputest.Must(t, cuda.Download(c, out, dy, s))
			for _, v := range out {
				got = append(got, float64(v))
			}
			tol = 1e-5
		} else {
			dx, _ := cuda.AllocFor[float64](c, n)
			dy, _ := cuda.AllocFor[float64](c, n)
			defer c.Free(dx)
			defer c.Free(dy)
			gputest.Must(t, cuda.Upload(c, dx, x, s))
			gputest.Must(t, cuda.Upload(c, dy, y, s))
			gputest.Must(t, f.Launch(cuda.Grid1(n, 256), cuda.Dim3{X: 256, Y: 1, Z: 1}, 0, s, int64(n), a, dx, dy))
			got = make([]float64, n)
			gputest.Must(t, cuda.Download(c, got, dy, s))
			tol = 1e-15
		}
		for i := range got {
			want := a*x[i] + y[i]
			if math.Abs(got[i]-want) > tol*(1+math.Abs(want)) || math.IsNaN(got[i]) {
				t.Fatalf("%s element %d: got %v want %v", prec, i, got[i], want)
			}
		}
	}
	if err := f32ArgMismatch(m, s); err == nil {
		t.Error("Launch with a Go int argument succeeded")
	}
}

func f32ArgMismatch(m *cuda.Module, s cuda.Stream) error {
	f, err := m.Function("axpy_f32")
	if err != nil {
		return nil
	}
	return f.Launch(cuda.Dim3{X: 1, Y: 1, Z: 1}, cuda.Dim3{X: 1, Y: 1, Z: 1}, 0, s, 5, float32(1), cuda.DevicePtr(0), cuda.DevicePtr(0))
}

func TestCompileCacheAndErrors(t *testing.T) {
	c := gputest.Open(t)
	dir := t.TempDir()
	c.SetKernelCacheDir(dir)
	src := cuda.Source{Name: "k.cu", Code: `extern "C" __global__ void k(float* p) { p[threadIdx.x] = 1.0f; }`}
	if _, err := c.CompileImage(src); err != nil {
		t.Fatal(err)
	}
	entries, _ := filepath.Glob(filepath.Join(dir, "*.bin"))
	if len(entries) != 1 {
		t.Fatalf("cache holds %d images, want 1", len(entries))
	}
	// A second compile must come from the cache: corrupt-proof check by
	// making the cached image recognisable.
	img, _ := os.ReadFile(entries[0])
	img2, err := c.CompileImage(src)
	if err != nil || string(img2) != string(img) {
		t.Fatalf("second compile differs from the cached image (err %v)", err)
	}
	// Another option is another key.
	if _, err := c.CompileImage(src, "-DX=1"); err != nil {
		t.Fatal(err)
	}
	entries, _ = filepath.Glob(filepath.Join(dir, "*.bin"))
	if len(entries) != 2 {
		t.Fatalf("cache holds %d images, want 2", len(entries))
	}
	bad := cuda.Source{Name: "bad.cu", Code: `extern "C" __global__ void k(float* p) { p[0] = undefined_thing; }`}
	_, err = c.CompileImage(bad)
	var ce *cuda.CompileError
	if !errors.As(err, &ce) || ce.Log == "" {
		t.Fatalf("bad source: got %v, want a CompileError with a log", err)
	}
	t.Logf("compile error as reported: %v", err)
}

func toF32(x []float64) []float32 {
	o := make([]float32, len(x))
	for i, v := range x {
		o[i] = float32(v)
	}
	return o
}

func TestBlasAgainstGoLoop(t *testing.T) {
	rng := sharedtest.RNG(t, 6)
	c := gputest.Open(t)
	s, err := c.NewStream()
	gputest.Must(t, err)
	defer c.DestroyStream(s)
	b, err := c.NewBlas(s)
	gputest.Must(t, err)
	defer b.Close()
	v, err := b.Version()
	gputest.Must(t, err)
	t.Logf("cuBLAS %d from %s", v, b.Path())
	gputest.Must(t, b.SetMathMode(cuda.DefaultMath))

	const m, k = 37, 1031
	a := gputest.RandC(rng, m*k)
	ref := gputest.GramRef(a, m, k)
	a64 := make([]complex64, len(a))
	for i, v := range a {
		a64[i] = complex64(v)
	}
	dA32, _ := cuda.AllocFor[complex64](c, m*k)
	dA64, _ := cuda.AllocFor[complex128](c, m*k)
	dC, _ := cuda.AllocFor[complex128](c, m*m)
	defer c.Free(dA32)
	defer c.Free(dA64)
	defer c.Free(dC)
	gputest.Must(t, cuda.Upload(c, dA32, a64, s))
	gputest.Must(t, cuda.Upload(c, dA64, a, s))

	run := func(name string, double, lower bool, tol float64, f func() error) {
		t.Helper()
		gputest.Must(t, c.Memset8(dC, 0xFF, m*m*16, s)) // NaN everywhere
		if err := f(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := gputest.Download(t, c, s, dC, m*m, double)
		e := gputest.MaxRelErr(got, ref, m, lower)
		t.Logf("%-10s max error / peak = %.2e", name, e)
		if !(e <= tol) {
			t.Errorf("%s: error %.3e over %.1e", name, e, tol)
		}
	}
	run("cherk", false, true, 1e-5, func() error { return b.Cherk(cuda.Lower, cuda.OpC, m, k, 1, dA32, k, 0, dC, m) })
	run("zherk", true, true, 1e-13, func() error { return b.Zherk(cuda.Lower, cuda.OpC, m, k, 1, dA64, k, 0, dC, m) })
	run("cgemm", false, false, 1e-5, func() error { return b.Cgemm(cuda.OpC, cuda.OpN, m, m, k, 1, dA32, k, dA32, k, 0, dC, m) })
	run("cgemm3m", false, false, 1e-5, func() error { return b.Cgemm3m(cuda.OpC, cuda.OpN, m, m, k, 1, dA32, k, dA32, k, 0, dC, m) })
	run("zgemm", true, false, 1e-13, func() error { return b.Zgemm(cuda.OpC, cuda.OpN, m, m, k, 1, dA64, k, dA64, k, 0, dC, m) })
	run("gemmex32", false, false, 1e-5, func() error {
		return b.GemmEx(cuda.OpC, cuda.OpN, m, m, k, 1, dA32, k, dA32, k, 0, dC, m, cuda.C32F, cuda.Compute32F)
	})
	run("gemmex64", true, false, 1e-13, func() error {
		return b.GemmEx(cuda.OpC, cuda.OpN, m, m, k, 1, dA64, k, dA64, k, 0, dC, m, cuda.C64F, cuda.Compute64F)
	})
	// A bad argument comes back as a cuBLAS error with its status name.
	err = b.Cgemm(cuda.OpC, cuda.OpN, m, m, k, 1, dA32, 1, dA32, k, 0, dC, m)
	var ce *cuda.Error
	if !errors.As(err, &ce) || ce.Lib != "cublas" {
		t.Errorf("cgemm with lda < k: got %v, want a cublas error", err)
	} else {
		t.Logf("bad lda reported as: %v", err)
	}
}

// A []float64 argument reaches the kernel by value, as a struct of that
// many doubles between ordinary arguments, and stays readable through a
// pointer (__grid_constant__).
func TestLaunchByValueBlock(t *testing.T) {
	rng := sharedtest.RNG(t, 3)
	c := gputest.Open(t)
	src := cuda.Source{Name: "byvalue.cu", Code: `
struct Blk { double v[27]; };
extern "C" __global__ void weigh(int n, const __grid_constant__ Blk b, double scale, double* out) {
  const double* p = b.v;
  int i = threadIdx.x;
  if (i < n) out[i] = scale * p[(i * 7) % 27] + (double)i;
}`}
	m, err := c.Compile(src)
	gputest.Must(t, err)
	defer m.Unload()
	f, err := m.Function("weigh")
	gputest.Must(t, err)
	s, err := c.NewStream()
	gputest.Must(t, err)
	defer c.DestroyStream(s)
	blk := make([]float64, 27)
	for i := range blk {
		blk[i] = rng.NormFloat64()
	}
	const n = 64
	d, err := cuda.AllocFor[float64](c, n)
	gputest.Must(t, err)
	defer c.Free(d)
	gputest.Must(t, c.Memset8(d, 0xFF, n*8, s))
	gputest.Must(t, f.Launch(cuda.Dim3{X: 1, Y: 1, Z: 1}, cuda.Dim3{X: n, Y: 1, Z: 1}, 0, s, int32(n), blk, 0.5, d))
	got := make([]float64, n)
	gputest.Must(t, cuda.Download(c, got, d, s))
	gputest.Must(t, c.SyncStream(s))
	for i, v := range got {
		if want := 0.5*blk[(i*7)%27] + float64(i); v != want {
			t.Fatalf("out[%d] = %v, want %v", i, v, want)
		}
	}
	if err := f.Launch(cuda.Dim3{X: 1, Y: 1, Z: 1}, cuda.Dim3{X: 1, Y: 1, Z: 1}, 0, s, int32(1), []float64{}, 0.5, d); err == nil {
		t.Error("an empty by-value block was accepted")
	}
}

// TestLaunchChecksDeclaration: a launch whose arguments differ from the
// kernel's declaration in count, width or class is refused before the
// driver sees it, naming the parameter; the matching one runs.
func TestLaunchChecksDeclaration(t *testing.T) {
	c := gputest.Open(t)
	src := cuda.Source{Name: "decl.cu", Code: `typedef R_T real;
extern "C" __global__ void k(long long n, real a, double* p) { if (threadIdx.x < n) p[threadIdx.x] = a; }`}
	m, err := c.Compile(src, "-DR_T=float")
	gputest.Must(t, err)
	defer m.Unload()
	f, err := m.Function("k")
	gputest.Must(t, err)
	s, err := c.NewStream()
	gputest.Must(t, err)
	defer c.DestroyStream(s)
	d, err := cuda.AllocFor[float64](c, 4)
	gputest.Must(t, err)
	defer c.Free(d)
	one := cuda.Dim3{X: 1, Y: 1, Z: 1}
	gputest.Must(t, f.Launch(one, cuda.Dim3{X: 4, Y: 1, Z: 1}, 0, s, int64(4), float32(2), d))
	gputest.Must(t, c.SyncStream(s))
	for _, bad := range []struct {
		args []any
		want string
	}{
		{[]any{int32(4), float32(2), d}, "(long long n) is a int32"},
		{[]any{int64(4), 2.0, d}, "(real a) is a float64"},
		{[]any{int64(4), float32(2)}, "2 arguments, the kernel declares 3"},
	} {
		if err := f.Launch(one, one, 0, s, bad.args...); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("arguments %v: error %v, want %q", bad.args, err, bad.want)
		}
	}
}
