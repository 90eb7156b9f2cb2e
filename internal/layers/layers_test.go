// Package layers holds the test of the module's import layering: every
// package has a layer, and no package imports one of a higher layer.
package layers

import (
	"os/exec"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/gomatvis/gomatvis/"

// layerOf names each package's layer, lowest first: 0 foundations (no
// physics), 1 astrometry, beams and the CUDA bindings, 2 the core
// (matvis: Config, Simulation, Result, the memory model), 3 backends,
// 4 formats and the glue that builds simulations from them, 5 the
// profiler, 6 programs, notebooks, docs and test tools. A package added
// to the module must be given a layer here.
var layerOf = map[string]int{
	"internal/atomicfile": 0, "internal/casatable": 0, "internal/blocks": 0, "internal/h5read": 0, "internal/h5write": 0, "internal/inputfile": 0,
	"internal/inputfile/inputtest": 0, "internal/interleave": 0, "internal/matrix3": 0, "internal/memwatch": 0,
	"internal/sharedtest": 0, "internal/cudaemu": 0, "internal/choicecache": 0, "internal/rowcover": 0, "matvis/nufft": 0, "matvis/nufft/nufftest": 0, "kernels": 0, "matvis/roof": 0, "matvis/cblas": 0, "matvis/skymodel/healpix": 0,
	"npy": 0, "plots": 0, "notebooks/gonbshim": 0, "matvis/astro/internal/gentables": 0, "internal/layers": 0,
	"internal/fastfloat": 0, "internal/fitsread": 0, "internal/runclock": 0,

	"cuda": 1, "matvis/astro": 1, "matvis/astro/iersdata": 1, "matvis/phase": 1, "matvis/beam": 1, "uvh5": 1,

	"matvis": 2, "cuda/gram": 2, "internal/gputest": 2,

	"matvis/cpu": 3, "matvis/gpu": 3, "matvis/nufftcpu": 3, "matvis/nufftgpu": 3, "matvis/multi": 3, "matvis/shard": 3,

	"matvis/input": 4, "matvis/beam/beamfits": 4, "matvis/simspec": 4, "matvis/obsparam": 4, "matvis/skymodel": 4, "uvfits": 4, "ms": 4, "matvis/imaging": 4, "matvis/uvdata": 4, "matvis/part": 4, "matvis/output": 4,
	"matvis/backends": 4, "matvis/backendtest": 4,

	"matvis/profile": 5,

	"cmd/gomatvis": 6, "notebooks/mknb": 6, "notebooks/browsertest": 6, "notebooks/skyview": 6, "docs": 6, "scripts/testsummary": 6, "internal/launchcheck": 6, "bench/e2e/gen": 6,
}

// knownUpward are the imports from a lower layer to a higher one that the
// code still has; the test fails when one is added, and when one of these
// goes (so that the list shrinks with the code). None is left since the
// format glue moved from the core to matvis/input.
var knownUpward = []string{}

// TestLayers: no package imports a package of a higher layer, but for
// knownUpward; every package of the module has a layer.
func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}|{{join .Imports \" \"}}", module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var upward []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imps, _ := strings.Cut(line, "|")
		pkg = strings.TrimPrefix(pkg, module)
		lp, ok := layerOf[pkg]
		if !ok {
			t.Errorf("package %s has no layer in layerOf", pkg)
			continue
		}
		for _, imp := range strings.Fields(imps) {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			imp = strings.TrimPrefix(imp, module)
			li, ok := layerOf[imp]
			if ok && li > lp {
				upward = append(upward, pkg+" -> "+imp)
			}
		}
	}
	sort.Strings(upward)
	known := map[string]bool{}
	for _, k := range knownUpward {
		known[k] = true
	}
	for _, u := range upward {
		if !known[u] {
			t.Errorf("%s imports a higher layer", u)
		}
		delete(known, u)
	}
	for k := range known {
		t.Errorf("%s is gone: remove it from knownUpward", k)
	}
}

// TestCoreDependencies: the core and the backends depend on no file
// format's library (YAML, FITS, HDF5): go list -deps of matvis,
// matvis/cpu and matvis/gpu names none.
func TestCoreDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", module+"matvis", module+"matvis/cpu", module+"matvis/gpu").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	// None: YAML and FITS are read by matvis/input's formats
	// (matvis/obsparam, matvis/simspec, matvis/beam/beamfits), HDF5 by the
	// module's own internal/h5read.
	var allowedNow []string
	for _, dep := range strings.Fields(string(out)) {
		if !(strings.Contains(dep, "yaml") || strings.Contains(dep, "fits") || strings.Contains(dep, "hdf5")) {
			continue
		}
		ok := false
		for _, a := range allowedNow {
			if dep == a || strings.HasPrefix(dep, a+"/") {
				ok = true
			}
		}
		if !ok {
			t.Errorf("the core or a backend depends on %s", dep)
		}
	}
}
