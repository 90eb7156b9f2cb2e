// Package backends chooses a simulator backend by name: "cpu", "nufftcpu"
// (the type-3 transform on the CPU where its chooser finds it faster,
// matvis/nufftcpu), "gpu", or "auto" (the GPU when a CUDA device and
// driver are found, else nufftcpu).
package backends

import (
	"fmt"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/cpu"
	"github.com/gomatvis/gomatvis/matvis/gpu"
	"github.com/gomatvis/gomatvis/matvis/nufftcpu"
)

// ErrNoGPU says no usable CUDA device/driver was found; it is the GPU
// backend's own sentinel, so errors.Is works on either name.
var ErrNoGPU = gpu.ErrNoDevice

// Open returns the named backend. For "auto", note explains the choice
// (e.g. why the GPU was not used).
func Open(name string) (b matvis.Backend, note string, err error) {
	return OpenWith(name, gpu.Options{})
}

// OpenWith is Open with the GPU backend's options (used when the GPU is).
func OpenWith(name string, gpuOpts gpu.Options) (b matvis.Backend, note string, err error) {
	switch name {
	case "cpu":
		return cpu.New(), "", nil
	case "nufftcpu":
		b, err := openNUFFTCPU()
		return b, "", err
	case "gpu":
		g, err := openGPU(gpuOpts)
		if err != nil {
			return nil, "", fmt.Errorf("backend gpu: %w", err)
		}
		return g, "", nil
	case "", "auto":
		g, err := openGPU(gpuOpts)
		if err == nil {
			return g, "", nil
		}
		b, nerr := openNUFFTCPU()
		if nerr != nil {
			return cpu.New(), fmt.Sprintf("using the CPU backend (%v)", err), nil
		}
		return b, fmt.Sprintf("using the CPU backend with the transform chooser, nufftcpu (%v)", err), nil
	}
	return nil, "", fmt.Errorf("backend %q: want cpu, nufftcpu, gpu or auto", name)
}

// openNUFFTCPU opens the CPU backend that runs eligible simulations as
// type-3 transforms where its chooser finds them faster and the others
// on the direct product (matvis/nufftcpu), at its default accuracy, its
// measurements kept on disk so that runs of one shape take one path.
func openNUFFTCPU() (matvis.Backend, error) {
	b, err := nufftcpu.New(0, 0)
	if err != nil {
		return nil, err
	}
	b.TrialCache = nufftcpu.DefaultTrialCache()
	return b, nil
}

// openGPU opens the CUDA backend (matvis/gpu) with opts.
func openGPU(opts gpu.Options) (matvis.Backend, error) {
	g, err := gpu.Open(opts)
	if err != nil {
		return nil, err
	}
	return g, nil
}
