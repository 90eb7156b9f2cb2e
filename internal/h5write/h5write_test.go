package h5write

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// writeSample writes a file using every datatype and dataspace, the big
// dataset in out-of-order pieces.
func writeSample(t *testing.T, path string) {
	t.Helper()
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	f, err := Create(fh)
	if err != nil {
		t.Fatal(err)
	}
	hdr, err := f.Root().Group("Header")
	must(t, err)
	must(t, hdr.Scalar("i64", int64(-7)))
	must(t, hdr.Scalar("i32", int32(-3)))
	must(t, hdr.Scalar("u64", uint64(1<<63+5)))
	must(t, hdr.Scalar("f64", 1051.69))
	must(t, hdr.Scalar("f32", float32(0.25)))
	must(t, hdr.Scalar("yes", true))
	must(t, hdr.Scalar("c128", complex(1.5, -2.5)))
	must(t, hdr.String("name", "HERA"))
	must(t, hdr.Strings("names", []string{"HH0", "HH10", ""}))
	must(t, hdr.Array("pos", []float64{1, 2, 3, 4, 5, 6}, 2, 3))
	must(t, hdr.Array("ints", []int32{0, 1, 2, 3, 10}))
	must(t, hdr.Empty("none", Float32))
	must(t, hdr.Array("zero", []int64{}, 0, 3))
	sub, err := hdr.Group("cat")
	must(t, err)
	sub2, err := sub.Group("0")
	must(t, err)
	must(t, sub2.String("cat_type", "unprojected"))
	data, err := f.Root().Group("Data")
	must(t, err)
	vis, err := data.Dataset("visdata", Complex128Compound, 4, 3, 2)
	must(t, err)
	// Pieces of 6 elements (one row each) written out of order.
	for _, row := range []int{2, 0, 3, 1} {
		v := make([]complex128, 6)
		for k := range v {
			v[k] = complex(float64(row*6+k), -float64(row*6+k))
		}
		must(t, vis.WriteAt(int64(row*6), v))
	}
	flags, err := data.Dataset("flags", Bool, 4, 3, 2)
	must(t, err)
	fl := make([]bool, 24)
	for k := range fl {
		fl[k] = k%3 == 0
	}
	must(t, flags.WriteAt(12, fl[12:]))
	must(t, flags.WriteAt(0, fl[:12]))
	c64, err := data.Dataset("c64", Complex64Compound, 3)
	must(t, err)
	must(t, c64.WriteAt(0, []complex64{1i, 2, 3 + 3i}))
	ns, err := data.Dataset("nsamples", Float32, 4, 3, 2)
	must(t, err)
	nsv := make([]float32, 24)
	for k := range nsv {
		nsv[k] = float32(k) / 2
	}
	must(t, ns.WriteAt(0, nsv))
	must(t, ns.StringAttr("unit", "Jy"))
	must(t, f.Close())
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestSuperblockBytes(t *testing.T) {
	sb := superblock(4096, 48)
	if len(sb) != superblockSize {
		t.Fatalf("superblock is %d bytes", len(sb))
	}
	if !bytes.Equal(sb[:8], []byte("\x89HDF\r\n\x1a\n")) {
		t.Fatalf("signature % x", sb[:8])
	}
	if sb[8] != 2 || sb[9] != 8 || sb[10] != 8 || sb[11] != 0 {
		t.Fatalf("version/sizes/flags % x", sb[8:12])
	}
	le := binary.LittleEndian
	if le.Uint64(sb[20:]) != undef || le.Uint64(sb[28:]) != 4096 || le.Uint64(sb[36:]) != 48 {
		t.Fatalf("addresses % x", sb[12:44])
	}
	if got := le.Uint32(sb[44:]); got != Checksum(sb[:44]) {
		t.Fatalf("checksum %#x", got)
	}
}

func TestObjectHeaderBytes(t *testing.T) {
	h := objectHeader([]message{groupInfoMsg()})
	want := []byte("OHDR\x02\x02\x06\x00\x00\x00\x0a\x02\x00\x00\x00\x00")
	if !bytes.Equal(h[:len(want)], want) {
		t.Fatalf("header % x, want % x", h[:len(want)], want)
	}
	if got := binary.LittleEndian.Uint32(h[len(want):]); got != Checksum(want) || len(h) != len(want)+4 {
		t.Fatalf("checksum %#x len %d", got, len(h))
	}
}

func TestDatatypeBytes(t *testing.T) {
	cases := []struct {
		name string
		t    Datatype
		want string
	}{
		{"int32", Int32, "10 08 00 00 04 00 00 00 00 00 20 00"},
		{"uint64", Uint64, "10 00 00 00 08 00 00 00 00 00 40 00"},
		{"float64", Float64, "11 20 3f 00 08 00 00 00 00 00 40 00 34 0b 00 34 ff 03 00 00"},
		{"float32", Float32, "11 20 1f 00 04 00 00 00 00 00 20 00 17 08 00 17 7f 00 00 00"},
		{"string5", mustString(t, 5), "13 01 00 00 05 00 00 00"},
		{"bool", Bool, "18 02 00 00 01 00 00 00 10 08 00 00 01 00 00 00 00 00 08 00 " +
			"46 41 4c 53 45 00 00 00 54 52 55 45 00 00 00 00 00 01"},
	}
	for _, c := range cases {
		got := strings.TrimSpace(spaced(c.t.encode()))
		if got != c.want {
			t.Errorf("%s: got %s\nwant %s", c.name, got, c.want)
		}
	}
	if n := len(Complex128Compound.encode()); n != 8+2*(8+4+28+20) {
		t.Errorf("complex128 compound message is %d bytes", n)
	}
}

func mustString(t *testing.T, n int) Datatype {
	d, err := FixedString(n)
	must(t, err)
	return d
}

func spaced(b []byte) string {
	var s strings.Builder
	for _, c := range b {
		s.WriteString(" ")
		s.WriteString(hex2(c))
	}
	return s.String()
}

func hex2(c byte) string {
	const h = "0123456789abcdef"
	return string([]byte{h[c>>4], h[c&15]})
}

func TestErrors(t *testing.T) {
	f, err := Create(&memFile{})
	must(t, err)
	r := f.Root()
	cases := []struct {
		name string
		err  error
	}{
		{"dup", func() error { r.Scalar("a", int64(1)); return r.Scalar("a", int64(2)) }()},
		{"slash", r.Scalar("a/b", int64(1))},
		{"type", r.Scalar("x", "s")},
		{"shape", r.Array("y", []float64{1, 2, 3}, 2, 2)},
		{"neg", func() error { _, err := r.Dataset("z", Float64, -1); return err }()},
		{"outside", func() error {
			d, err := r.Dataset("w", Float64, 2)
			must(t, err)
			return d.WriteAt(1, []float64{1, 2})
		}()},
		{"kind", func() error {
			d, err := r.Dataset("v", Float64, 2)
			must(t, err)
			return d.WriteAt(0, []float32{1, 2})
		}()},
		{"long string", func() error {
			d, err := r.Dataset("s", mustString(t, 2), 1)
			must(t, err)
			return d.WriteAt(0, []string{"abc"})
		}()},
	}
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	must(t, f.Close())
	if err := f.Close(); err != ErrClosed {
		t.Errorf("second Close: %v", err)
	}
	if err := r.Scalar("late", int64(1)); err == nil {
		t.Error("write after Close accepted")
	}
}

// memFile is an in-memory io.WriterAt.
type memFile struct{ b []byte }

func (m *memFile) WriteAt(p []byte, off int64) (int, error) {
	if end := int(off) + len(p); end > len(m.b) {
		m.b = append(m.b, make([]byte, end-len(m.b))...)
	}
	return copy(m.b[off:], p), nil
}

const pyDump = `
import h5py, json, sys, numpy as np
out = {}
def visit(name, o):
    if isinstance(o, h5py.Dataset):
        v = o[()]
        if isinstance(v, h5py.Empty):
            val = None
        else:
            a = np.asarray(v)
            if a.dtype.kind == 'c':
                val = [[float(x.real), float(x.imag)] for x in a.ravel()]
            elif a.dtype.kind == 'S':
                val = [x.decode() for x in a.ravel()]
            else:
                val = [x.item() for x in a.ravel()]
        out[name] = {"dtype": o.dtype.str, "shape": list(o.shape) if o.shape is not None else None, "value": val}
with h5py.File(sys.argv[1], "r") as f:
    f.visititems(visit)
json.dump(out, sys.stdout)
`

type pyEntry struct {
	Dtype string          `json:"dtype"`
	Shape []int           `json:"shape"`
	Value json.RawMessage `json:"value"`
}

func TestH5pyReadsEverything(t *testing.T) {
	py := sharedtest.Python(t, "h5py", "python3-h5py")
	path := filepath.Join(t.TempDir(), "sample.h5")
	writeSample(t, path)
	out, err := exec.Command(py, "-c", pyDump, path).Output()
	if err != nil {
		t.Fatalf("h5py failed: %v %s", err, exitStderr(err))
	}
	var got map[string]pyEntry
	must(t, json.Unmarshal(out, &got))
	vis := make([][2]float64, 24)
	for k := range vis {
		vis[k] = [2]float64{float64(k), -float64(k)}
	}
	fl := make([]bool, 24)
	for k := range fl {
		fl[k] = k%3 == 0
	}
	ns := make([]float64, 24)
	for k := range ns {
		ns[k] = float64(k) / 2
	}
	want := map[string]struct {
		dtype string
		shape []int
		value any
	}{
		"Header/i64":            {"<i8", []int{}, []int64{-7}},
		"Header/i32":            {"<i4", []int{}, []int32{-3}},
		"Header/u64":            {"<u8", []int{}, []uint64{1<<63 + 5}},
		"Header/f64":            {"<f8", []int{}, []float64{1051.69}},
		"Header/f32":            {"<f4", []int{}, []float64{0.25}},
		"Header/yes":            {"|b1", []int{}, []bool{true}},
		"Header/c128":           {"<c16", []int{}, [][2]float64{{1.5, -2.5}}},
		"Header/name":           {"|S4", []int{}, []string{"HERA"}},
		"Header/names":          {"|S4", []int{3}, []string{"HH0", "HH10", ""}},
		"Header/pos":            {"<f8", []int{2, 3}, []float64{1, 2, 3, 4, 5, 6}},
		"Header/ints":           {"<i4", []int{5}, []int32{0, 1, 2, 3, 10}},
		"Header/zero":           {"<i8", []int{0, 3}, []int64{}},
		"Header/none":           {"<f4", nil, nil},
		"Header/cat/0/cat_type": {"|S11", []int{}, []string{"unprojected"}},
		"Data/visdata":          {"<c16", []int{4, 3, 2}, vis},
		"Data/flags":            {"|b1", []int{4, 3, 2}, fl},
		"Data/c64":              {"<c8", []int{3}, [][2]float64{{0, 1}, {2, 0}, {3, 3}}},
		"Data/nsamples":         {"<f4", []int{4, 3, 2}, ns},
	}
	if len(got) != len(want) {
		t.Errorf("h5py sees %d datasets, want %d", len(got), len(want))
	}
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			t.Errorf("%s missing", name)
			continue
		}
		wv, _ := json.Marshal(w.value)
		if g.Dtype != w.dtype || !equalShape(g.Shape, w.shape) || canonJSON(t, g.Value) != canonJSON(t, wv) {
			t.Errorf("%s: h5py %s %v %s, want %s %v %s", name, g.Dtype, g.Shape, g.Value, w.dtype, w.shape, wv)
		}
	}
}

// canonJSON re-encodes a JSON value with every number in one canonical
// form (exact integers, shortest floats), so 1.0 from Python equals 1.
func canonJSON(t *testing.T, raw []byte) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	must(t, dec.Decode(&v))
	b, err := json.Marshal(canon(v))
	must(t, err)
	return string(b)
}

func canon(v any) any {
	switch x := v.(type) {
	case []any:
		for i := range x {
			x[i] = canon(x[i])
		}
	case json.Number:
		s := string(x)
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return s
		}
		if _, err := strconv.ParseUint(s, 10, 64); err == nil {
			return s
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return s
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return v
}

func equalShape(a, b []int) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func exitStderr(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

func TestH5dumpParses(t *testing.T) {
	h5dump, err := exec.LookPath("h5dump")
	if err != nil {
		t.Skip("h5dump check skipped: h5dump not installed")
	}
	path := filepath.Join(t.TempDir(), "sample.h5")
	writeSample(t, path)
	out, err := exec.Command(h5dump, path).CombinedOutput()
	if err != nil {
		t.Fatalf("h5dump failed: %v\n%s", err, out)
	}
	if os.Getenv("H5WRITE_SHOW") != "" {
		t.Logf("%s", out)
	}
	for _, s := range []string{`"FALSE"            0;`, `H5T_IEEE_F64LE "r";`, `DATASPACE  NULL`, `DATASPACE  SCALAR`,
		`STRPAD H5T_STR_NULLPAD;`, `(3,2,1): {`, `"unprojected"`, `ATTRIBUTE "unit" {`, `(0): "Jy"`} {
		if !strings.Contains(string(out), s) {
			t.Errorf("h5dump output lacks %q", s)
		}
	}
}

// TestBeyond4GiB writes a sparse 5.6 GB dataset (only three elements
// written; the rest are holes) so addresses and sizes above 2^32 are
// exercised, and reads the elements back with h5py.
func TestBeyond4GiB(t *testing.T) {
	if testing.Short() {
		t.Skip("sparse 5.6 GB file skipped in -short mode")
	}
	py := sharedtest.Python(t, "h5py", "python3-h5py")
	path := filepath.Join(t.TempDir(), "big.h5")
	fh, err := os.Create(path)
	must(t, err)
	defer fh.Close()
	f, err := Create(fh)
	must(t, err)
	must(t, f.Root().Scalar("before", int64(7)))
	const n = 700_000_000
	d, err := f.Root().Dataset("big", Float64, n)
	must(t, err)
	must(t, d.WriteAt(n-1, []float64{2.5}))
	must(t, d.WriteAt(n/2, []float64{-1}))
	must(t, d.WriteAt(0, []float64{1.5}))
	must(t, f.Root().Scalar("after", int64(9)))
	must(t, f.Close())
	out, err := exec.Command(py, "-c", `
import h5py, sys
with h5py.File(sys.argv[1], "r") as f:
    d = f["big"]
    print(d.shape[0], d[0], d[350000000], d[-1], d[12345], f["before"][()], f["after"][()])
`, path).CombinedOutput()
	if err != nil {
		t.Fatalf("h5py: %v\n%s", err, out)
	}
	if got, want := strings.TrimSpace(string(out)), "700000000 1.5 -1.0 2.5 0.0 7 9"; got != want {
		t.Fatalf("h5py read %q, want %q", got, want)
	}
}
