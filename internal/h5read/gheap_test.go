package h5read

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// gcol builds a global heap collection (III.E) of the given declared size
// holding objs as objects 1, 2, ..., followed by the free-space object.
func gcol(size uint64, objs ...[]byte) []byte {
	b := append([]byte("GCOL"), 1, 0, 0, 0)
	b = binary.LittleEndian.AppendUint64(b, size)
	for i, o := range objs {
		b = binary.LittleEndian.AppendUint16(b, uint16(i+1))
		b = append(b, 1, 0, 0, 0, 0, 0) // reference count, reserved
		b = binary.LittleEndian.AppendUint64(b, uint64(len(o)))
		b = append(b, o...)
		b = append(b, make([]byte, -len(o)&7)...)
	}
	free := int(size) - len(b)
	if free >= gcolHeaderSize {
		b = append(b, make([]byte, 8)...)
		b = binary.LittleEndian.AppendUint64(b, uint64(free-gcolHeaderSize))
	}
	if len(b) < int(size) && size < 1<<20 {
		b = append(b, make([]byte, int(size)-len(b))...)
	}
	return b
}

// ref encodes one variable-length element: length, collection, index.
func ref(length uint32, addr uint64, index uint32) []byte {
	b := binary.LittleEndian.AppendUint32(nil, length)
	b = binary.LittleEndian.AppendUint64(b, addr)
	return binary.LittleEndian.AppendUint32(b, index)
}

func memFile(b []byte) *File {
	return &File{r: bytes.NewReader(b), size: int64(len(b)), groups: map[uint64]map[string]uint64{}, others: map[uint64]map[string]string{}}
}

// TestVarLenStringsByHand reads strings through references into a
// collection built by hand from the specification.
func TestVarLenStringsByHand(t *testing.T) {
	b := gcol(96, []byte("hello"), []byte("Jy/sr"), []byte{})
	refs := bytes.Join([][]byte{ref(5, 0, 1), ref(0, 0, 0), ref(3, 0, 2), ref(0, 0, 3)}, nil)
	got, err := memFile(b).varLenStrings(refs, 4)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"hello", "", "Jy/", ""}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestForgedGlobalHeapRefused: forged or truncated references and
// collections are refused with an error naming the structure and value.
func TestForgedGlobalHeapRefused(t *testing.T) {
	good := gcol(64, []byte("hello"))
	huge := gcol(1<<45, []byte("hello"))
	v2 := bytes.Clone(good)
	v2[4] = 2
	overrun := bytes.Clone(good)
	binary.LittleEndian.PutUint64(overrun[24:], 1000) // object 1's size
	twice := gcol(80, []byte("a"), []byte("b"))
	binary.LittleEndian.PutUint16(twice[40:], 1) // object 2 renumbered 1
	// A collection whose only object holds another collection header
	// declaring nearly the whole file: the two overlap.
	inner := gcol(120, []byte("x"))
	nested := gcol(160, inner)
	cases := []struct {
		name string
		file []byte
		refs []byte
		msg  string
	}{
		{"missing object", good, ref(5, 0, 2), "has no object 2"},
		{"object index 0", good, ref(5, 0, 0), "has no object 0"},
		{"address past the end", good, ref(5, 1<<40, 1), "beyond the end"},
		{"not a collection", good, ref(5, 8, 1), "no global heap collection at 8"},
		{"huge collection", huge, ref(5, 0, 1), "declares 35184372088832 bytes"},
		{"collection past the end", good[:40], ref(5, 0, 1), "declares 64 bytes, past the end of the 40-byte file"},
		{"version", v2, ref(5, 0, 1), "version 2"},
		{"object overruns", overrun, ref(5, 0, 1), "overruns its collection"},
		{"object stored twice", twice, ref(1, 0, 1), "stored twice"},
		{"string longer than object", good, ref(9, 0, 1), "string of 9 bytes in a 5-byte heap object"},
		{"overlapping collections", nested, append(ref(1, 0, 1), ref(1, 32, 1)...), "collections of more bytes than the 160-byte file"},
		{"index beyond 16 bits", good, ref(5, 0, 1<<16+1), "has no object 65537"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := int64(len(c.refs) / varLenRefSize)
			_, err := memFile(c.file).varLenStrings(c.refs, n)
			if err == nil || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %v, want one containing %q", err, c.msg)
			}
		})
	}
}

// TestRepeatedReferenceBomb: a million references to one heap object
// would make gigabytes of strings from a small file; the reader refuses
// once their total passes the file's size, allocating little.
func TestRepeatedReferenceBomb(t *testing.T) {
	obj := bytes.Repeat([]byte("s"), 4000)
	f := memFile(gcol(4096+16, obj))
	const n = 1 << 20
	refs := bytes.Repeat(ref(4000, 0, 1), n)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := f.varLenStrings(refs, n)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "more bytes than the 4112-byte file holds") {
		t.Errorf("error %v", err)
	}
	// The []string of n headers (16 MiB) is allocated up front; the
	// strings themselves may not exceed the file.
	if got := after.TotalAlloc - before.TotalAlloc; got > 20<<20 {
		t.Errorf("allocated %d MiB", got>>20)
	}
}

// TestVarLenForgedSkyH5 edits the global heap collection of a committed
// SkyH5 file — objects 1-4 hold "deg", "deg", "Hz", "Jy" — and reads the
// /Data/stokes unit attribute ("Jy", object 4): an error naming the
// attribute and the fault, never a panic.
func TestVarLenForgedSkyH5(t *testing.T) {
	b, err := os.ReadFile("../../matvis/skymodel/testdata/skyh5/good_point.skyh5")
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte("GCOL"))
	if i < 0 || !bytes.Equal(b[i+104:i+106], []byte("Jy")) {
		t.Fatal("good_point.skyh5 lacks the expected global heap")
	}
	obj4 := i + gcolHeaderSize + 3*24
	cases := []struct {
		name  string
		at    int
		value uint64
		msg   string
	}{
		{"collection size", i + 8, 1 << 45, "declares 35184372088832 bytes"},
		{"collection size zero", i + 8, 0, "declares 0 bytes"},
		{"object size", obj4 + 8, 1 << 40, "object 4 of 1099511627776 bytes overruns"},
		{"object renumbered", obj4, 9, "has no object 4"},
		{"object shortened", obj4 + 8, 1, "string of 2 bytes in a 1-byte heap object"},
		{"signature", i, 0, "no global heap collection at 7280"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bad := bytes.Clone(b)
			if c.at == obj4 {
				binary.LittleEndian.PutUint16(bad[c.at:], uint16(c.value))
			} else {
				binary.LittleEndian.PutUint64(bad[c.at:], c.value)
			}
			f, err := Open(bytes.NewReader(bad), int64(len(bad)))
			if err != nil {
				t.Fatal(err)
			}
			a, err := f.Attribute("/Data/stokes", "unit")
			if err != nil {
				t.Fatal(err)
			}
			s, err := a.Strings()
			if err == nil || !strings.Contains(err.Error(), "/Data/stokes attribute unit") || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("%q, %v; want an error naming the attribute and %q", s, err, c.msg)
			}
		})
	}
}

// FuzzGlobalHeap decodes variable-length references into a fuzzed file:
// an error or strings whose total length is within the file, never a
// panic.
func FuzzGlobalHeap(f *testing.F) {
	f.Add(gcol(96, []byte("hello"), []byte("Jy/sr")), append(ref(5, 0, 1), ref(3, 0, 2)...))
	f.Add(gcol(160, gcol(120, []byte("x"))), append(ref(1, 0, 1), ref(1, 32, 1)...))
	f.Fuzz(func(t *testing.T, file, refs []byte) {
		n := len(refs) / varLenRefSize
		got, err := memFile(file).varLenStrings(refs[:n*varLenRefSize], int64(n))
		if err != nil {
			return
		}
		total := 0
		for _, s := range got {
			total += len(s)
		}
		if len(got) != n || total > len(file) {
			t.Fatalf("%d strings of %d bytes from a %d-byte file", len(got), total, len(file))
		}
	})
}

// FuzzAttributes reads every attribute and string dataset of fuzzed
// SkyH5 files (variable-length UTF-8 attributes, fixed strings): errors
// are fine, panics are not.
func FuzzAttributes(f *testing.F) {
	for _, name := range []string{"good_point.skyh5", "hpx_ring_K_full.skyh5", "point_old_lonlat_fk5.skyh5"} {
		b, err := os.ReadFile(filepath.Join("../../matvis/skymodel/testdata/skyh5", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		defer func() {
			if d := time.Since(start); d > 10*time.Second {
				t.Fatalf("reading a %d-byte file took %v", len(data), d)
			}
		}()
		h, err := Open(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		readAttrs(h, "/")
		h.Walk(func(p string, group bool) error {
			readAttrs(h, p)
			if d, err := h.Dataset(p); err == nil {
				d.Strings()
				d.Float64s()
			}
			return nil
		})
	})
}

// readAttrs decodes every attribute of the object at p.
func readAttrs(h *File, p string) {
	names, _ := h.Attributes(p)
	for _, n := range names {
		if a, err := h.Attribute(p, n); err == nil {
			a.Strings()
			a.Float64s()
			a.Int64s()
		}
	}
}
