// Package kernels holds the CUDA C++ sources of gomatvis's GPU kernels,
// embedded in the binary and compiled at run time by NVRTC (package cuda).
//
// Four programs: gram.cu, the Gram product's own kernels (the split-FP16
// tensor-core product of gram_tc.cuh with its reduction and split, the
// herm_mirror_f32/_f64 entry points of one template, and the
// complex64→complex128 upcast); mmarate.cu, the tensor cores' FP16 and
// INT8 instruction rates (cuda/gram's benchmark); selftest.cu, a
// saxpy/daxpy pair the cuda package's tests launch; and
// vis.cu, the simulation's pipeline (coordinates and horizon compaction,
// the source ordering, beam_tau_z, the fused beam+τ+Z+Gram kernel,
// vis_out), split into headers by stage (vis_*.cuh). vis.cu is compiled
// once per run for its real type (-DR_T=float or double, with Z_T, ACC_T
// and OUT_T): its kernels have one entry point each, under their own
// names, and the constants it shares with the Go code come as -D macros
// (matvis/gpu's sharedDefines).
//
// nufft.cu holds the type-3 non-uniform FFT's device stages (spread,
// deconvolution, interpolation) of matvis/nufftgpu, compiled per transform
// shape (-DR_T, -DNU_DIM, -DNU_W, -DNU_NV).
package kernels

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

//go:embed *.cu *.cuh
var files embed.FS

// Program returns the main file of the named program (e.g. "gram.cu") and
// every header (*.cuh) by include name, ready for NVRTC.
func Program(name string) (code string, headers map[string]string, err error) {
	b, err := files.ReadFile(name)
	if err != nil {
		return "", nil, fmt.Errorf("kernel program %q: %w", name, err)
	}
	headers = map[string]string{}
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		return "", nil, fmt.Errorf("list embedded kernels: %w", err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".cuh") {
			h, err := files.ReadFile(e.Name())
			if err != nil {
				return "", nil, fmt.Errorf("kernel header %q: %w", e.Name(), err)
			}
			headers[path.Base(e.Name())] = string(h)
		}
	}
	return string(b), headers, nil
}

// Names lists the embedded programs (*.cu).
func Names() []string {
	entries, _ := fs.ReadDir(files, ".")
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".cu") {
			out = append(out, e.Name())
		}
	}
	return out
}
