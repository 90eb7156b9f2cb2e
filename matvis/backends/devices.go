package backends

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/cblas"
	"github.com/gomatvis/gomatvis/matvis/cpu"
	"github.com/gomatvis/gomatvis/matvis/gpu"
	"github.com/gomatvis/gomatvis/matvis/multi"
)

// ParseDevices reads a device list: "all" (all is true, ids nil) or
// comma-separated distinct non-negative ordinals such as "0,1,3".
func ParseDevices(spec string) (ids []int, all bool, err error) {
	spec = strings.TrimSpace(spec)
	if spec == "all" {
		return nil, true, nil
	}
	seen := map[int]bool{}
	for _, f := range strings.Split(spec, ",") {
		d, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || d < 0 {
			return nil, false, fmt.Errorf("devices %q: %q is not a device ordinal; want all or e.g. 0,1", spec, f)
		}
		if seen[d] {
			return nil, false, fmt.Errorf("devices %q: device %d given twice", spec, d)
		}
		seen[d] = true
		ids = append(ids, d)
	}
	return ids, false, nil
}

// OpenDevices is OpenWith for several devices: devices is "" (OpenWith's
// one backend), "all" or a list of ordinals ("0,1"). For the GPU it opens
// one backend — its own CUDA context and streams, its own chunking and
// Gram strategy — per device and returns a multi.Backend that runs each
// simulation's (frequency, time) blocks over them from one queue. For the
// CPU (which has one device) a list of k entries splits the cores among k
// backends, which exercises the same path; "all" is one backend. "auto"
// without a GPU falls back to one CPU backend, with note saying why.
func OpenDevices(name, devices string, gpuOpts gpu.Options) (b matvis.Backend, note string, err error) {
	if devices == "" {
		return OpenWith(name, gpuOpts)
	}
	ids, all, err := ParseDevices(devices)
	if err != nil {
		return nil, "", err
	}
	switch name {
	case "cpu":
		return openCPUs(len(ids)), "", nil
	case "gpu", "", "auto":
		m, err := openGPUs(ids, all, gpuOpts)
		if err == nil {
			return m, "", nil
		}
		if name == "gpu" {
			return nil, "", fmt.Errorf("backend gpu: %w", err)
		}
		return cpu.New(), fmt.Sprintf("using the CPU backend (%v)", err), nil
	}
	return nil, "", fmt.Errorf("backend %q with --devices: want cpu, gpu or auto", name)
}

// openCPUs splits the cores among n CPU backends (n ≤ 1: one backend).
func openCPUs(n int) matvis.Backend {
	if n <= 1 {
		return cpu.New()
	}
	workers := max(1, runtime.GOMAXPROCS(0)/n)
	bs := make([]matvis.Backend, n)
	names := make([]string, n)
	for i := range bs {
		bs[i] = cpu.NewWith(cblas.Best(), workers)
		names[i] = fmt.Sprintf("cpu %d", i)
	}
	m, _ := multi.New(bs, names) // n ≥ 2 non-nil backends with n names
	return m
}

// openGPUs opens one GPU backend per device (all of them when all is set).
func openGPUs(ids []int, all bool, opts gpu.Options) (*multi.Backend, error) {
	if all {
		n, err := cuda.DeviceCount()
		if err != nil {
			return nil, err
		}
		for d := range n {
			ids = append(ids, d)
		}
	}
	if opts.Tables == nil {
		// One preparation of each channel's beams for all the devices.
		opts.Tables = gpu.NewTableCache()
	}
	var bs []matvis.Backend
	var names []string
	closeAll := func() {
		for _, b := range bs {
			b.(*gpu.Backend).Close()
		}
	}
	for _, d := range ids {
		o := opts
		o.Device = d
		g, err := gpu.Open(o)
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("device %d: %w", d, err)
		}
		bs = append(bs, g)
		names = append(names, fmt.Sprintf("gpu %d (%s)", d, g.Device().Name))
	}
	return multi.New(bs, names)
}
