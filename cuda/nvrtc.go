package cuda

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"github.com/gomatvis/gomatvis/internal/atomicfile"
)

// nvrtcAPI holds the NVRTC entry points; each returns an nvrtcResult.
type nvrtcAPI struct {
	lib loadedLib

	version        func(major, minor *int32) int32
	numArchs       func(n *int32) int32
	archs          func(a *int32) int32
	create         func(prog *uintptr, src string, name string, nh int32, headers, names unsafe.Pointer) int32
	compile        func(prog uintptr, nopt int32, opts unsafe.Pointer) int32
	destroy        func(prog *uintptr) int32
	logSize        func(prog uintptr, n *uint64) int32
	log            func(prog uintptr, buf *byte) int32
	cubinSize      func(prog uintptr, n *uint64) int32
	cubin          func(prog uintptr, buf *byte) int32
	ptxSize        func(prog uintptr, n *uint64) int32
	ptx            func(prog uintptr, buf *byte) int32
	getErrorString func(code int32) string
}

func (c *Context) loadNVRTC() (*nvrtcAPI, error) {
	if c.rtc != nil {
		return c.rtc, nil
	}
	lib, err := openLib(specNVRTC)
	if err != nil {
		return nil, fmt.Errorf("open NVRTC: %w", err)
	}
	a := &nvrtcAPI{lib: lib}
	b := &binder{lib: lib}
	b.fn(&a.version, "nvrtcVersion")
	b.fn(&a.numArchs, "nvrtcGetNumSupportedArchs")
	b.fn(&a.archs, "nvrtcGetSupportedArchs")
	b.fn(&a.create, "nvrtcCreateProgram")
	b.fn(&a.compile, "nvrtcCompileProgram")
	b.fn(&a.destroy, "nvrtcDestroyProgram")
	b.fn(&a.logSize, "nvrtcGetProgramLogSize")
	b.fn(&a.log, "nvrtcGetProgramLog")
	b.fn(&a.cubinSize, "nvrtcGetCUBINSize")
	b.fn(&a.cubin, "nvrtcGetCUBIN")
	b.fn(&a.ptxSize, "nvrtcGetPTXSize")
	b.fn(&a.ptx, "nvrtcGetPTX")
	b.fn(&a.getErrorString, "nvrtcGetErrorString")
	if err := b.err(); err != nil {
		return nil, fmt.Errorf("open NVRTC: %w", err)
	}
	c.rtc = a
	return a, nil
}

func (a *nvrtcAPI) check(fn string, code int32) error {
	if code == 0 {
		return nil
	}
	name := nvrtcStatusNames[int(code)]
	if name == "" {
		name = "NVRTC_ERROR_UNKNOWN"
	}
	return &Error{Lib: "nvrtc", Func: fn, Code: int(code), Name: name, Msg: a.getErrorString(code)}
}

// Source is a CUDA C++ program for NVRTC: a main file and the headers it
// includes by name.
type Source struct {
	Name    string            // file name shown in diagnostics, e.g. "gram.cu"
	Code    string            // the main file's text
	Headers map[string]string // include name -> text
	// ArchSpecific compiles for the device's architecture-specific target
	// when it has one (sm_90a on an sm_90 device: Hopper's wgmma), whose
	// code runs on that architecture only; Module.Target says which target
	// was used, and kernels can test __CUDA_ARCH_FEAT_SM90_ALL.
	ArchSpecific bool
}

// CompileError is a failed compilation, with NVRTC's log.
type CompileError struct {
	Name string
	Log  string
	Err  error
}

// Error gives the program, NVRTC's status and its log on the next lines.
func (e *CompileError) Error() string {
	return fmt.Sprintf("compile %s: %v\n%s", e.Name, e.Err, e.Log)
}

// Unwrap returns NVRTC's status error, so errors.As finds the *Error.
func (e *CompileError) Unwrap() error { return e.Err }

// NVRTCVersion is the loaded NVRTC's version, e.g. (13, 0).
func (c *Context) NVRTCVersion() (major, minor int, err error) {
	a, err := c.loadNVRTC()
	if err != nil {
		return 0, 0, err
	}
	var ma, mi int32
	err = a.check("nvrtcVersion", a.version(&ma, &mi))
	return int(ma), int(mi), err
}

// targetArch picks the compile target: the device's own architecture as
// CUBIN when NVRTC supports it, else PTX for the newest architecture NVRTC
// knows (the driver compiles PTX for newer devices at load).
func (c *Context) targetArch(a *nvrtcAPI) (arch string, cubin bool, err error) {
	dev := c.info.Major*10 + c.info.Minor
	var n int32
	if err := a.check("nvrtcGetNumSupportedArchs", a.numArchs(&n)); err != nil {
		return "", false, err
	}
	if n <= 0 {
		return "", false, errors.New("nvrtc: reports no supported architectures")
	}
	list := make([]int32, n)
	if err := a.check("nvrtcGetSupportedArchs", a.archs(&list[0])); err != nil {
		return "", false, err
	}
	best := int32(0)
	for _, v := range list {
		if int(v) == dev {
			return fmt.Sprintf("sm_%d", dev), true, nil
		}
		if int(v) < dev && v > best {
			best = v
		}
	}
	if best == 0 {
		return "", false, fmt.Errorf("nvrtc: no supported architecture at or below sm_%d (supported: %v)", dev, list)
	}
	return fmt.Sprintf("compute_%d", best), false, nil
}

// Compile compiles src for this device with NVRTC (options such as
// "-DFOO=1" or "--use_fast_math" are added to the architecture option) and
// loads the result. Compiled images are cached on disk, keyed by the source,
// headers, options, target, NVRTC version and driver version.
func (c *Context) Compile(src Source, options ...string) (*Module, error) {
	sigs, err := kernelSignatures(src, options)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src.Name, err)
	}
	img, arch, err := c.compileImage(src, options...)
	if err != nil {
		return nil, err
	}
	m, err := c.LoadModule(img)
	if err != nil {
		return nil, fmt.Errorf("load module %s: %w", src.Name, err)
	}
	m.Target, m.sigs = arch, sigs
	return m, nil
}

// CompileImage is Compile without the loading: it returns the CUBIN (or
// NUL-terminated PTX) image, from the cache when present.
func (c *Context) CompileImage(src Source, options ...string) ([]byte, error) {
	img, _, err := c.compileImage(src, options...)
	return img, err
}

// compileImage is CompileImage that also returns the target compiled for.
func (c *Context) compileImage(src Source, options ...string) (img []byte, arch string, err error) {
	a, err := c.loadNVRTC()
	if err != nil {
		return nil, "", err
	}
	arch, cubin, err := c.targetArch(a)
	if err != nil {
		return nil, "", err
	}
	if src.ArchSpecific && cubin && arch == "sm_90" {
		arch = "sm_90a"
	}
	var ma, mi int32
	if err := a.check("nvrtcVersion", a.version(&ma, &mi)); err != nil {
		return nil, "", err
	}
	opts := append([]string{"--gpu-architecture=" + arch, "--std=c++17"}, options...)
	key := cacheKey(src, opts, fmt.Sprintf("nvrtc %d.%d driver %d", ma, mi, c.info.DriverVersion))
	if img, ok := c.cacheGet(key); ok {
		return img, arch, nil
	}
	if img, err = a.build(src, opts, cubin); err != nil {
		return nil, "", err
	}
	c.cachePut(key, img)
	return img, arch, nil
}

func (a *nvrtcAPI) build(src Source, opts []string, cubin bool) ([]byte, error) {
	names := make([]string, 0, len(src.Headers))
	for n := range src.Headers {
		names = append(names, n)
	}
	sort.Strings(names)
	// C string arrays: the bytes are Go memory, pinned for the calls.
	var pin runtime.Pinner
	defer pin.Unpin()
	cstrs := func(ss []string) unsafe.Pointer {
		if len(ss) == 0 {
			return nil
		}
		ptrs := make([]*byte, len(ss))
		for i, s := range ss {
			b := append([]byte(s), 0)
			pin.Pin(&b[0])
			ptrs[i] = &b[0]
		}
		pin.Pin(&ptrs[0])
		return unsafe.Pointer(&ptrs[0])
	}
	texts := make([]string, len(names))
	for i, n := range names {
		texts[i] = src.Headers[n]
	}
	var prog uintptr
	if err := a.check("nvrtcCreateProgram", a.create(&prog, src.Code, src.Name, int32(len(names)), cstrs(texts), cstrs(names))); err != nil {
		return nil, fmt.Errorf("compile %s: %w", src.Name, err)
	}
	defer a.destroy(&prog)
	if code := a.compile(prog, int32(len(opts)), cstrs(opts)); code != 0 {
		return nil, &CompileError{Name: src.Name, Log: a.programLog(prog), Err: a.check("nvrtcCompileProgram", code)}
	}
	var n uint64
	sizeFn, getFn, what := a.cubinSize, a.cubin, "CUBIN"
	if !cubin {
		sizeFn, getFn, what = a.ptxSize, a.ptx, "PTX"
	}
	if err := a.check("nvrtcGet"+what+"Size", sizeFn(prog, &n)); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("compile %s: NVRTC returned an empty %s", src.Name, what)
	}
	img := make([]byte, n)
	if err := a.check("nvrtcGet"+what, getFn(prog, &img[0])); err != nil {
		return nil, err
	}
	return img, nil
}

func (a *nvrtcAPI) programLog(prog uintptr) string {
	var n uint64
	if a.logSize(prog, &n) != 0 || n <= 1 {
		return ""
	}
	buf := make([]byte, n)
	if a.log(prog, &buf[0]) != 0 {
		return ""
	}
	return strings.TrimRight(string(buf), "\x00\n")
}

// defaultCacheDir is $GOMATVIS_KERNEL_CACHE, or the user cache directory's
// gomatvis/kernels; "off" (or no usable directory) disables caching.
func defaultCacheDir() string {
	if v, ok := os.LookupEnv("GOMATVIS_KERNEL_CACHE"); ok {
		if v == "off" || v == "" {
			return ""
		}
		return v
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "gomatvis", "kernels")
}

// SetKernelCacheDir changes (or with "" disables) the on-disk kernel cache.
func (c *Context) SetKernelCacheDir(dir string) { c.cache = dir }

func cacheKey(src Source, opts []string, toolchain string) string {
	h := sha256.New()
	w := func(s string) {
		h.Write([]byte(strconv.Itoa(len(s))))
		h.Write([]byte{0})
		h.Write([]byte(s))
	}
	w("gomatvis-kernel-v1")
	w(toolchain)
	w(src.Name)
	w(src.Code)
	names := make([]string, 0, len(src.Headers))
	for n := range src.Headers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		w(n)
		w(src.Headers[n])
	}
	for _, o := range opts {
		w(o)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (c *Context) cacheGet(key string) ([]byte, bool) {
	if c.cache == "" {
		return nil, false
	}
	b, err := os.ReadFile(filepath.Join(c.cache, key+".bin"))
	if err != nil || len(b) == 0 {
		return nil, false
	}
	return b, true
}

// cachePut stores an image; failures only cost a recompilation next time,
// so they are ignored.
func (c *Context) cachePut(key string, img []byte) {
	if c.cache == "" {
		return
	}
	if err := os.MkdirAll(c.cache, 0o755); err != nil {
		return
	}
	_ = atomicfile.WriteBytes(filepath.Join(c.cache, key+".bin"), img)
}
