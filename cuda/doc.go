// Package cuda is a small binding, without cgo, to the slice of CUDA that
// gomatvis needs: the driver API (context, streams, events, device and pinned
// host memory, modules and launches), cuBLAS (Hermitian rank-k updates and
// complex GEMMs) and NVRTC (run-time compilation of the kernels in package
// kernels, with an on-disk cache).
//
// The libraries are loaded at run time with purego, so binaries built with
// CGO_ENABLED=0 run on machines with and without a GPU. When no driver or
// device is found, Open returns an error that matches ErrNoDevice with
// errors.Is, so callers can fall back to the CPU.
//
// There is no package-level mutable state: a Context holds the loaded
// libraries and the handles. A Context is safe for use by one goroutine at a
// time; every method makes the context current on the calling OS thread
// first, so goroutine migration between threads is harmless.
package cuda
