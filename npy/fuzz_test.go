package npy

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/gomatvis/gomatvis/internal/inputfile/inputtest"
)

// FuzzReadNpy checks that Read never panics, never allocates far beyond
// the input's size, and that whatever it accepts is consistent and
// survives a Write/Read round trip.
func FuzzReadNpy(f *testing.F) {
	var b bytes.Buffer
	if err := Write(&b, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6}); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	b.Reset()
	if err := Write(&b, []int{1}, []complex64{1 + 2i}); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add(npyBytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1073741824, 3, 1), }", nil))
	f.Add(npyBytes(2, "{'descr': '<i8', 'fortran_order': False, 'shape': (), }", make([]byte, 8)))
	f.Add(npyBytes(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", make([]byte, 8)))
	f.Fuzz(func(t *testing.T, in []byte) {
		bound := uint64(16*len(in) + 1<<20)
		var a *Array
		var err error
		if n := inputtest.Allocated(func() { a, err = Read(bytes.NewReader(in)) }); n > bound {
			t.Fatalf("allocated %d bytes for a %d-byte input", n, len(in))
		}
		if n := inputtest.Allocated(func() { _, _ = Read(onlyReader{bytes.NewReader(in)}) }); n > bound {
			t.Fatalf("unknown length: allocated %d bytes for a %d-byte input", n, len(in))
		}
		if err == nil {
			checkRoundTrip(t, a)
		}
	})
}

// checkRoundTrip writes a and reads it back, which must give a again.
func checkRoundTrip(t *testing.T, a *Array) {
	t.Helper()
	var data any
	switch a.DType {
	case Float32:
		data = a.Float32
	case Float64:
		data = a.Float64
	case Complex64:
		data = a.Complex64
	case Complex128:
		data = a.Complex128
	case Int64:
		data = a.Int64
	}
	if reflect.ValueOf(data).Len() != a.Len() {
		t.Fatalf("shape %v holds %d elements, data has %d", a.Shape, a.Len(), reflect.ValueOf(data).Len())
	}
	var b bytes.Buffer
	if err := Write(&b, a.Shape, data); err != nil {
		t.Fatalf("writing back: %v", err)
	}
	back, err := Read(&b)
	if err != nil {
		t.Fatalf("reading back: %v", err)
	}
	if !reflect.DeepEqual(back.Shape, a.Shape) || back.DType != a.DType {
		t.Fatalf("round trip: %s %v, want %s %v", back.DType, back.Shape, a.DType, a.Shape)
	}
}
