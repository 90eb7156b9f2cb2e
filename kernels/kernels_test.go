package kernels

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// TestProgramsOfTheRepository: every .cu program of the repository's
// kernel folders (beside their launchers) is put together with the shared
// headers, has extern "C" kernels (in it or its headers) and includes
// only headers that exist.
func TestProgramsOfTheRepository(t *testing.T) {
	seen := 0
	for _, dir := range []string{"../matvis/gpu", "../cuda/gram", "../cuda/testdata", "../matvis/nufftgpu"} {
		fsys := os.DirFS(dir)
		for _, n := range Names(fsys) {
			seen++
			code, headers, err := Program(fsys, n)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(withIncludes(code, headers), "extern \"C\" __global__") {
				t.Errorf("%s has no extern \"C\" kernels", filepath.Join(dir, n))
			}
			if _, ok := headers["common.cuh"]; !ok {
				t.Errorf("%s: common.cuh missing from headers", n)
			}
			for _, inc := range includes(code, headers) {
				if _, ok := headers[inc]; !ok {
					t.Errorf("%s includes %q, which is neither beside it nor shared", filepath.Join(dir, n), inc)
				}
			}
		}
	}
	if seen < 5 {
		t.Errorf("found %d programs; want vis.cu, beamprep.cu, gram.cu, mmarate.cu and selftest.cu", seen)
	}
}

// TestProgramRefuses: a missing program and a header that shadows a
// shared one are errors.
func TestProgramRefuses(t *testing.T) {
	fsys := fstest.MapFS{"p.cu": {Data: []byte("x")}, "common.cuh": {Data: []byte("y")}}
	if _, _, err := Program(fsys, "nope.cu"); err == nil {
		t.Error("Program of a missing file succeeded")
	}
	if _, _, err := Program(fsys, "p.cu"); err == nil || !strings.Contains(err.Error(), "common.cuh") {
		t.Errorf("a header shadowing the shared common.cuh: error %v, want one naming it", err)
	}
	if len(Shared()) < 2 {
		t.Errorf("shared headers %v: want common.cuh and tc_f16.cuh", Shared())
	}
}

// withIncludes is code with each #include "NAME" of a header in headers
// replaced by that header's text, once: a program split into per-stage
// headers (vis.cu) has its kernels there.
func withIncludes(code string, headers map[string]string) string {
	for name, h := range headers {
		code = strings.Replace(code, "#include \""+name+"\"", h, 1)
	}
	return code
}

// includes is every quoted include name of code and of the headers it
// names.
func includes(code string, headers map[string]string) []string {
	var out []string
	text := code
	for _, h := range headers {
		text += "\n" + h
	}
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "#include \""); ok {
			out = append(out, strings.TrimSuffix(rest, "\""))
		}
	}
	return out
}
