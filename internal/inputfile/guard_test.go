package inputfile

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// directOpenAllowed are the files that may open paths with os.Open,
// os.ReadFile or os.OpenFile themselves, and why: none reads a file a
// user names.
var directOpenAllowed = map[string]string{
	"internal/atomicfile/atomicfile.go":       "creates its own temporaries",
	"internal/atomicfile/lock_unix.go":        "opens an output directory to flock it",
	"internal/choicecache/lock.go":            "creates and flocks its own lock files, never reading them",
	"cuda/nvrtc.go":                           "its own compiled-kernel cache",
	"matvis/cblas/kernel.go":                  "/proc/cpuinfo",
	"matvis/profile/machine.go":               "/proc/cpuinfo",
	"matvis/availmem.go":                      "/proc/meminfo and the cgroup's memory files",
	"internal/runclock/runclock.go":           "/proc/self/stat, /proc/uptime and /proc/self/status (the process's start and peak RSS)",
	"matvis/astro/internal/gentables/main.go": "a code generator run by hand on the IERS sources",
	"notebooks/mknb/main.go":                  "a notebook builder run by hand on the repository's sources",
	"internal/launchcheck/launchcheck.go":     "the go command's export data, in a test of the module's launch sites",
	"notebooks/browsertest/main.go":           "copies the repository's notebooks for the test's Jupyter server",
}

// TestReadersOpenThroughInputfile checks that no package of the module
// opens a file for reading except through this package (or the files
// in directOpenAllowed): every reader of a user's file — catalogs,
// beams, layouts, configurations, part files, UVH5, npy, EOP tables —
// then refuses FIFOs, devices and directories the same way, without
// blocking. A reader that called os.Open itself used to hang on a FIFO.
func TestReadersOpenThroughInputfile(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	seen := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata" || rel == "internal/inputfile" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		seen++
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := sel.X.(*ast.Ident)
			if !ok || pkg.Name != "os" || (sel.Sel.Name != "Open" && sel.Sel.Name != "ReadFile" && sel.Sel.Name != "OpenFile") {
				return true
			}
			if _, ok := directOpenAllowed[rel]; !ok {
				t.Errorf("%s: os.%s: open input files with inputfile.Open or inputfile.ReadAll (or add the file to directOpenAllowed, saying why)", fset.Position(call.Pos()), sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 100 {
		t.Fatalf("walked %d Go files from %s: not the module's root?", seen, root)
	}
}
