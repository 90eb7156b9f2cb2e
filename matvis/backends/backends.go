// Package backends chooses a simulator backend by name: "cpu", "nufftcpu"
// (the type-3 transform on the CPU, matvis/nufftcpu), "gpu", or
// "auto" (the GPU when a CUDA device and driver are found, else the CPU).
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
		// The transform backend at its default accuracy, its chooser on.
		b, err := nufftcpu.New(0, 0)
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
		return cpu.New(), fmt.Sprintf("using the CPU backend (%v)", err), nil
	}
	return nil, "", fmt.Errorf("backend %q: want cpu, nufftcpu, gpu or auto", name)
}

// openGPU opens the CUDA backend (matvis/gpu) with opts.
func openGPU(opts gpu.Options) (matvis.Backend, error) {
	g, err := gpu.Open(opts)
	if err != nil {
		return nil, err
	}
	return g, nil
}
