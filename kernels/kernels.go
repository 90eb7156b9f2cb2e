// Package kernels holds the CUDA C++ sources of gomatvis's GPU kernels,
// embedded in the binary and compiled at run time by NVRTC (package cuda).
// Every kernel exists in float and double: each is written once as a
// template and given two extern "C" entry points, NAME_f32 and NAME_f64.
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
