package kernels

import (
	"strings"
	"testing"
)

func TestProgramsEmbedded(t *testing.T) {
	names := Names()
	if len(names) == 0 {
		t.Fatal("no embedded .cu programs")
	}
	for _, n := range names {
		code, headers, err := Program(n)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(withIncludes(code, headers), "extern \"C\" __global__") {
			t.Errorf("%s has no extern \"C\" kernels", n)
		}
		if _, ok := headers["common.cuh"]; !ok {
			t.Errorf("%s: common.cuh missing from headers", n)
		}
	}
	if _, _, err := Program("nope.cu"); err == nil {
		t.Error("Program of a missing file succeeded")
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
