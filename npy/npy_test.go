package npy

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	cases := []struct {
		name  string
		shape []int
		data  any
	}{
		{"f32", []int{2, 3}, []float32{1, 2, 3, 4, 5, -6}},
		{"f64", []int{3}, []float64{1.5, -2, 3e300}},
		{"c64", []int{1, 2}, []complex64{1 + 2i, -3i}},
		{"c128", []int{2, 1, 1}, []complex128{1 + 2i, 3 - 4i}},
		{"i64", []int{2}, []int64{-7, 9}},
		{"scalar", []int{}, []float64{42}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, c.shape, c.data); err != nil {
				t.Fatal(err)
			}
			a, err := Read(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a.Shape, c.shape) {
				t.Fatalf("shape %v, want %v", a.Shape, c.shape)
			}
			var got any
			switch a.DType {
			case Float32:
				got = a.Float32
			case Float64:
				got = a.Float64
			case Complex64:
				got = a.Complex64
			case Complex128:
				got = a.Complex128
			case Int64:
				got = a.Int64
			}
			if !reflect.DeepEqual(got, c.data) {
				t.Fatalf("data %v, want %v", got, c.data)
			}
		})
	}
}

func TestReadRejects(t *testing.T) {
	cases := map[string][]byte{
		"empty":     {},
		"bad magic": []byte("NOTNUMPY\x10\x00{}"),
		"truncated": append([]byte("\x93NUMPY\x01\x00\x40\x00"), []byte("{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }          \n")...),
	}
	for name, b := range cases {
		if _, err := Read(bytes.NewReader(b)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestWriteFileAtomicLeavesNothingOnError(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.npy")
	if err := WriteFileAtomic(p, []int{3}, []float64{1, 2}); err == nil {
		t.Fatal("shape mismatch accepted")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 0 {
		t.Fatalf("left files behind: %v", ents)
	}
	if err := WriteFileAtomic(filepath.Join(dir, "nodir", "x.npy"), []int{1}, []float64{1}); err == nil {
		t.Fatal("unwritable path accepted")
	}
}

func TestReadsReference(t *testing.T) {
	p := filepath.Join("..", "testdata", "reference", "tutorial3", "vis.npy")
	a, err := ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if a.DType != Complex128 || !reflect.DeepEqual(a.Shape, []int{10, 20, 9}) {
		t.Fatalf("got %s %v", a.DType, a.Shape)
	}
}
