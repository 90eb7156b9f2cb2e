package profile

import (
	"bufio"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/cblas"
)

// Machine describes where a profile ran.
type Machine struct {
	CPUModel   string `json:"cpu_model"`
	Cores      int    `json:"cores"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	GoVersion  string `json:"go_version"`
	// BLAS names the Gram-product library (e.g. the OpenBLAS file and its
	// build configuration).
	BLAS string `json:"blas"`
	// BLASKernel is the system CBLAS's kernel: OpenBLAS's corename (the
	// kernel set it runs, e.g. "Haswell" or the generic "Prescott"), its
	// build configuration and any OPENBLAS_CORETYPE override; nil when no
	// system CBLAS loads.
	BLASKernel *cblas.Kernel `json:"blas_kernel,omitempty"`
	// CPUFeatures are the CPU's vector extensions that decide which
	// OpenBLAS kernels suit it (from /proc/cpuinfo).
	CPUFeatures CPUFeatures `json:"cpu_features"`
	// Warnings are what the user should know about the CPU Gram product
	// (cblas.Choose): a generic kernel on an AVX2/AVX-512 CPU, or a system
	// library that disagrees with the pure-Go one.
	Warnings []string `json:"warnings,omitempty"`
	// GPU is the accelerator's name, empty without one.
	GPU string `json:"gpu,omitempty"`
	// Libraries maps Go modules (and OpenBLAS) to their versions.
	Libraries map[string]string `json:"libraries"`
}

// CPUFeatures are the CPU's vector extensions as summary.json names them.
type CPUFeatures struct {
	AVX2   bool `json:"avx2"`
	AVX512 bool `json:"avx512"`
}

// DeviceInfo is implemented by backends that run on an accelerator, so a
// profile can name it and read its memory (matvis.DeviceInfo).
type DeviceInfo = matvis.DeviceInfo

// deviceLibraries is implemented by backends that can name their device's
// software (driver and library versions, architecture).
type deviceLibraries interface {
	DeviceLibraries() map[string]string
}

// DescribeMachine gathers the machine's description; blas is the CPU
// Gram product's choice (cblas.Choose) and backend, when it is a
// DeviceInfo, names the GPU.
func DescribeMachine(blas cblas.Choice, backend any) Machine {
	cpu := cblas.HostCPU()
	m := Machine{
		CPUModel: cpuModel(), Cores: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		OS: runtime.GOOS, Arch: runtime.GOARCH, GoVersion: runtime.Version(),
		BLAS: blas.Herk.Name(), Libraries: map[string]string{},
		CPUFeatures: CPUFeatures{AVX2: cpu.AVX2, AVX512: cpu.AVX512},
		Warnings:    blas.Warnings,
	}
	if blas.Kernel.Library != "" {
		k := blas.Kernel
		m.BLASKernel = &k
	}
	if d, ok := backend.(DeviceInfo); ok {
		m.GPU = d.DeviceName()
	}
	if d, ok := backend.(deviceLibraries); ok {
		for k, v := range d.DeviceLibraries() {
			m.Libraries[k] = v
		}
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range bi.Deps {
			switch {
			case strings.HasPrefix(dep.Path, "gonum.org/"), strings.HasPrefix(dep.Path, "github.com/ebitengine/purego"):
				m.Libraries[dep.Path] = dep.Version
			}
		}
	}
	if v := blas.Kernel.Config; v != "" && strings.HasPrefix(v, "OpenBLAS") {
		m.Libraries["openblas"] = v
		m.BLAS += " (" + v + ")"
	}
	return m
}

// cpuModel reads the first "model name" of /proc/cpuinfo.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}
