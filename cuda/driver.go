package cuda

import (
	"unsafe"
)

// driverAPI holds the driver entry points, grouped by what they act on
// (each group's fields are promoted). Each returns a CUresult.
type driverAPI struct {
	lib loadedLib
	deviceEntries
	streamEntries
	memoryEntries
	moduleEntries
}

// deviceEntries are the driver entry points for the driver, its devices and their primary contexts.
type deviceEntries struct {
	cuInit                    func(flags uint32) int32
	cuDriverGetVersion        func(v *int32) int32
	cuDeviceGetCount          func(n *int32) int32
	cuDeviceGet               func(dev *int32, ordinal int32) int32
	cuDeviceGetName           func(name *byte, n int32, dev int32) int32
	cuDeviceGetAttribute      func(v *int32, attr int32, dev int32) int32
	cuDeviceTotalMem          func(b *uint64, dev int32) int32
	cuDevicePrimaryCtxRetain  func(ctx *uintptr, dev int32) int32
	cuDevicePrimaryCtxRelease func(dev int32) int32
	cuCtxSetCurrent           func(ctx uintptr) int32
	cuGetErrorName            func(code int32, s **byte) int32
	cuGetErrorString          func(code int32, s **byte) int32
}

// streamEntries are the driver entry points for streams and events.
type streamEntries struct {
	cuStreamCreate      func(s *uintptr, flags uint32) int32
	cuStreamDestroy     func(s uintptr) int32
	cuStreamSynchronize func(s uintptr) int32
	cuEventCreate       func(e *uintptr, flags uint32) int32
	cuEventDestroy      func(e uintptr) int32
	cuEventRecord       func(e, s uintptr) int32
	cuStreamWaitEvent   func(s, e uintptr, flags uint32) int32
	cuEventSynchronize  func(e uintptr) int32
	cuEventElapsedTime  func(ms *float32, start, end uintptr) int32
}

// memoryEntries are the driver entry points for device and pinned host memory and copies.
type memoryEntries struct {
	cuMemAlloc        func(p *uint64, n uint64) int32
	cuMemFree         func(p uint64) int32
	cuMemsetD8Async   func(p uint64, v uint8, n uint64, s uintptr) int32
	cuMemcpyHtoDAsync func(dst uint64, src unsafe.Pointer, n uint64, s uintptr) int32
	cuMemcpyDtoHAsync func(dst unsafe.Pointer, src uint64, n uint64, s uintptr) int32
	cuMemcpyDtoDAsync func(dst, src uint64, n uint64, s uintptr) int32
	cuMemHostAlloc    func(p *unsafe.Pointer, n uint64, flags uint32) int32
	cuMemFreeHost     func(p unsafe.Pointer) int32
	cuMemGetInfo      func(free, total *uint64) int32
}

// moduleEntries are the driver entry points for modules, kernels and their launches.
type moduleEntries struct {
	cuModuleLoadData           func(m *uintptr, image unsafe.Pointer) int32
	cuModuleUnload             func(m uintptr) int32
	cuModuleGetFunction        func(f *uintptr, m uintptr, name string) int32
	cuLaunchKernel             func(f uintptr, gx, gy, gz, bx, by, bz, shmem uint32, s uintptr, params unsafe.Pointer, extra unsafe.Pointer) int32
	cuFuncSetAttribute         func(f uintptr, attrib int32, value int32) int32
	cuFuncGetAttribute         func(value *int32, attrib int32, f uintptr) int32
	cuOccupancyMaxActiveBlocks func(n *int32, f uintptr, blockSize int32, dynSmem uint64) int32
}

func loadDriver() (*driverAPI, error) {
	lib, err := openLib(specCUDA)
	if err != nil {
		return nil, err
	}
	d := &driverAPI{lib: lib}
	b := &binder{lib: lib}
	b.fn(&d.cuInit, "cuInit")
	b.fn(&d.cuDriverGetVersion, "cuDriverGetVersion")
	b.fn(&d.cuDeviceGetCount, "cuDeviceGetCount")
	b.fn(&d.cuDeviceGet, "cuDeviceGet")
	b.fn(&d.cuDeviceGetName, "cuDeviceGetName")
	b.fn(&d.cuDeviceGetAttribute, "cuDeviceGetAttribute")
	b.fn(&d.cuDeviceTotalMem, "cuDeviceTotalMem_v2")
	b.fn(&d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")
	b.fn(&d.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease")
	b.fn(&d.cuCtxSetCurrent, "cuCtxSetCurrent")
	b.fn(&d.cuStreamCreate, "cuStreamCreate")
	b.fn(&d.cuStreamDestroy, "cuStreamDestroy_v2", "cuStreamDestroy")
	b.fn(&d.cuStreamSynchronize, "cuStreamSynchronize")
	b.fn(&d.cuEventCreate, "cuEventCreate")
	b.fn(&d.cuEventDestroy, "cuEventDestroy_v2", "cuEventDestroy")
	b.fn(&d.cuEventRecord, "cuEventRecord")
	b.fn(&d.cuStreamWaitEvent, "cuStreamWaitEvent")
	b.fn(&d.cuEventSynchronize, "cuEventSynchronize")
	b.fn(&d.cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime")
	b.fn(&d.cuMemAlloc, "cuMemAlloc_v2")
	b.fn(&d.cuMemFree, "cuMemFree_v2")
	b.fn(&d.cuMemsetD8Async, "cuMemsetD8Async")
	b.fn(&d.cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2")
	b.fn(&d.cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2")
	b.fn(&d.cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2")
	b.fn(&d.cuMemHostAlloc, "cuMemHostAlloc")
	b.fn(&d.cuMemFreeHost, "cuMemFreeHost")
	b.fn(&d.cuMemGetInfo, "cuMemGetInfo_v2")
	b.fn(&d.cuModuleLoadData, "cuModuleLoadData")
	b.fn(&d.cuModuleUnload, "cuModuleUnload")
	b.fn(&d.cuModuleGetFunction, "cuModuleGetFunction")
	b.fn(&d.cuLaunchKernel, "cuLaunchKernel")
	b.fn(&d.cuFuncSetAttribute, "cuFuncSetAttribute")
	b.fn(&d.cuFuncGetAttribute, "cuFuncGetAttribute")
	b.fn(&d.cuOccupancyMaxActiveBlocks, "cuOccupancyMaxActiveBlocksPerMultiprocessor")
	b.fn(&d.cuGetErrorName, "cuGetErrorName")
	b.fn(&d.cuGetErrorString, "cuGetErrorString")
	if err := b.err(); err != nil {
		return nil, err
	}
	return d, nil
}

// check turns a CUresult into nil or an *Error with the driver's own name
// and description of the code.
func (d *driverAPI) check(fn string, code int32) error {
	if code == 0 {
		return nil
	}
	e := &Error{Lib: "cuda", Func: fn, Code: int(code), Name: "CUDA_ERROR_UNKNOWN"}
	var p *byte
	if d.cuGetErrorName(code, &p) == 0 && p != nil {
		e.Name = goString(p)
	}
	p = nil
	if d.cuGetErrorString(code, &p) == 0 && p != nil {
		e.Msg = goString(p)
	}
	return e
}

// goString copies a NUL-terminated C string.
func goString(p *byte) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}

// Device attributes read by Open (values of CUdevice_attribute).
const (
	attrMultiprocessorCount  = 16
	attrL2CacheSize          = 38
	attrComputeCapMajor      = 75
	attrComputeCapMinor      = 76
	attrMaxSharedPerBlockOpt = 97
)
