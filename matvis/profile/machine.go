package profile

import (
	"bufio"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/ebitengine/purego"
	"github.com/gomatvis/gomatvis/matvis"
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
	// GPU is the accelerator's name, empty without one.
	GPU string `json:"gpu,omitempty"`
	// Libraries maps Go modules (and OpenBLAS) to their versions.
	Libraries map[string]string `json:"libraries"`
}

// DeviceInfo is implemented by backends that run on an accelerator, so a
// profile can name it and read its memory (matvis.DeviceInfo).
type DeviceInfo = matvis.DeviceInfo

// deviceLibraries is implemented by backends that can name their device's
// software (driver and library versions, architecture).
type deviceLibraries interface {
	DeviceLibraries() map[string]string
}

// DescribeMachine gathers the machine's description; blas names the herk
// implementation in use and backend, when it is a DeviceInfo, the GPU.
func DescribeMachine(blas string, backend any) Machine {
	m := Machine{
		CPUModel: cpuModel(), Cores: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		OS: runtime.GOOS, Arch: runtime.GOARCH, GoVersion: runtime.Version(),
		BLAS: blas, Libraries: map[string]string{},
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
	if v := openBLASConfig(blas); v != "" {
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

// openBLASConfig asks the loaded OpenBLAS for its build string (version,
// kernel, threads) when the herk in use is OpenBLAS; "" otherwise.
func openBLASConfig(blas string) string {
	i := strings.Index(blas, "libopenblas")
	if i < 0 {
		return ""
	}
	name := strings.Fields(blas[i:])[0]
	h, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return ""
	}
	if _, err := purego.Dlsym(h, "openblas_get_config"); err != nil {
		return ""
	}
	var cfg func() string
	purego.RegisterLibFunc(&cfg, h, "openblas_get_config")
	return strings.TrimSpace(cfg())
}
