package npy

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/inputfile/inputtest"
)

// npyBytes builds a .npy stream of format version ver with header h
// (padded with a newline) and the given data bytes.
func npyBytes(ver byte, h string, data []byte) []byte {
	var b bytes.Buffer
	b.Write(magic)
	b.Write([]byte{ver, 0})
	h += "\n"
	if ver == 1 {
		binary.Write(&b, binary.LittleEndian, uint16(len(h)))
	} else {
		binary.Write(&b, binary.LittleEndian, uint32(len(h)))
	}
	b.WriteString(h)
	b.Write(data)
	return b.Bytes()
}

// onlyReader hides a reader's Len and Seek so Read cannot know its size.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// TestReadDeclaredSizeBomb is the tester's 128-byte file declaring shape
// (1073741824, 3, 1): 24 GiB that Read used to allocate before reading.
func TestReadDeclaredSizeBomb(t *testing.T) {
	bomb := npyBytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1073741824, 3, 1), }", nil)
	p := filepath.Join(t.TempDir(), "bomb.npy")
	if err := os.WriteFile(p, bomb, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		read func() (*Array, error)
		want string
	}{
		{"ReadFile", func() (*Array, error) { return ReadFile(p) }, "declares 25769803776 bytes of data, the file holds 0 after the header"},
		{"Read bytes.Reader", func() (*Array, error) { return Read(bytes.NewReader(bomb)) }, "declares 25769803776 bytes of data, the file holds 0 after the header"},
		{"Read unknown length", func() (*Array, error) { return Read(onlyReader{bytes.NewReader(bomb)}) }, "reading 3221225472 elements"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			n := inputtest.Allocated(func() { _, err = c.read() })
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
			if n > 1<<20 {
				t.Errorf("allocated %d bytes for a %d-byte file", n, len(bomb))
			}
		})
	}
}

// TestReadUnknownLengthLarge checks that the bounded-step reading of a
// stream of unknown length still returns large arrays intact.
func TestReadUnknownLengthLarge(t *testing.T) {
	const n = 1<<20 + 5 // beyond smallRead
	data := make([]float64, n)
	for i := range data {
		data[i] = float64(i)
	}
	var buf bytes.Buffer
	if err := Write(&buf, []int{n}, data); err != nil {
		t.Fatal(err)
	}
	a, err := Read(onlyReader{&buf})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Float64) != n || a.Float64[n-1] != n-1 {
		t.Fatalf("got %d values, last %v", len(a.Float64), a.Float64[len(a.Float64)-1])
	}
}

// TestReadHeaderErrorsAreShort: a 1 MB header used to be quoted whole in
// the error.
func TestReadHeaderErrorsAreShort(t *testing.T) {
	big := strings.Repeat("A", 1_000_000)
	cases := map[string]string{
		"no descr": "{'fortran_order': False, 'shape': (3,), 'x': '" + big + "'}",
		"no shape": "{'descr': '<f8', 'fortran_order': False, 'x': '" + big + "'}",
		"bad dim":  "{'descr': '<f8', 'fortran_order': False, 'shape': (" + big + ",), }",
		"dtype":    "{'descr': '" + big + "', 'fortran_order': False, 'shape': (3,), }",
	}
	for name, h := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(npyBytes(2, h, nil)))
			if err == nil {
				t.Fatal("accepted")
			}
			if len(err.Error()) > 300 || !strings.Contains(err.Error(), "…") {
				t.Errorf("error is %d bytes, want at most 300 with the quote cut (…): %.200s", len(err.Error()), err)
			}
		})
	}
}

func TestReadShapeOverflow(t *testing.T) {
	cases := map[string]string{
		"product overflows int64": "(4611686018427387904, 4)",
		"dim overflows int":       "(99999999999999999999999,)",
		"negative":                "(-1, 3)",
		"over the element limit":  "(17179869184, 2)",
	}
	for name, shape := range cases {
		t.Run(name, func(t *testing.T) {
			b := npyBytes(1, "{'descr': '<c16', 'fortran_order': False, 'shape': "+shape+", }", make([]byte, 64))
			if _, err := Read(bytes.NewReader(b)); err == nil || !strings.Contains(err.Error(), "shape") {
				t.Errorf("error %v, want a shape error", err)
			}
		})
	}
}

// TestReadFileRefusesNonRegular: a FIFO used to block ReadFile forever and
// /dev/zero to be read as data.
func TestReadFileRefusesNonRegular(t *testing.T) {
	inputtest.RefusesNonRegular(t, "topo.npy", func(p string) error { _, err := ReadFile(p); return err })
}
