package gpu

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/kernels"
)

// cField is one field of a C struct laid out with natural alignment.
type cField struct {
	name       string
	off, bytes int
}

// cLayout lays out the struct name of src (fields of long long, int,
// double and float, as the kernels' descriptors use) with natural
// alignment, as NVRTC does on a 64-bit target, and returns its fields
// and size.
func cLayout(t *testing.T, src, name string) ([]cField, int) {
	t.Helper()
	m := regexp.MustCompile(`(?s)struct ` + name + ` \{(.*?)\};`).FindStringSubmatch(src)
	if m == nil {
		t.Fatalf("struct %s not found in vis_beam.cuh", name)
	}
	sizes := map[string]int{"long long": 8, "int": 4, "double": 8, "float": 4}
	var fields []cField
	off, align := 0, 1
	for _, decl := range strings.Split(m[1], ";") {
		decl = strings.TrimSpace(decl)
		if decl == "" {
			continue
		}
		typ := ""
		for ty := range sizes {
			if strings.HasPrefix(decl, ty+" ") && len(ty) > len(typ) {
				typ = ty
			}
		}
		if typ == "" {
			t.Fatalf("%s: field %q of a type the test does not know", name, decl)
		}
		n := sizes[typ]
		align = max(align, n)
		for _, f := range strings.Split(strings.TrimPrefix(decl, typ+" "), ",") {
			off = (off + n - 1) / n * n
			fields = append(fields, cField{strings.TrimSpace(f), off, n})
			off += n
		}
	}
	return fields, (off + align - 1) / align * align
}

// TestDescriptorLayout: the Go descriptors (descriptors.go) have the C
// structs' fields in order, each at the offset and of the size that
// natural alignment gives the header's declaration, and the same total
// size — the header's static_asserts check the same against
// descriptorDefines when NVRTC compiles it, so neither side can change
// alone.
func TestDescriptorLayout(t *testing.T) {
	_, headers, err := kernels.Program(kernelFiles, "vis.cu")
	if err != nil {
		t.Fatal(err)
	}
	src, ok := headers["vis_beam.cuh"]
	if !ok {
		t.Fatal("vis.cu's headers have no vis_beam.cuh")
	}
	for _, c := range []struct {
		name string
		typ  reflect.Type
	}{{"BeamDesc", reflect.TypeOf(beamDesc{})}, {"GeomDesc", reflect.TypeOf(geomDesc{})}} {
		fields, size := cLayout(t, src, c.name)
		if len(fields) != c.typ.NumField() {
			t.Fatalf("%s has %d fields, %v %d", c.name, len(fields), c.typ, c.typ.NumField())
		}
		if size != int(c.typ.Size()) {
			t.Errorf("%s is %d bytes, %v %d", c.name, size, c.typ, c.typ.Size())
		}
		for i, f := range fields {
			g := c.typ.Field(i)
			if g.Name != "_" && !strings.EqualFold(g.Name, f.name) {
				t.Errorf("%s field %d is %s, %v's %s", c.name, i, f.name, c.typ, g.Name)
			}
			if int(g.Offset) != f.off || int(g.Type.Size()) != f.bytes {
				t.Errorf("%s.%s at %d (%d bytes), %v.%s at %d (%d bytes)", c.name, f.name, f.off, f.bytes, c.typ, g.Name, g.Offset, g.Type.Size())
			}
		}
	}
	defs := map[string]int{}
	for _, d := range descriptorDefines() {
		defs[d.name] = d.v
	}
	if defs["BEAM_DESC_BYTES"] != 32 || defs["GEOM_DESC_BYTES"] != 48 {
		t.Errorf("descriptorDefines %v: want BeamDesc 32 bytes, GeomDesc 48 (whole 16-byte loads, as the kernels read them)", defs)
	}
}
