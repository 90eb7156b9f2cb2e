package layers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxFields is the most fields a struct of the module may have: a larger
// one mixes several things, which nested (embedded) structs should name.
const maxFields = 25

// knownLarge are the structs over maxFields the code still has, named
// "path: type" (no line, so that edits above them do not matter), with why. The test fails
// when one is added and when one of these is gone or shrinks to the limit.
var knownLarge = map[string]string{}

// TestStructFields: no struct type of the module, named or anonymous, in
// code or tests, has more than maxFields fields (an embedded struct counts
// as one), but for knownLarge.
func TestStructFields(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	found := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		ast.Inspect(f, func(n ast.Node) bool {
			name := "anonymous struct"
			var st *ast.StructType
			switch n := n.(type) {
			case *ast.TypeSpec:
				s, ok := n.Type.(*ast.StructType)
				if !ok {
					return true
				}
				name, st = n.Name.Name, s
			case *ast.StructType:
				st = n
			default:
				return true
			}
			if st.Fields.NumFields() <= maxFields {
				return true
			}
			key := rel + ": " + name
			found[key] = true
			if _, ok := knownLarge[key]; !ok {
				t.Errorf("%s (%s) has %d fields, more than %d: group them into nested structs",
					key, fset.Position(st.Pos()), st.Fields.NumFields(), maxFields)
			}
			return false
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for k := range knownLarge {
		if !found[k] {
			t.Errorf("%s has at most %d fields now: remove it from knownLarge", k, maxFields)
		}
	}
}
