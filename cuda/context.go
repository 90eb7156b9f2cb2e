package cuda

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"unsafe"
)

// DeviceInfo describes the device a Context runs on.
type DeviceInfo struct {
	Ordinal        int
	Name           string
	Major, Minor   int   // compute capability
	SMs            int   // multiprocessors
	TotalMem       int64 // bytes
	L2Bytes        int
	MaxSharedBlock int // bytes a block may opt in to
	DriverVersion  int // e.g. 13000 for CUDA 13.0
}

// Arch is the device's architecture name for NVRTC, e.g. "sm_90".
func (d DeviceInfo) Arch() string { return fmt.Sprintf("sm_%d%d", d.Major, d.Minor) }

// Context is an open device: the loaded driver and the device's primary
// context. cuBLAS and NVRTC are loaded on first use. Close releases it.
type Context struct {
	drv   *driverAPI
	blas  *blasAPI
	rtc   *nvrtcAPI
	dev   int32
	ctx   uintptr
	info  DeviceInfo
	cache string // kernel cache directory; "" disables the cache
}

// Open loads the driver and opens the primary context of the device with the
// given ordinal. On a machine without driver or device the error matches
// ErrNoDevice.
func Open(ordinal int) (*Context, error) {
	drv, err := loadDriver()
	if err != nil {
		return nil, fmt.Errorf("open CUDA driver: %w", err)
	}
	if code := drv.cuInit(0); code != 0 {
		err := drv.check("cuInit", code)
		if noDeviceCode(int(code)) {
			return nil, fmt.Errorf("%w: %w", ErrNoDevice, err)
		}
		return nil, err
	}
	var n int32
	if err := drv.check("cuDeviceGetCount", drv.cuDeviceGetCount(&n)); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: the driver reports 0 devices", ErrNoDevice)
	}
	if ordinal < 0 || ordinal >= int(n) {
		return nil, fmt.Errorf("cuda: device %d requested, %d present", ordinal, n)
	}
	c := &Context{drv: drv, cache: defaultCacheDir()}
	if err := drv.check("cuDeviceGet", drv.cuDeviceGet(&c.dev, int32(ordinal))); err != nil {
		return nil, err
	}
	if err := drv.check("cuDevicePrimaryCtxRetain", drv.cuDevicePrimaryCtxRetain(&c.ctx, c.dev)); err != nil {
		return nil, err
	}
	if err := c.readInfo(ordinal); err != nil {
		_ = c.Close()
		return nil, err
	}
	return c, nil
}

func (c *Context) readInfo(ordinal int) error {
	d := c.drv
	name := make([]byte, 256)
	if err := d.check("cuDeviceGetName", d.cuDeviceGetName(&name[0], int32(len(name)), c.dev)); err != nil {
		return err
	}
	c.info = DeviceInfo{Ordinal: ordinal, Name: goString(&name[0])}
	attr := func(a int32) (int, error) {
		var v int32
		err := d.check("cuDeviceGetAttribute", d.cuDeviceGetAttribute(&v, a, c.dev))
		return int(v), err
	}
	var errs []error
	var err error
	c.info.Major, err = attr(attrComputeCapMajor)
	errs = append(errs, err)
	c.info.Minor, err = attr(attrComputeCapMinor)
	errs = append(errs, err)
	c.info.SMs, err = attr(attrMultiprocessorCount)
	errs = append(errs, err)
	c.info.L2Bytes, err = attr(attrL2CacheSize)
	errs = append(errs, err)
	c.info.MaxSharedBlock, err = attr(attrMaxSharedPerBlockOpt)
	errs = append(errs, err)
	var tot uint64
	errs = append(errs, d.check("cuDeviceTotalMem", d.cuDeviceTotalMem(&tot, c.dev)))
	c.info.TotalMem = int64(tot)
	var v int32
	errs = append(errs, d.check("cuDriverGetVersion", d.cuDriverGetVersion(&v)))
	c.info.DriverVersion = int(v)
	return errors.Join(errs...)
}

// Info describes the device.
func (c *Context) Info() DeviceInfo { return c.info }

// DriverPath is the file the driver library was loaded from.
func (c *Context) DriverPath() string { return c.drv.lib.path }

// Close releases the primary context. Memory, streams and handles made
// through c must be freed before.
func (c *Context) Close() error {
	if c == nil || c.ctx == 0 {
		return nil
	}
	c.ctx = 0
	return c.drv.check("cuDevicePrimaryCtxRelease", c.drv.cuDevicePrimaryCtxRelease(c.dev))
}

// bind pins the goroutine to its OS thread and makes the context current
// there; the returned function undoes the pinning. Every driver call goes
// through it, because the current context is per thread and goroutines move
// between threads.
func (c *Context) bind() (func(), error) {
	if c == nil || c.ctx == 0 {
		return func() {}, errors.New("cuda: context is closed")
	}
	runtime.LockOSThread()
	if err := c.drv.check("cuCtxSetCurrent", c.drv.cuCtxSetCurrent(c.ctx)); err != nil {
		runtime.UnlockOSThread()
		return func() {}, err
	}
	return runtime.UnlockOSThread, nil
}

// call runs one driver call with the context current.
func (c *Context) call(name string, f func() int32) error {
	unbind, err := c.bind()
	if err != nil {
		return err
	}
	defer unbind()
	return c.drv.check(name, f())
}

// MemInfo returns the free and total device memory in bytes.
func (c *Context) MemInfo() (free, total int64, err error) {
	var f, t uint64
	err = c.call("cuMemGetInfo", func() int32 { return c.drv.cuMemGetInfo(&f, &t) })
	return int64(f), int64(t), err
}

// Stream is a CUDA stream; 0 is the legacy default stream.
type Stream uintptr

// NewStream creates a stream that does not synchronize with the default
// stream.
func (c *Context) NewStream() (Stream, error) {
	var s uintptr
	err := c.call("cuStreamCreate", func() int32 { return c.drv.cuStreamCreate(&s, 1 /* NON_BLOCKING */) })
	return Stream(s), err
}

// DestroyStream destroys a stream made by NewStream.
func (c *Context) DestroyStream(s Stream) error {
	return c.call("cuStreamDestroy", func() int32 { return c.drv.cuStreamDestroy(uintptr(s)) })
}

// SyncStream waits for the work queued on s.
func (c *Context) SyncStream(s Stream) error {
	return c.call("cuStreamSynchronize", func() int32 { return c.drv.cuStreamSynchronize(uintptr(s)) })
}

// Event is a CUDA event, used here for timing.
type Event uintptr

// NewEvent creates a timing event.
func (c *Context) NewEvent() (Event, error) {
	var e uintptr
	err := c.call("cuEventCreate", func() int32 { return c.drv.cuEventCreate(&e, 0) })
	return Event(e), err
}

// DestroyEvent destroys an event.
func (c *Context) DestroyEvent(e Event) error {
	return c.call("cuEventDestroy", func() int32 { return c.drv.cuEventDestroy(uintptr(e)) })
}

// Record records e on stream s.
func (c *Context) Record(e Event, s Stream) error {
	return c.call("cuEventRecord", func() int32 { return c.drv.cuEventRecord(uintptr(e), uintptr(s)) })
}

// WaitEvent makes the work queued on s after this call wait until e has
// completed, without the host waiting: how one stream hands its results
// to another.
func (c *Context) WaitEvent(s Stream, e Event) error {
	return c.call("cuStreamWaitEvent", func() int32 { return c.drv.cuStreamWaitEvent(uintptr(s), uintptr(e), 0) })
}

// SyncEvent waits until e has completed.
func (c *Context) SyncEvent(e Event) error {
	return c.call("cuEventSynchronize", func() int32 { return c.drv.cuEventSynchronize(uintptr(e)) })
}

// Elapsed returns the milliseconds between two completed events.
func (c *Context) Elapsed(start, end Event) (float32, error) {
	var ms float32
	err := c.call("cuEventElapsedTime", func() int32 { return c.drv.cuEventElapsedTime(&ms, uintptr(start), uintptr(end)) })
	return ms, err
}

// DevicePtr is a device address.
type DevicePtr uint64

// Offset returns p advanced by n bytes.
func (p DevicePtr) Offset(n int64) DevicePtr { return p + DevicePtr(n) }

// Alloc allocates n bytes of device memory (n > 0).
func (c *Context) Alloc(n int64) (DevicePtr, error) {
	if n <= 0 {
		return 0, fmt.Errorf("cuda: Alloc of %d bytes", n)
	}
	var p uint64
	err := c.call("cuMemAlloc", func() int32 { return c.drv.cuMemAlloc(&p, uint64(n)) })
	if err != nil {
		return 0, fmt.Errorf("allocate %d bytes on the device: %w", n, err)
	}
	return DevicePtr(p), nil
}

// Free frees device memory from Alloc; 0 is ignored.
func (c *Context) Free(p DevicePtr) error {
	if p == 0 {
		return nil
	}
	return c.call("cuMemFree", func() int32 { return c.drv.cuMemFree(uint64(p)) })
}

// Memset8 sets n bytes at p to v, queued on s.
func (c *Context) Memset8(p DevicePtr, v byte, n int64, s Stream) error {
	if n == 0 {
		return nil
	}
	return c.call("cuMemsetD8Async", func() int32 { return c.drv.cuMemsetD8Async(uint64(p), v, uint64(n), uintptr(s)) })
}

// CopyHtoD copies n bytes from host memory at src to the device, queued on s.
// src must stay valid until the copy completes (pageable Go memory makes the
// driver copy synchronously with respect to the host buffer).
func (c *Context) CopyHtoD(dst DevicePtr, src unsafe.Pointer, n int64, s Stream) error {
	if n == 0 {
		return nil
	}
	return c.call("cuMemcpyHtoDAsync", func() int32 { return c.drv.cuMemcpyHtoDAsync(uint64(dst), src, uint64(n), uintptr(s)) })
}

// CopyDtoH copies n bytes from the device to host memory at dst, queued on
// s. Into pinned memory it is asynchronous: synchronize before reading.
func (c *Context) CopyDtoH(dst unsafe.Pointer, src DevicePtr, n int64, s Stream) error {
	if n == 0 {
		return nil
	}
	return c.call("cuMemcpyDtoHAsync", func() int32 { return c.drv.cuMemcpyDtoHAsync(dst, uint64(src), uint64(n), uintptr(s)) })
}

// CopyDtoD copies n bytes between device buffers, queued on s.
func (c *Context) CopyDtoD(dst, src DevicePtr, n int64, s Stream) error {
	if n == 0 {
		return nil
	}
	return c.call("cuMemcpyDtoDAsync", func() int32 { return c.drv.cuMemcpyDtoDAsync(uint64(dst), uint64(src), uint64(n), uintptr(s)) })
}

// Upload copies a Go slice to the device and waits for the copy.
func Upload[T any](c *Context, dst DevicePtr, src []T, s Stream) error {
	if len(src) == 0 {
		return nil
	}
	n := int64(len(src)) * int64(unsafe.Sizeof(src[0]))
	if err := c.CopyHtoD(dst, unsafe.Pointer(&src[0]), n, s); err != nil {
		return err
	}
	err := c.SyncStream(s)
	runtime.KeepAlive(src)
	return err
}

// Download copies from the device into a Go slice and waits for the copy.
func Download[T any](c *Context, dst []T, src DevicePtr, s Stream) error {
	if len(dst) == 0 {
		return nil
	}
	n := int64(len(dst)) * int64(unsafe.Sizeof(dst[0]))
	if err := c.CopyDtoH(unsafe.Pointer(&dst[0]), src, n, s); err != nil {
		return err
	}
	err := c.SyncStream(s)
	runtime.KeepAlive(dst)
	return err
}

// AllocFor allocates device memory for n elements of T.
func AllocFor[T any](c *Context, n int) (DevicePtr, error) {
	var z T
	return c.Alloc(int64(n) * int64(unsafe.Sizeof(z)))
}

// HostBuffer is page-locked host memory, the source or target of truly
// asynchronous copies.
type HostBuffer struct {
	p unsafe.Pointer
	n int64
}

// AllocHost allocates n bytes of pinned host memory.
func (c *Context) AllocHost(n int64) (*HostBuffer, error) {
	if n <= 0 {
		return nil, fmt.Errorf("cuda: AllocHost of %d bytes", n)
	}
	var p unsafe.Pointer
	err := c.call("cuMemHostAlloc", func() int32 { return c.drv.cuMemHostAlloc(&p, uint64(n), 0) })
	if err != nil {
		return nil, fmt.Errorf("allocate %d bytes of pinned host memory: %w", n, err)
	}
	return &HostBuffer{p: p, n: n}, nil
}

// FreeHost frees pinned memory; nil is ignored.
func (c *Context) FreeHost(h *HostBuffer) error {
	if h == nil || h.p == nil {
		return nil
	}
	p := h.p
	h.p, h.n = nil, 0
	return c.call("cuMemFreeHost", func() int32 { return c.drv.cuMemFreeHost(p) })
}

// Ptr is the buffer's address.
func (h *HostBuffer) Ptr() unsafe.Pointer { return h.p }

// Len is the buffer's size in bytes.
func (h *HostBuffer) Len() int64 { return h.n }

// HostSlice views a pinned buffer as a slice of T (as many whole elements
// as fit).
func HostSlice[T any](h *HostBuffer) []T {
	var z T
	n := h.n / int64(unsafe.Sizeof(z))
	if h.p == nil || n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(h.p), n)
}

// Module is a loaded CUDA module (a CUBIN or PTX image).
type Module struct {
	c *Context
	h uintptr
	// Target is the architecture Compile compiled it for (e.g. "sm_90a",
	// "compute_90"); empty for a module loaded from an image.
	Target string
	// sigs are its kernels' declared parameters (Compile), nil for a
	// module loaded from an image.
	sigs map[string][]param
}

// LoadModule loads a CUBIN or NUL-terminated PTX image.
func (c *Context) LoadModule(image []byte) (*Module, error) {
	if len(image) == 0 {
		return nil, errors.New("cuda: empty module image")
	}
	var h uintptr
	err := c.call("cuModuleLoadData", func() int32 { return c.drv.cuModuleLoadData(&h, unsafe.Pointer(&image[0])) })
	runtime.KeepAlive(image)
	if err != nil {
		return nil, err
	}
	return &Module{c: c, h: h}, nil
}

// Unload unloads the module; its functions become invalid.
func (m *Module) Unload() error {
	if m == nil || m.h == 0 {
		return nil
	}
	h := m.h
	m.h = 0
	return m.c.call("cuModuleUnload", func() int32 { return m.c.drv.cuModuleUnload(h) })
}

// Function is a kernel in a loaded module.
type Function struct {
	c    *Context
	h    uintptr
	Name string
	// sig is the kernel's declared parameters when its module was
	// compiled from source (Launch checks its arguments against them);
	// nil for a module loaded from an image.
	sig []param
}

// Function looks a kernel up by its (extern "C") name.
func (m *Module) Function(name string) (Function, error) {
	var h uintptr
	err := m.c.call("cuModuleGetFunction", func() int32 { return m.c.drv.cuModuleGetFunction(&h, m.h, name) })
	if err != nil {
		return Function{}, fmt.Errorf("kernel %q: %w", name, err)
	}
	f := Function{c: m.c, h: h, Name: name}
	if m.sigs != nil {
		sig, ok := m.sigs[name]
		if !ok {
			return Function{}, fmt.Errorf("kernel %q: no extern \"C\" declaration of it in the module's source", name)
		}
		f.sig = sig
	}
	return f, nil
}

// funcAttrMaxDynamicShared is CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES.
const funcAttrMaxDynamicShared = 8

// SetMaxDynamicShared allows launches of f with up to n bytes of dynamic
// shared memory (more than the default 48 KiB needs this opt-in).
func (f Function) SetMaxDynamicShared(n int) error {
	return f.c.call("cuFuncSetAttribute", func() int32 {
		return f.c.drv.cuFuncSetAttribute(f.h, funcAttrMaxDynamicShared, int32(n))
	})
}

// FuncAttribute is a kernel property the driver reports
// (CUfunction_attribute).
type FuncAttribute int32

// The kernel properties read by tests: registers per thread and local
// memory per thread (non-zero when the compiler spilled registers).
const (
	AttrLocalBytes FuncAttribute = 3
	AttrRegisters  FuncAttribute = 4
)

// Attribute reads a property of f's compiled code.
func (f Function) Attribute(a FuncAttribute) (int, error) {
	var v int32
	err := f.c.call("cuFuncGetAttribute", func() int32 {
		return f.c.drv.cuFuncGetAttribute(&v, int32(a), f.h)
	})
	return int(v), err
}

// MaxActiveBlocksPerSM is how many blocks of blockSize threads using
// dynShared bytes of dynamic shared memory fit on one multiprocessor at
// once (registers, shared memory and thread limits of f on this device).
func (f Function) MaxActiveBlocksPerSM(blockSize, dynShared int) (int, error) {
	var n int32
	err := f.c.call("cuOccupancyMaxActiveBlocksPerMultiprocessor", func() int32 {
		return f.c.drv.cuOccupancyMaxActiveBlocks(&n, f.h, int32(blockSize), uint64(dynShared))
	})
	return int(n), err
}

// Dim3 is a grid or block shape.
type Dim3 struct{ X, Y, Z uint32 }

// Grid1 is the 1-D grid that covers n items with blocks of bs threads.
func Grid1(n, bs int) Dim3 {
	return Dim3{uint32((n + bs - 1) / bs), 1, 1}
}

// Launch queues the kernel on s. Each argument is passed by value and must
// be one of DevicePtr, int32, uint32, int64, uint64, float32 or float64,
// or a []float64 for a struct of that many doubles, matching the kernel's
// parameter list.
func (f Function) Launch(grid, block Dim3, shared int, s Stream, args ...any) error {
	if err := checkArgs(f.Name, f.sig, args); err != nil {
		return err
	}
	if grid.X == 0 || grid.Y == 0 || grid.Z == 0 {
		return nil // nothing to do; CUDA rejects empty grids
	}
	slots := make([]uint64, len(args))
	params := make([]unsafe.Pointer, len(args))
	// The params array holds pointers into slots (and into by-value
	// arrays): pin them for the call so the driver may read them (it
	// copies the values during the launch).
	var pin runtime.Pinner
	defer pin.Unpin()
	for i, a := range args {
		switch v := a.(type) {
		case DevicePtr:
			slots[i] = uint64(v)
		case int32:
			*(*int32)(unsafe.Pointer(&slots[i])) = v
		case uint32:
			*(*uint32)(unsafe.Pointer(&slots[i])) = v
		case int64:
			slots[i] = uint64(v)
		case uint64:
			slots[i] = v
		case float32:
			*(*float32)(unsafe.Pointer(&slots[i])) = v
		case float64:
			slots[i] = math.Float64bits(v)
		case []float64:
			// By value: a struct of len(v) doubles (at most the 4 KB of
			// kernel parameters); params points at the values themselves.
			if len(v) == 0 {
				return fmt.Errorf("cuda: launch %s: argument %d is an empty []float64", f.Name, i)
			}
			pin.Pin(&v[0])
			params[i] = unsafe.Pointer(&v[0])
			continue
		case int:
			return fmt.Errorf("cuda: launch %s: argument %d is a Go int; pass int32 or int64", f.Name, i)
		default:
			return fmt.Errorf("cuda: launch %s: argument %d has unsupported type %T", f.Name, i, a)
		}
		params[i] = unsafe.Pointer(&slots[i])
	}
	var pp unsafe.Pointer
	if len(args) > 0 {
		pin.Pin(&slots[0])
		pin.Pin(&params[0])
		pp = unsafe.Pointer(&params[0])
	}
	err := f.c.call("cuLaunchKernel", func() int32 {
		return f.c.drv.cuLaunchKernel(f.h, grid.X, grid.Y, grid.Z, block.X, block.Y, block.Z, uint32(shared), uintptr(s), pp, nil)
	})
	if err != nil {
		return fmt.Errorf("launch %s: %w", f.Name, err)
	}
	return nil
}
