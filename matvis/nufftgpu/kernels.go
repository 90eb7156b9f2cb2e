package nufftgpu

import (
	"embed"
	"fmt"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/kernels"
)

// kernelFiles is this package's CUDA program, nufft.cu, beside the Go
// that launches it; kernels.Program adds the shared headers.
//
//go:embed *.cu
var kernelFiles embed.FS

// threads is the block size of every stage: one thread per item, and the
// spread and interpolation kernels hold their weights in registers, so a
// mid-size block keeps occupancy up without limiting registers.
const threads = 256

// stageKernels are the kernels of one compiled nufft.cu. Each is launched
// through a method whose parameters are the kernel's, in its order, with
// the Go type of each C type (long long: int64, int: int32, double:
// float64, pointers: cuda.DevicePtr).
type stageKernels struct {
	mod                         *cuda.Module
	spread, deconv, intp, place cuda.Function
}

// compileStages compiles nufft.cu for one precision, dimension, kernel
// width and number of vectors (compile-time sizes of the weight and value
// arrays) and looks its kernels up.
// A module of the caller's compile (shared) stays loaded when a look-up
// fails.
func compileStages(compile Compiler, shared bool, prec Precision, dim, w, nv int) (*stageKernels, error) {
	code, headers, err := kernels.Program(kernelFiles, "nufft.cu")
	if err != nil {
		return nil, fmt.Errorf("nufftgpu: %w", err)
	}
	rt := "double"
	if prec == Single {
		rt = "float"
	}
	opts := []string{"-DR_T=" + rt, fmt.Sprintf("-DNU_DIM=%d", dim), fmt.Sprintf("-DNU_W=%d", w), fmt.Sprintf("-DNU_NV=%d", nv)}
	mod, err := compile(cuda.Source{Name: "nufft.cu", Code: code, Headers: headers}, opts...)
	if err != nil {
		return nil, fmt.Errorf("nufftgpu: %w", err)
	}
	k := &stageKernels{mod: mod}
	for _, f := range []struct {
		p    *cuda.Function
		name string
	}{{&k.spread, "nu_spread"}, {&k.deconv, "nu_deconv"}, {&k.intp, "nu_interp"}, {&k.place, "nu_place"}} {
		if *f.p, err = mod.Function(f.name); err != nil {
			if !shared {
				_ = mod.Unload()
			}
			return nil, fmt.Errorf("nufftgpu: %w", err)
		}
	}
	return k, nil
}

func block() cuda.Dim3 { return cuda.Dim3{X: threads, Y: 1, Z: 1} }

// spreadPoints queues nu_spread.
func (k *stageKernels) spreadPoints(s cuda.Stream, n int64, c, perm, pre, first, off cuda.DevicePtr, beta float64,
	grid cuda.DevicePtr, nf0, nf1, nf2 int32) error {
	return k.spread.Launch(cuda.Grid1(int(n), threads), block(), 0, s, n, c, perm, pre, first, off, beta, grid, nf0, nf1, nf2)
}

// deconvolve queues nu_deconv.
func (k *stageKernels) deconvolve(s cuda.Stream, nout int64, grid, d0, d1, d2, pad cuda.DevicePtr,
	nf0, nf1, nf2, n20, n21, n22 int32) error {
	return k.deconv.Launch(cuda.Grid1(int(nout), threads), block(), 0, s, nout, grid, d0, d1, d2, pad, nf0, nf1, nf2, n20, n21, n22)
}

// interpolate queues nu_interp.
func (k *stageKernels) interpolate(s cuda.Stream, m int64, pad, first, off, post, qorder cuda.DevicePtr, beta float64,
	n20, n21, n22 int32, vstride, tstride int64, f cuda.DevicePtr) error {
	return k.intp.Launch(cuda.Grid1(int(m), threads), block(), 0, s, m, pad, first, off, post, qorder, beta, n20, n21, n22, vstride, tstride, f)
}

// placePoints queues nu_place.
func (k *stageKernels) placePoints(s cuda.Stream, n int64, x0, x1, x2 cuda.DevicePtr, s0, s1, s2, h0, h1, h2,
	lo0, lo1, lo2, hi0, hi1, hi2 float64, first, off, order, pre cuda.DevicePtr) error {
	return k.place.Launch(cuda.Grid1(int(n), threads), block(), 0, s, n, x0, x1, x2, s0, s1, s2, h0, h1, h2,
		lo0, lo1, lo2, hi0, hi1, hi2, first, off, order, pre)
}
