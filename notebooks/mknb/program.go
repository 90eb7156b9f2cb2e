package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// gonbPath is GoNB's display package; programs use shimPath instead.
const (
	gonbPath = "github.com/janpfeifer/gonb/gonbui"
	shimPath = "github.com/gomatvis/gomatvis/notebooks/gonbshim"
)

// program is a notebook turned into one Go program: every cell's
// declarations (a later definition of a name replacing an earlier one, as
// in GoNB), and each cell's main part (after `%%`) as a function, called
// in order.
type program struct {
	imports map[string]string // path → name ("" for the default)
	decls   []decl
	cells   []string // bodies
}

type decl struct {
	key, text string
}

// interactiveMark, as a code cell's first line, leaves the cell out of
// the programs: it needs a browser (GoNB widgets).
const interactiveMark = "// mknb: interactive"

// interactive reports whether a code cell is marked interactive.
func interactive(src string) bool {
	return strings.HasPrefix(strings.TrimSpace(src), interactiveMark)
}

// codeCells returns the source of each code cell of a notebook.
func codeCells(nb *notebook) []string {
	var out []string
	for _, c := range nb.Cells {
		if c["cell_type"] != "code" {
			continue
		}
		out = append(out, strings.Join(c["source"].([]string), ""))
	}
	return out
}

// splitCell separates a cell's declarations from its main part and drops
// GoNB's shell (`!…`, with its continuation lines) and special (`%…`)
// commands.
func splitCell(src string) (decls, body string, hasBody bool) {
	var d, b []string
	inBody, cont := false, false
	for _, l := range strings.Split(src, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case cont:
			cont = strings.HasSuffix(t, `\`)
			continue
		case strings.HasPrefix(t, "%%") && !inBody:
			inBody = true
			continue
		case strings.HasPrefix(l, "!"):
			cont = strings.HasSuffix(t, `\`)
			continue
		case strings.HasPrefix(l, "%"):
			continue
		}
		if inBody {
			b = append(b, l)
		} else {
			d = append(d, l)
		}
	}
	return strings.Join(d, "\n"), strings.Join(b, "\n"), inBody
}

// add parses one cell into p.
func (p *program) add(src string) error {
	decls, body, hasBody := splitCell(src)
	fset := token.NewFileSet()
	text := "package main\n" + decls
	f, err := parser.ParseFile(fset, "cell.go", text, parser.ParseComments)
	if err != nil {
		return err
	}
	for _, imp := range f.Imports {
		pth, _ := strconv.Unquote(imp.Path.Value)
		name := ""
		if imp.Name != nil {
			name = imp.Name.Name
		}
		if pth == gonbPath {
			pth, name = shimPath, "gonbui"
		}
		p.imports[pth] = name
	}
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			continue
		}
		start := d.Pos()
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Doc != nil {
			start = fd.Doc.Pos()
		}
		if gd, ok := d.(*ast.GenDecl); ok && gd.Doc != nil {
			start = gd.Doc.Pos()
		}
		p.define(declKey(d), text[fset.Position(start).Offset:fset.Position(d.End()).Offset])
	}
	if hasBody {
		p.cells = append(p.cells, body)
	}
	return nil
}

// define adds a declaration, replacing an earlier one of the same key.
func (p *program) define(key, text string) {
	for i, d := range p.decls {
		if d.key == key {
			p.decls[i].text = text
			return
		}
	}
	p.decls = append(p.decls, decl{key, text})
}

// declKey names what a declaration defines: a function (with its
// receiver's type), or the names of a type, var or const declaration.
func declKey(d ast.Decl) string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv != nil && len(d.Recv.List) > 0 {
			var b bytes.Buffer
			_ = format.Node(&b, token.NewFileSet(), d.Recv.List[0].Type)
			return "method " + b.String() + "." + d.Name.Name
		}
		return "func " + d.Name.Name
	case *ast.GenDecl:
		var names []string
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				names = append(names, s.Name.Name)
			case *ast.ValueSpec:
				for _, n := range s.Names {
					names = append(names, n.Name)
				}
			}
		}
		return d.Tok.String() + " " + strings.Join(names, ",")
	}
	return fmt.Sprintf("%T", d)
}

var majorVersion = regexp.MustCompile(`^v[0-9]+$`)

// pkgName guesses an import's package name from its path: the last
// element, or the one before a major-version suffix (math/rand/v2).
func pkgName(p string) string {
	base := path.Base(p)
	if majorVersion.MatchString(base) {
		base = path.Base(path.Dir(p))
	}
	return strings.TrimSuffix(base, ".v3")
}

// source renders the program's cells.go: the imports its code uses, the
// declarations, and one function per main part.
func (p *program) source(name string) ([]byte, error) {
	var code strings.Builder
	for _, d := range p.decls {
		code.WriteString(d.text + "\n\n")
	}
	for i, body := range p.cells {
		fmt.Fprintf(&code, "// cell%02d is the main part of code cell %d with one.\nfunc cell%02d() {\n%s\n}\n\n", i+1, i+1, i+1, body)
	}
	used := usedNames(code.String())
	var b strings.Builder
	fmt.Fprintf(&b, "// Code generated by notebooks/mknb -go from notebooks/src/%s.txt; DO NOT EDIT.\n\npackage main\n\nimport (\n", name)
	for pth, n := range p.imports {
		id := n
		if id == "" {
			id = pkgName(pth)
		}
		if id != "_" && id != "." && !used[id] {
			continue
		}
		fmt.Fprintf(&b, "\t%s %q\n", n, pth)
	}
	b.WriteString(")\n\n" + code.String())
	out, err := format.Source([]byte(b.String()))
	if err != nil {
		return []byte(b.String()), fmt.Errorf("%s: generated code does not parse: %w", name, err)
	}
	return out, nil
}

// usedNames are the identifiers used as selector prefixes (pkg.Name) in
// code, a list of Go declarations.
func usedNames(code string) map[string]bool {
	used := map[string]bool{}
	f, err := parser.ParseFile(token.NewFileSet(), "", "package main\n"+code, 0)
	if err != nil {
		return used // format.Source reports it
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := s.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	return used
}

// mainSource is the program's main.go: run the cells in order.
func mainSource(n int) []byte {
	var b strings.Builder
	b.WriteString("// Code generated by notebooks/mknb -go; DO NOT EDIT.\n\npackage main\n\nimport \"fmt\"\n\nfunc main() {\n\tcells := []func(){")
	for i := range n {
		fmt.Fprintf(&b, "cell%02d, ", i+1)
	}
	b.WriteString("}\n\tfor i, c := range cells {\n\t\tfmt.Printf(\"=== cell %d of %d\\n\", i+1, len(cells))\n\t\tc()\n\t}\n}\n")
	out, err := format.Source([]byte(b.String()))
	if err != nil {
		panic(err) // a fixed template
	}
	return out
}

// writeProgram writes notebook name's program into dir/name.
func writeProgram(dir, name string, nb *notebook) error {
	p := &program{imports: map[string]string{}}
	for i, c := range codeCells(nb) {
		if interactive(c) {
			continue
		}
		if err := p.add(c); err != nil {
			return fmt.Errorf("%s: code cell %d: %w", name, i+1, err)
		}
	}
	src, err := p.source(name)
	if err != nil {
		return err
	}
	out := filepath.Join(dir, name)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "cells.go"), src, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "main.go"), mainSource(len(p.cells)), 0o644)
}
