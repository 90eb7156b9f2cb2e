// Package backends chooses a simulator backend by name: "cpu", "gpu", or
// "auto" (the GPU when a CUDA device and driver are found, else the CPU).
package backends

import (
	"fmt"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/cpu"
	"github.com/gomatvis/gomatvis/matvis/gpu"
)

// ErrNoGPU says no usable CUDA device/driver was found; it is the GPU
// backend's own sentinel, so errors.Is works on either name.
var ErrNoGPU = gpu.ErrNoDevice

// Open returns the named backend. For "auto", note explains the choice
// (e.g. why the GPU was not used).
func Open(name string) (b matvis.Backend, note string, err error) {
	switch name {
	case "cpu":
		return cpu.New(), "", nil
	case "gpu":
		g, err := openGPU()
		if err != nil {
			return nil, "", fmt.Errorf("backend gpu: %w", err)
		}
		return g, "", nil
	case "", "auto":
		g, err := openGPU()
		if err == nil {
			return g, "", nil
		}
		return cpu.New(), fmt.Sprintf("using the CPU backend (%v)", err), nil
	}
	return nil, "", fmt.Errorf("backend %q: want cpu, gpu or auto", name)
}

// openGPU opens the CUDA backend (matvis/gpu) on device 0.
func openGPU() (matvis.Backend, error) {
	g, err := gpu.Open(gpu.Options{})
	if err != nil {
		return nil, err
	}
	return g, nil
}
