package gpu

import (
	"regexp"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/kernels"
)

// TestSharedDefinesCoverKernels: every macro that vis.cu and its headers
// refuse to compile without (a #ifndef or !defined(...) guarding an
// #error) is given exactly once by the run's options (visDefines: the
// run's types, sharedDefines, a fused candidate's own) — so a constant
// added on one side only fails here, not on the device; and the shared
// constants are each given once.
func TestSharedDefinesCoverKernels(t *testing.T) {
	code, headers, err := kernels.Program(kernelFiles, "vis.cu")
	if err != nil {
		t.Fatal(err)
	}
	count := func(opts []string) map[string]int {
		given := map[string]int{}
		for _, d := range opts {
			name, _, _ := strings.Cut(strings.TrimPrefix(d, "-D"), "=")
			given[name]++
		}
		return given
	}
	for name, n := range count(sharedDefines()) {
		if n != 1 {
			t.Errorf("sharedDefines gives %s %d times", name, n)
		}
	}
	r := &run{runShape: runShape{p1: true}, tune: defaultTuning(), fusedState: fusedState{fusedCand: true, stacked: true, fgMT: 2, fgTS: 32, fgNBP: 4}}
	given := count(r.visDefines())
	guard := regexp.MustCompile(`(?m)^#(?:if|ifndef)\b(.*(?:\\\n.*)*)\n#error`)
	name := regexp.MustCompile(`!defined\((\w+)\)|^\s*(\w+)\s*$`)
	var required []string
	for _, src := range append([]string{code}, included(code, headers)...) {
		for _, g := range guard.FindAllStringSubmatch(src, -1) {
			for _, m := range name.FindAllStringSubmatch(strings.ReplaceAll(g[1], "\\\n", " "), -1) {
				required = append(required, m[1]+m[2])
			}
		}
	}
	if len(required) < 10 {
		t.Fatalf("found only %v guarded macros: the guard pattern no longer matches vis.cu", required)
	}
	for _, r := range required {
		if given[r] != 1 {
			t.Errorf("vis.cu requires %s; the run's options give it %d times", r, given[r])
		}
	}
	t.Logf("vis.cu requires %d macros: %v", len(required), required)
}

// included is the text of every header that code includes, directly or
// through other headers (each once): the program's headers, not every
// embedded one.
func included(code string, headers map[string]string) []string {
	inc := regexp.MustCompile(`(?m)^#include "([^"]+)"`)
	seen := map[string]bool{}
	var out []string
	var walk func(src string)
	walk = func(src string) {
		for _, m := range inc.FindAllStringSubmatch(src, -1) {
			h, ok := headers[m[1]]
			if !ok || seen[m[1]] {
				continue
			}
			seen[m[1]] = true
			out = append(out, h)
			walk(h)
		}
	}
	walk(code)
	return out
}
