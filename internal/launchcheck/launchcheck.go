// Package launchcheck checks, without a device, that every launch of a
// CUDA kernel in a Go package passes what the kernel's .cu declaration
// takes: as many arguments, each of the class and width of its parameter
// (a DevicePtr for a pointer, an int64 for a long long, a float32 for a
// float ...). cuda.Function.Launch checks the same at run time; this
// finds a wrong argument list in CI, on a machine with no GPU.
//
// It type-checks the package's Go files (go/types, with the export data
// `go list -export` builds), resolves which kernel each Launch receiver
// holds — through the package's lookup tables (composite literals that
// pair &field with a kernel name), `mod.Function("name")` assignments and
// assignments between Function variables — and compares the static type
// of every argument with the kernel's declared parameter
// (cuda.Signatures).
package launchcheck

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/kernels"
)

const (
	cudaPath     = "github.com/gomatvis/gomatvis/cuda"
	launchParams = 4 // grid, block, shared memory, stream
)

// ErrNoToolchain is returned by Check where no go command is on PATH (a
// test binary copied to a GPU machine): the check needs `go list -export`.
var ErrNoToolchain = errors.New("launchcheck: no go command on PATH to build export data")

// Launch is one checked launch site.
type Launch struct {
	Pos     string
	Kernels []string
	Args    int
}

// Check type-checks the package importPath in dir and checks its every
// Launch against the kernels of the embedded programs (e.g. "vis.cu"). It
// returns the launches it checked and an error listing every mismatch or
// launch whose kernel it could not resolve.
func Check(dir, importPath string, programs ...string) ([]Launch, error) {
	if _, err := exec.LookPath("go"); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoToolchain, err)
	}
	sigs, err := programSignatures(os.DirFS(dir), programs)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	files, err := parseDir(fset, dir)
	if err != nil {
		return nil, err
	}
	exports, err := exportData(importPath)
	if err != nil {
		return nil, err
	}
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("launchcheck: no export data for %s", path)
		}
		return os.Open(f)
	})
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
	if _, err := (&types.Config{Importer: imp}).Check(importPath, fset, files, info); err != nil {
		return nil, fmt.Errorf("launchcheck: type-check %s: %w", importPath, err)
	}
	names := kernelNames(files, info)
	var launches []Launch
	var problems []string
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || !isLaunch(call, info) {
				return true
			}
			l, errs := checkCall(fset, call, info, names, sigs)
			launches = append(launches, l)
			problems = append(problems, errs...)
			return true
		})
	}
	if len(problems) > 0 {
		return launches, fmt.Errorf("launchcheck: %s", strings.Join(problems, "\n"))
	}
	return launches, nil
}

// programSignatures are the kernels of the programs of fsys (the
// checked package's folder, where its .cu files are).
func programSignatures(fsys fs.FS, programs []string) (map[string][]cuda.KernelParam, error) {
	all := map[string][]cuda.KernelParam{}
	for _, p := range programs {
		code, headers, err := kernels.Program(fsys, p)
		if err != nil {
			return nil, err
		}
		sigs, err := cuda.Signatures(cuda.Source{Name: p, Code: code, Headers: headers}, "-DR_T=float")
		if err != nil {
			return nil, err
		}
		for name, s := range sigs {
			all[name] = s
		}
	}
	return all, nil
}

// parseDir parses the non-test Go files of dir.
func parseDir(fset *token.FileSet, dir string) ([]*ast.File, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return nil, fmt.Errorf("launchcheck: %w", err)
		}
		files = append(files, f)
	}
	return files, nil
}

// exportData maps every dependency of importPath to its export data file
// (built by the go command, as `go vet` does).
func exportData(importPath string) (map[string]string, error) {
	cmd := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}", importPath)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("launchcheck: go list -export %s: %w: %s", importPath, err, stderr.String())
	}
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path, file, ok := strings.Cut(line, "\t"); ok {
			m[path] = file
		}
	}
	return m, nil
}

// isLaunch reports whether call is a call of cuda.Function's Launch.
func isLaunch(call *ast.CallExpr, info *types.Info) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Launch" {
		return false
	}
	return isFunction(info.Types[sel.X].Type)
}

// isFunction reports whether t is cuda.Function.
func isFunction(t types.Type) bool {
	n, ok := t.(*types.Named)
	return ok && n.Obj().Name() == "Function" && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == cudaPath
}

// object is the variable or field an expression names (an identifier or
// the last part of a selector), nil for anything else.
func object(e ast.Expr, info *types.Info) types.Object {
	switch v := ast.Unparen(e).(type) {
	case *ast.Ident:
		if o := info.Uses[v]; o != nil {
			return o
		}
		return info.Defs[v]
	case *ast.SelectorExpr:
		return info.Uses[v.Sel]
	case *ast.StarExpr:
		return object(v.X, info)
	case *ast.UnaryExpr:
		if v.Op == token.AND {
			return object(v.X, info)
		}
	}
	return nil
}

// kernelNames resolves which kernels each Function variable or field may
// hold: table entries {&x, "name"}, x, err = mod.Function("name"), and
// x = y between Function values (to a fixed point).
func kernelNames(files []*ast.File, info *types.Info) map[types.Object]map[string]bool {
	names := map[types.Object]map[string]bool{}
	add := func(o types.Object, name string) bool {
		if o == nil {
			return false
		}
		if names[o] == nil {
			names[o] = map[string]bool{}
		}
		if names[o][name] {
			return false
		}
		names[o][name] = true
		return true
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch v := n.(type) {
			case *ast.CompositeLit:
				tableEntry(v, info, add)
			case *ast.AssignStmt:
				functionLookup(v, info, add)
			}
			return true
		})
	}
	// results[fn][i]: the kernels function fn's result i may be (a
	// function returning one of several Function values).
	results := map[types.Object]map[int]map[string]bool{}
	addResult := func(fn types.Object, i int, name string) bool {
		if results[fn] == nil {
			results[fn] = map[int]map[string]bool{}
		}
		if results[fn][i] == nil {
			results[fn][i] = map[string]bool{}
		}
		if results[fn][i][name] {
			return false
		}
		results[fn][i][name] = true
		return true
	}
	for changed := true; changed; {
		changed = false
		for _, f := range files {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				fn := info.Defs[fd.Name]
				ast.Inspect(fd.Body, func(n ast.Node) bool {
					switch v := n.(type) {
					case *ast.FuncLit:
						return false // its returns are its own
					case *ast.ReturnStmt:
						for i, r := range v.Results {
							for name := range names[object(r, info)] {
								changed = addResult(fn, i, name) || changed
							}
						}
					case *ast.AssignStmt:
						changed = propagate(v, info, names, results, add) || changed
					}
					return true
				})
			}
		}
	}
	return names
}

// propagate gives the Function variables assigned in as the kernels of
// what is assigned to them: another Function value, or a result of a
// function of the package.
func propagate(as *ast.AssignStmt, info *types.Info, names map[types.Object]map[string]bool,
	results map[types.Object]map[int]map[string]bool, add func(types.Object, string) bool) bool {
	changed := false
	if len(as.Rhs) == 1 && len(as.Lhs) > 1 {
		call, ok := as.Rhs[0].(*ast.CallExpr)
		if !ok {
			return false
		}
		for i, l := range as.Lhs {
			for name := range results[object(call.Fun, info)][i] {
				changed = add(object(l, info), name) || changed
			}
		}
		return changed
	}
	if len(as.Lhs) != len(as.Rhs) {
		return false
	}
	for i, r := range as.Rhs {
		if !isFunction(info.Types[r].Type) {
			continue
		}
		src := names[object(r, info)]
		if call, ok := ast.Unparen(r).(*ast.CallExpr); ok {
			src = results[object(call.Fun, info)][0]
		}
		for name := range src {
			changed = add(object(as.Lhs[i], info), name) || changed
		}
	}
	return changed
}

// tableEntry records an entry {&x, "name"} (positional or keyed) whose x
// is a Function.
func tableEntry(lit *ast.CompositeLit, info *types.Info, add func(types.Object, string) bool) {
	var target types.Object
	var name string
	for _, e := range lit.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			e = kv.Value
		}
		if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND && isFunction(info.Types[u.X].Type) {
			target = object(u.X, info)
		}
		if b, ok := e.(*ast.BasicLit); ok && b.Kind == token.STRING {
			name, _ = strconv.Unquote(b.Value)
		}
	}
	if target != nil && name != "" {
		add(target, name)
	}
}

// functionLookup records x, err = m.Function("name").
func functionLookup(as *ast.AssignStmt, info *types.Info, add func(types.Object, string) bool) {
	if len(as.Rhs) != 1 || len(as.Lhs) == 0 {
		return
	}
	call, ok := as.Rhs[0].(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Function" {
		return
	}
	if b, ok := call.Args[0].(*ast.BasicLit); ok && b.Kind == token.STRING {
		name, _ := strconv.Unquote(b.Value)
		add(object(as.Lhs[0], info), name)
	}
}

// checkCall checks one Launch call against every kernel its receiver may
// hold.
func checkCall(fset *token.FileSet, call *ast.CallExpr, info *types.Info, names map[types.Object]map[string]bool,
	sigs map[string][]cuda.KernelParam) (Launch, []string) {
	pos := fset.Position(call.Pos()).String()
	recv := call.Fun.(*ast.SelectorExpr).X
	var ks []string
	for k := range names[object(recv, info)] {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	l := Launch{Pos: pos, Kernels: ks, Args: len(call.Args) - launchParams}
	if len(ks) == 0 {
		return l, []string{fmt.Sprintf("%s: cannot tell which kernel %s holds", pos, types.ExprString(recv))}
	}
	if call.Ellipsis != token.NoPos {
		return l, []string{fmt.Sprintf("%s: arguments spread with ...: not checkable", pos)}
	}
	var errs []string
	for _, k := range ks {
		sig, ok := sigs[k]
		if !ok {
			errs = append(errs, fmt.Sprintf("%s: kernel %q is declared in none of the programs checked", pos, k))
			continue
		}
		args := call.Args[launchParams:]
		if len(args) != len(sig) {
			errs = append(errs, fmt.Sprintf("%s: %s: %d arguments, the kernel declares %d", pos, k, len(args), len(sig)))
			continue
		}
		for i, a := range args {
			if got := kindOf(info.Types[a].Type); got != sig[i].Kind {
				errs = append(errs, fmt.Sprintf("%s: %s argument %d (%s) is %s (%s), the kernel takes %s",
					pos, k, i, sig[i].Decl, types.ExprString(a), info.Types[a].Type, sig[i].Kind))
			}
		}
	}
	return l, errs
}

// kindOf is the kind Launch passes a Go value of type t as (0: none).
func kindOf(t types.Type) cuda.ParamKind {
	if t == nil {
		return 0
	}
	if n, ok := t.(*types.Named); ok && n.Obj().Name() == "DevicePtr" && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == cudaPath {
		return cuda.KindPtr
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		if _, named := t.(*types.Named); named {
			return 0 // Launch switches on the dynamic type: a named int32 is not an int32
		}
		switch u.Kind() {
		case types.Int32, types.Uint32:
			return cuda.KindInt32
		case types.Int64, types.Uint64:
			return cuda.KindInt64
		case types.Float32:
			return cuda.KindFloat32
		case types.Float64, types.UntypedFloat:
			return cuda.KindFloat64
		}
	case *types.Slice:
		if b, ok := u.Elem().(*types.Basic); ok && b.Kind() == types.Float64 {
			if _, named := t.(*types.Named); !named {
				return cuda.KindStruct
			}
		}
	}
	return 0
}
