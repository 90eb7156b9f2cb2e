// Package kernels is the shared include folder of gomatvis's CUDA
// programs and the one way they are put together for NVRTC (package
// cuda compiles them at run time).
//
// Each program lives beside the Go code that launches it, embedded there:
// matvis/gpu holds vis.cu (the simulation's pipeline, split into headers
// by stage, vis_*.cuh) and beamprep.cu (the channel preparation);
// cuda/gram holds gram.cu (the split-FP16 tensor-core Gram product,
// gram_tc.cuh and gram_wg.cuh, and the Hermitian mirror) and mmarate.cu
// (its instruction-rate benchmark); matvis/nufftgpu holds nufft.cu (the
// type-3 non-uniform FFT's spread, deconvolution and interpolation,
// compiled per transform shape). This package holds only the headers
// more than one of them includes: common.cuh (the real and complex types
// of a program compiled for R_T) and tc_f16.cuh (the FP16 split of
// complex values that both the Gram product and the fused kernel use).
// The constants a program shares with its Go code come as -D macros from
// that code (e.g. matvis/gpu's sharedDefines), never from defaults here.
package kernels

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

//go:embed *.cuh
var shared embed.FS

// Program returns the program name of fsys (a package's embedded .cu and
// .cuh files) and every header it may include by include name — fsys's
// own and the shared ones — ready for NVRTC. A header of fsys with the
// name of a shared one is an error: which one a program got would depend
// on the map.
func Program(fsys fs.FS, name string) (code string, headers map[string]string, err error) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return "", nil, fmt.Errorf("kernel program %q: %w", name, err)
	}
	headers = map[string]string{}
	if err := addHeaders(headers, shared, "shared"); err != nil {
		return "", nil, err
	}
	if err := addHeaders(headers, fsys, name+"'s folder"); err != nil {
		return "", nil, err
	}
	return string(b), headers, nil
}

// addHeaders adds every .cuh of fsys's root to headers, refusing a name
// already there.
func addHeaders(headers map[string]string, fsys fs.FS, where string) error {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return fmt.Errorf("list the kernel headers (%s): %w", where, err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".cuh") {
			continue
		}
		h, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return fmt.Errorf("kernel header %q (%s): %w", e.Name(), where, err)
		}
		name := path.Base(e.Name())
		if _, dup := headers[name]; dup {
			return fmt.Errorf("kernel header %q (%s) has the name of one already given (the shared headers are kernels/*.cuh)", name, where)
		}
		headers[name] = string(h)
	}
	return nil
}

// Names lists the programs (*.cu) of fsys, sorted.
func Names(fsys fs.FS) []string {
	entries, _ := fs.ReadDir(fsys, ".")
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".cu") {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// Shared lists the shared headers' names.
func Shared() []string {
	entries, _ := fs.ReadDir(shared, ".")
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}
