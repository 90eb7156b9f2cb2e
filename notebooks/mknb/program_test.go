package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestSplitCell(t *testing.T) {
	for _, tc := range []struct {
		src, decls, body string
		hasBody          bool
	}{
		{"func a() {}", "func a() {}", "", false},
		{"import \"fmt\"\n%%\nfmt.Println(1)", "import \"fmt\"", "fmt.Println(1)", true},
		{"!*rm -f go.work && \\\n  go work init .\n%goworkfix", "", "", false},
		{"var x = 1\n%% --flag\nx++", "var x = 1", "x++", true},
	} {
		d, b, has := splitCell(tc.src)
		if strings.TrimSpace(d) != tc.decls || strings.TrimSpace(b) != tc.body || has != tc.hasBody {
			t.Errorf("splitCell(%q) = %q, %q, %v; want %q, %q, %v", tc.src, d, b, has, tc.decls, tc.body, tc.hasBody)
		}
	}
}

func TestProgramSource(t *testing.T) {
	p := &program{imports: map[string]string{}}
	cells := []string{
		"import (\n\t\"fmt\"\n\t\"os\"\n\t\"github.com/janpfeifer/gonb/gonbui\"\n)\n\n// f is first.\nfunc f() int { return 1 }",
		"// f is redefined, as GoNB allows.\nfunc f() int { return 2 }\n%%\nfmt.Println(f())\ngonbui.DisplayHTML(\"x\")",
	}
	for _, c := range cells {
		if err := p.add(c); err != nil {
			t.Fatal(err)
		}
	}
	src, err := p.source("test")
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	s := string(src)
	for _, want := range []string{`gonbui "` + shimPath + `"`, "return 2", "func cell01()", `"fmt"`} {
		if !strings.Contains(s, want) {
			t.Errorf("program lacks %q:\n%s", want, s)
		}
	}
	for _, bad := range []string{"return 1", `"os"`, gonbPath} {
		if strings.Contains(s, bad) {
			t.Errorf("program holds %q:\n%s", bad, s)
		}
	}
	if got := pkgName("math/rand/v2"); got != "rand" {
		t.Errorf("pkgName = %q", got)
	}
}

func TestInteractiveCellsLeftOut(t *testing.T) {
	nb, err := parse("//// code\nfunc a() {}\n//// code\n" + interactiveMark + "\nimport \"github.com/janpfeifer/gonb/gonbui/widgets\"\n%%\nwidgets.Slider(0, 1, 0)\n")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := writeProgram(dir, "nb", nb); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "nb", "cells.go"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "widgets") || !strings.Contains(string(b), "func a()") {
		t.Errorf("cells.go:\n%s", b)
	}
}

// TestNotebookProgramsBuild: every notebook, written as a Go program (the
// -go output, which scripts/notebooks-gpu.sh runs on a device), compiles
// against the module as it is now — so that a change of the library's API
// that a notebook uses fails here, in go test, and not only when the
// notebooks are executed.
func TestNotebookProgramsBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every notebook as a program: not with -short")
	}
	srcs, err := filepath.Glob(filepath.Join("..", "src", "*.txt"))
	if err != nil || len(srcs) == 0 {
		t.Fatalf("no notebook sources (%v)", err)
	}
	// Inside the module, so that the programs' imports resolve; the
	// leading underscore keeps ./... patterns away from it.
	dir, err := os.MkdirTemp("..", "_nbprog")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, src := range srcs {
		text, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		nb, err := parse(string(text))
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		name := strings.TrimSuffix(filepath.Base(src), ".txt")
		if err := writeProgram(dir, name, nb); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("go", "build", "-o", os.DevNull, "./"+filepath.Join(dir, name))
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("notebook %s does not build as a program: %v\n%s", name, err, out)
		}
	}
}

// TestCellsFlushBeforeExit: a cell's program that shows something through
// gonbui (Display*, UpdateHTML) calls gonbui.Sync after its last such call,
// as GoNB's documentation asks of a program that shows output as it ends:
// the interactive explorers' final figure, shown after their loop and
// without it, was lost once on a loaded machine (a fresh-clone run's
// browser test saw the cell end with no figure).
func TestCellsFlushBeforeExit(t *testing.T) {
	srcs, err := filepath.Glob(filepath.Join("..", "src", "*.txt"))
	if err != nil || len(srcs) == 0 {
		t.Fatalf("no notebook sources: %v", err)
	}
	show := regexp.MustCompile(`gonbui\.(Display[A-Za-z]*|UpdateHTML)\(`)
	for _, p := range srcs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		nb, err := parse(string(b))
		if err != nil {
			t.Fatal(err)
		}
		for i, src := range codeCells(nb) {
			_, body, has := splitCell(src)
			if !has {
				continue // declarations only: nothing runs
			}
			locs := show.FindAllStringIndex(body, -1)
			if len(locs) == 0 {
				continue
			}
			if !strings.Contains(body[locs[len(locs)-1][1]:], "gonbui.Sync()") {
				t.Errorf("%s, code cell %d: shows output through gonbui but does not call gonbui.Sync() after its last display", filepath.Base(p), i)
			}
		}
	}
}
