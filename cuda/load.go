package cuda

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ebitengine/purego"
)

// libSpec names a shared library by its unversioned stem and the sonames to
// try, newest first; wheelDirs are the subdirectories of a pip-installed
// "nvidia" package directory that hold it.
type libSpec struct {
	stem      string   // e.g. "libcublas"
	versions  []string // e.g. ".so.13", ".so.12", ".so"
	wheelDirs []string // e.g. "cu13/lib", "cublas/lib"
	deps      []string // stems loaded first from the same directory (RTLD_GLOBAL)
}

var (
	specCUDA = libSpec{stem: "libcuda", versions: []string{".so.1", ".so"}}
	specBLAS = libSpec{
		stem:      "libcublas",
		versions:  []string{".so.13", ".so.12", ".so.11", ".so"},
		wheelDirs: []string{"cu13/lib", "cu12/lib", "cublas/lib"},
		deps:      []string{"libcublasLt"},
	}
	specNVRTC = libSpec{
		stem:      "libnvrtc",
		versions:  []string{".so.13", ".so.12", ".so.11.2", ".so"},
		wheelDirs: []string{"cu13/lib", "cu12/lib", "cuda_nvrtc/lib"},
	}
)

// searchDirs lists the directories where CUDA libraries are usually found,
// in the order they are tried: the user's LD_LIBRARY_PATH and
// GOMATVIS_CUDA_LIB_PATH first, then toolkit, driver and distribution
// directories, then pip-installed nvidia-* wheels in the usual Python
// environments.
func searchDirs(spec libSpec) []string {
	var dirs []string
	add := func(ds ...string) {
		for _, d := range ds {
			if d != "" {
				dirs = append(dirs, d)
			}
		}
	}
	add(filepath.SplitList(os.Getenv("GOMATVIS_CUDA_LIB_PATH"))...)
	add(filepath.SplitList(os.Getenv("LD_LIBRARY_PATH"))...)
	for _, root := range []string{os.Getenv("CUDA_HOME"), os.Getenv("CUDA_PATH"), "/usr/local/cuda"} {
		if root != "" {
			add(filepath.Join(root, "lib64"), filepath.Join(root, "targets/x86_64-linux/lib"), filepath.Join(root, "lib"))
		}
	}
	// Versioned toolkits, newest first by name (cuda-13.0 before cuda-12.8).
	versioned, _ := filepath.Glob("/usr/local/cuda-*")
	sort.Sort(sort.Reverse(sort.StringSlice(versioned)))
	for _, v := range versioned {
		add(filepath.Join(v, "lib64"), filepath.Join(v, "targets/x86_64-linux/lib"))
	}
	add("/usr/local/nvidia/lib64", "/usr/local/nvidia/lib", "/usr/lib/x86_64-linux-gnu",
		"/usr/lib64", "/usr/lib", "/usr/lib/wsl/lib")
	for _, sp := range sitePackages() {
		for _, w := range spec.wheelDirs {
			add(filepath.Join(sp, "nvidia", w))
		}
	}
	return dedup(dirs)
}

// sitePackages lists Python package directories where nvidia-* wheels may
// be installed.
func sitePackages() []string {
	var pats []string
	for _, env := range []string{"VIRTUAL_ENV", "CONDA_PREFIX"} {
		if v := os.Getenv(env); v != "" {
			pats = append(pats, filepath.Join(v, "lib/python3*/site-packages"))
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		pats = append(pats, filepath.Join(home, ".local/lib/python3*/site-packages"))
	}
	pats = append(pats,
		"/usr/local/lib/python3*/dist-packages", "/usr/local/lib/python3*/site-packages",
		"/usr/lib/python3*/dist-packages", "/usr/lib/python3*/site-packages",
		"/opt/*/lib/python3*/site-packages", "/opt/*/.venv/lib/python3*/site-packages",
		"/opt/conda/lib/python3*/site-packages")
	var out []string
	for _, p := range pats {
		m, _ := filepath.Glob(p)
		sort.Sort(sort.Reverse(sort.StringSlice(m)))
		out = append(out, m...)
	}
	return out
}

func dedup(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		c := filepath.Clean(s)
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// loadedLib is an open shared library.
type loadedLib struct {
	handle uintptr
	path   string
}

// openLib finds and opens a library: first as a bare soname (the dynamic
// linker's own cache and RUNPATH rules), then in each search directory with
// each versioned soname. It returns every failure when nothing opens, so the
// user can see where it looked.
func openLib(spec libSpec) (loadedLib, error) {
	var tried []string
	// The driver must be the system's: prefer the linker's choice.
	if spec.stem == "libcuda" {
		for _, v := range spec.versions {
			if h, err := purego.Dlopen(spec.stem+v, purego.RTLD_NOW|purego.RTLD_GLOBAL); err == nil {
				return loadedLib{h, spec.stem + v}, nil
			}
		}
	}
	for _, dir := range searchDirs(spec) {
		for _, v := range spec.versions {
			p := filepath.Join(dir, spec.stem+v)
			if !fileExists(p) {
				continue
			}
			// Load dependencies from the same directory first so that a
			// library without RUNPATH still finds its sibling (libcublasLt).
			for _, dep := range spec.deps {
				if dp := filepath.Join(dir, dep+v); fileExists(dp) {
					_, _ = purego.Dlopen(dp, purego.RTLD_NOW|purego.RTLD_GLOBAL)
				}
			}
			h, err := purego.Dlopen(p, purego.RTLD_NOW|purego.RTLD_GLOBAL)
			if err == nil {
				return loadedLib{h, p}, nil
			}
			tried = append(tried, fmt.Sprintf("%s: %v", p, err))
		}
	}
	for _, v := range spec.versions {
		if h, err := purego.Dlopen(spec.stem+v, purego.RTLD_NOW|purego.RTLD_GLOBAL); err == nil {
			return loadedLib{h, spec.stem + v}, nil
		}
	}
	msg := spec.stem + " not found"
	if len(tried) > 0 {
		msg += " (" + strings.Join(tried, "; ") + ")"
	}
	return loadedLib{}, fmt.Errorf("%w: %s", ErrNoDevice, msg)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// binder resolves symbols of lib into function pointers, trying each
// symbol's names in order (e.g. a _v2 name before the plain one), and
// collects the required ones that are missing.
type binder struct {
	lib  loadedLib
	errs []string
}

func (b *binder) fn(fptr any, names ...string) {
	if !b.optFn(fptr, names...) {
		b.errs = append(b.errs, names[0])
	}
}

// optFn is fn for a symbol the library may lack (older versions): it
// leaves fptr nil and reports false when none of the names is found.
func (b *binder) optFn(fptr any, names ...string) bool {
	for _, n := range names {
		sym, err := purego.Dlsym(b.lib.handle, n)
		if err == nil && sym != 0 {
			purego.RegisterFunc(fptr, sym)
			return true
		}
	}
	return false
}

func (b *binder) err() error {
	if len(b.errs) == 0 {
		return nil
	}
	return fmt.Errorf("%s lacks symbols %s", b.lib.path, strings.Join(b.errs, ", "))
}
