// Package npy reads and writes NumPy .npy files (format versions 1 and 2,
// little-endian, C order) for the element types gomatvis exchanges with
// Python: float32, float64, complex64, complex128 and int64.
package npy

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/gomatvis/gomatvis/internal/atomicfile"
)

// DType names a supported element type by its NumPy descriptor.
type DType string

// Supported element types.
const (
	Float32    DType = "<f4"
	Float64    DType = "<f8"
	Complex64  DType = "<c8"
	Complex128 DType = "<c16"
	Int64      DType = "<i8"
)

func (d DType) size() int {
	switch d {
	case Float32:
		return 4
	case Float64, Complex64, Int64:
		return 8
	case Complex128:
		return 16
	}
	return 0
}

// Array is a decoded .npy array. Exactly one of the data slices is set,
// matching DType; Shape is in C (row-major) order.
type Array struct {
	DType      DType
	Shape      []int
	Float32    []float32
	Float64    []float64
	Complex64  []complex64
	Complex128 []complex128
	Int64      []int64
}

// Len is the number of elements implied by Shape.
func (a *Array) Len() int {
	n := 1
	for _, s := range a.Shape {
		n *= s
	}
	return n
}

// AsFloat64 returns the data converted to float64 (real types only).
func (a *Array) AsFloat64() ([]float64, error) {
	switch a.DType {
	case Float64:
		return a.Float64, nil
	case Float32:
		out := make([]float64, len(a.Float32))
		for i, v := range a.Float32 {
			out[i] = float64(v)
		}
		return out, nil
	case Int64:
		out := make([]float64, len(a.Int64))
		for i, v := range a.Int64 {
			out[i] = float64(v)
		}
		return out, nil
	}
	return nil, fmt.Errorf("npy: dtype %s is not real", a.DType)
}

// AsComplex128 returns the data converted to complex128 (any supported type).
func (a *Array) AsComplex128() []complex128 {
	switch a.DType {
	case Complex128:
		return a.Complex128
	case Complex64:
		out := make([]complex128, len(a.Complex64))
		for i, v := range a.Complex64 {
			out[i] = complex128(v)
		}
		return out
	}
	f, _ := a.AsFloat64()
	out := make([]complex128, len(f))
	for i, v := range f {
		out[i] = complex(v, 0)
	}
	return out
}

var magic = []byte("\x93NUMPY")

var (
	descrRe = regexp.MustCompile(`'descr'\s*:\s*'([^']*)'`)
	orderRe = regexp.MustCompile(`'fortran_order'\s*:\s*(True|False)`)
	shapeRe = regexp.MustCompile(`'shape'\s*:\s*\(([^)]*)\)`)
)

// maxElements bounds what a header may claim so a corrupt file cannot make
// the reader allocate without limit.
const maxElements = 1 << 34

// Read decodes one .npy array from r.
func Read(r io.Reader) (*Array, error) {
	br := bufio.NewReader(r)
	pre := make([]byte, 8)
	if _, err := io.ReadFull(br, pre); err != nil {
		return nil, fmt.Errorf("npy: reading preamble: %w", err)
	}
	if !bytes.Equal(pre[:6], magic) {
		return nil, errors.New("npy: not a .npy file (bad magic)")
	}
	var hlen int
	switch pre[6] {
	case 1:
		b := make([]byte, 2)
		if _, err := io.ReadFull(br, b); err != nil {
			return nil, fmt.Errorf("npy: reading header length: %w", err)
		}
		hlen = int(binary.LittleEndian.Uint16(b))
	case 2, 3:
		b := make([]byte, 4)
		if _, err := io.ReadFull(br, b); err != nil {
			return nil, fmt.Errorf("npy: reading header length: %w", err)
		}
		hlen = int(binary.LittleEndian.Uint32(b))
		if hlen > 1<<20 {
			return nil, fmt.Errorf("npy: header length %d too large", hlen)
		}
	default:
		return nil, fmt.Errorf("npy: unsupported format version %d", pre[6])
	}
	hdr := make([]byte, hlen)
	if _, err := io.ReadFull(br, hdr); err != nil {
		return nil, fmt.Errorf("npy: reading header: %w", err)
	}
	h := string(hdr)
	m := descrRe.FindStringSubmatch(h)
	if m == nil {
		return nil, fmt.Errorf("npy: header has no descr: %q", h)
	}
	dt := DType(m[1])
	if dt == "<i8" || dt == "|i8" {
		dt = Int64
	}
	if dt.size() == 0 {
		return nil, fmt.Errorf("npy: unsupported dtype %q", m[1])
	}
	if o := orderRe.FindStringSubmatch(h); o == nil || o[1] != "False" {
		return nil, errors.New("npy: only C-ordered arrays are supported")
	}
	s := shapeRe.FindStringSubmatch(h)
	if s == nil {
		return nil, fmt.Errorf("npy: header has no shape: %q", h)
	}
	a := &Array{DType: dt, Shape: []int{}}
	n := 1
	for _, f := range strings.Split(s[1], ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		d, err := strconv.Atoi(f)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("npy: bad shape entry %q", f)
		}
		a.Shape = append(a.Shape, d)
		if d > 0 && n > maxElements/d {
			return nil, fmt.Errorf("npy: shape %v too large", s[1])
		}
		n *= d
	}
	raw := make([]byte, n*dt.size())
	if _, err := io.ReadFull(br, raw); err != nil {
		return nil, fmt.Errorf("npy: reading %d elements of %s: %w", n, dt, err)
	}
	le := binary.LittleEndian
	switch dt {
	case Float32:
		a.Float32 = make([]float32, n)
		for i := range a.Float32 {
			a.Float32[i] = math.Float32frombits(le.Uint32(raw[4*i:]))
		}
	case Float64:
		a.Float64 = make([]float64, n)
		for i := range a.Float64 {
			a.Float64[i] = math.Float64frombits(le.Uint64(raw[8*i:]))
		}
	case Int64:
		a.Int64 = make([]int64, n)
		for i := range a.Int64 {
			a.Int64[i] = int64(le.Uint64(raw[8*i:]))
		}
	case Complex64:
		a.Complex64 = make([]complex64, n)
		for i := range a.Complex64 {
			a.Complex64[i] = complex(math.Float32frombits(le.Uint32(raw[8*i:])), math.Float32frombits(le.Uint32(raw[8*i+4:])))
		}
	case Complex128:
		a.Complex128 = make([]complex128, n)
		for i := range a.Complex128 {
			a.Complex128[i] = complex(math.Float64frombits(le.Uint64(raw[16*i:])), math.Float64frombits(le.Uint64(raw[16*i+8:])))
		}
	}
	return a, nil
}

// ReadFile decodes the .npy file at path.
func ReadFile(path string) (*Array, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	defer f.Close()
	a, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// Write encodes data (one of []float32, []float64, []complex64,
// []complex128, []int64) with the given shape as a version-1 .npy stream.
func Write(w io.Writer, shape []int, data any) error {
	var dt DType
	var n int
	switch d := data.(type) {
	case []float32:
		dt, n = Float32, len(d)
	case []float64:
		dt, n = Float64, len(d)
	case []complex64:
		dt, n = Complex64, len(d)
	case []complex128:
		dt, n = Complex128, len(d)
	case []int64:
		dt, n = Int64, len(d)
	default:
		return fmt.Errorf("npy: unsupported data type %T", data)
	}
	want := 1
	for _, s := range shape {
		want *= s
	}
	if want != n {
		return fmt.Errorf("npy: shape %v holds %d elements, data has %d", shape, want, n)
	}
	dims := make([]string, len(shape))
	for i, s := range shape {
		dims[i] = strconv.Itoa(s)
	}
	st := strings.Join(dims, ", ")
	if len(shape) == 1 {
		st += ","
	}
	h := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", dt, st)
	// Pad so that the data starts on a 64-byte boundary, as NumPy does.
	total := len(magic) + 2 + 2 + len(h) + 1
	h += strings.Repeat(" ", (64-total%64)%64) + "\n"
	pre := make([]byte, 0, len(magic)+4+len(h))
	pre = append(append(pre, magic...), 1, 0)
	pre = binary.LittleEndian.AppendUint16(pre, uint16(len(h)))
	if _, err := w.Write(append(pre, h...)); err != nil {
		return fmt.Errorf("npy: writing header: %w", err)
	}
	if err := writeData(w, data); err != nil {
		return fmt.Errorf("npy: writing data: %w", err)
	}
	return nil
}

// writeBlock is the size in bytes of the blocks writeData encodes: the
// data are never copied whole, so writing needs this much beyond them.
const writeBlock = 1 << 20

// writeData encodes data little-endian in blocks of writeBlock bytes.
func writeData(w io.Writer, data any) error {
	le := binary.LittleEndian
	switch d := data.(type) {
	case []float32:
		return encodeBlocks(w, d, 4, func(b []byte, v float32) { le.PutUint32(b, math.Float32bits(v)) })
	case []float64:
		return encodeBlocks(w, d, 8, func(b []byte, v float64) { le.PutUint64(b, math.Float64bits(v)) })
	case []int64:
		return encodeBlocks(w, d, 8, func(b []byte, v int64) { le.PutUint64(b, uint64(v)) })
	case []complex64:
		return encodeBlocks(w, d, 8, func(b []byte, v complex64) {
			le.PutUint32(b, math.Float32bits(real(v)))
			le.PutUint32(b[4:], math.Float32bits(imag(v)))
		})
	case []complex128:
		return encodeBlocks(w, d, 16, func(b []byte, v complex128) {
			le.PutUint64(b, math.Float64bits(real(v)))
			le.PutUint64(b[8:], math.Float64bits(imag(v)))
		})
	}
	return fmt.Errorf("unsupported data type %T", data)
}

// encodeBlocks writes vs, size bytes each as put encodes them, through one
// reused buffer of at most writeBlock bytes.
func encodeBlocks[T any](w io.Writer, vs []T, size int, put func([]byte, T)) error {
	per := writeBlock / size
	buf := make([]byte, min(len(vs), per)*size)
	for lo := 0; lo < len(vs); lo += per {
		blk := vs[lo:min(lo+per, len(vs))]
		b := buf[:len(blk)*size]
		for i, v := range blk {
			put(b[i*size:], v)
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// WriteFileAtomic writes the array to path through a temporary file in the
// same directory that is renamed into place only once complete, so a failed
// or cancelled run never leaves a partial output file.
func WriteFileAtomic(path string, shape []int, data any) error {
	if err := atomicfile.Write(path, func(w io.Writer) error { return Write(w, shape, data) }); err != nil {
		return fmt.Errorf("npy: %w", err)
	}
	return nil
}
