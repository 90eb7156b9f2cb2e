// Package backends chooses a simulator backend by name: "cpu", "gpu", or
// "auto" (the GPU when a CUDA device and driver are found, else the CPU).
package backends

import (
	"errors"
	"fmt"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/cpu"
	"github.com/gomatvis/gomatvis/matvis/gpu"
)

// ErrNoGPU says no usable CUDA device/driver was found.
var ErrNoGPU = errors.New("no CUDA device/driver found")

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
		return cpu.New(), fmt.Sprintf("using the CPU: %v", err), nil
	}
	return nil, "", fmt.Errorf("backend %q: want cpu, gpu or auto", name)
}

// openGPU opens the CUDA backend (matvis/gpu) on device 0. Its
// no-device error (cuda.ErrNoDevice) is also reported as ErrNoGPU.
func openGPU() (matvis.Backend, error) {
	g, err := gpu.Open(gpu.Options{})
	if errors.Is(err, gpu.ErrNoDevice) {
		return nil, fmt.Errorf("%w: %w", ErrNoGPU, err)
	}
	if err != nil {
		return nil, err
	}
	return g, nil
}
