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
	"github.com/gomatvis/gomatvis/internal/inputfile"
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
const maxElements int64 = 1 << 34

// smallRead is the most Read allocates ahead of the bytes it has received
// when it cannot know how much a stream holds.
const smallRead = 1 << 16

// maxQuote is how much of a header an error message quotes.
const maxQuote = 80

// Read decodes one .npy array from r. The data size the header declares
// is checked against what r holds before anything is allocated where r
// reports its remaining length (a *bytes.Reader, *strings.Reader,
// *bytes.Buffer or regular *os.File); other streams are read in bounded
// steps, so a header claiming more than the stream holds fails at its end
// without the claimed size ever being allocated.
func Read(r io.Reader) (*Array, error) {
	return read(r, remaining(r))
}

// ReadFile decodes the .npy file at path; anything but a regular file is
// refused (see inputfile.Open), and the declared data size is checked
// against the file's size before it is allocated.
func ReadFile(path string) (*Array, error) {
	f, size, err := inputfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	defer f.Close()
	a, err := read(f, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// remaining returns how many bytes r still holds, or -1 when unknown.
func remaining(r io.Reader) int64 {
	switch v := r.(type) {
	case interface{ Len() int }:
		return int64(v.Len())
	case *os.File:
		fi, err := v.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return -1
		}
		pos, err := v.Seek(0, io.SeekCurrent)
		if err != nil || pos > fi.Size() {
			return -1
		}
		return fi.Size() - pos
	}
	return -1
}

// header is what Read takes from a .npy header.
type header struct {
	dtype DType
	shape []int
	n     int64 // number of elements
}

// read decodes one array from r, which holds avail bytes (−1: unknown).
func read(r io.Reader, avail int64) (*Array, error) {
	br := bufio.NewReader(r)
	raw, used, err := readHeader(br)
	if err != nil {
		return nil, err
	}
	h, err := parseHeader(raw)
	if err != nil {
		return nil, err
	}
	nbytes := h.n * int64(h.dtype.size())
	if avail >= 0 && nbytes > avail-used {
		return nil, fmt.Errorf("npy: header declares %d bytes of data, the file holds %d after the header: shape %v of %s (truncated or corrupt file?)",
			nbytes, max(avail-used, 0), h.shape, h.dtype)
	}
	data, err := readData(br, nbytes, avail >= 0)
	if err != nil {
		return nil, fmt.Errorf("npy: reading %d elements of %s: %w", h.n, h.dtype, err)
	}
	return decode(h, data), nil
}

// readHeader reads the preamble and returns the header text and the bytes
// consumed so far.
func readHeader(br *bufio.Reader) ([]byte, int64, error) {
	pre := make([]byte, 8)
	if _, err := io.ReadFull(br, pre); err != nil {
		return nil, 0, fmt.Errorf("npy: reading preamble: %w", err)
	}
	if !bytes.Equal(pre[:6], magic) {
		return nil, 0, errors.New("npy: not a .npy file (bad magic)")
	}
	var lenBytes int
	switch pre[6] {
	case 1:
		lenBytes = 2
	case 2, 3:
		lenBytes = 4
	default:
		return nil, 0, fmt.Errorf("npy: unsupported format version %d", pre[6])
	}
	b := make([]byte, 4)
	if _, err := io.ReadFull(br, b[:lenBytes]); err != nil {
		return nil, 0, fmt.Errorf("npy: reading header length: %w", err)
	}
	hlen := int64(binary.LittleEndian.Uint32(b))
	if hlen > 1<<20 {
		return nil, 0, fmt.Errorf("npy: header length %d too large", hlen)
	}
	hdr, err := readData(br, hlen, false)
	if err != nil {
		return nil, 0, fmt.Errorf("npy: reading the %d-byte header: %w", hlen, err)
	}
	return hdr, int64(8+lenBytes) + hlen, nil
}

// parseHeader takes the dtype and shape from a header's text.
func parseHeader(raw []byte) (*header, error) {
	h := string(raw)
	m := descrRe.FindStringSubmatch(h)
	if m == nil {
		return nil, fmt.Errorf("npy: header has no descr: %s", clip(h))
	}
	dt := DType(m[1])
	if dt == "<i8" || dt == "|i8" {
		dt = Int64
	}
	if dt.size() == 0 {
		return nil, fmt.Errorf("npy: unsupported dtype %s", clip(m[1]))
	}
	if o := orderRe.FindStringSubmatch(h); o == nil || o[1] != "False" {
		return nil, errors.New("npy: only C-ordered arrays are supported")
	}
	s := shapeRe.FindStringSubmatch(h)
	if s == nil {
		return nil, fmt.Errorf("npy: header has no shape: %s", clip(h))
	}
	out := &header{dtype: dt, shape: []int{}, n: 1}
	for _, f := range strings.Split(s[1], ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		d, err := strconv.ParseInt(f, 10, 64)
		if err != nil || d < 0 || d > math.MaxInt {
			return nil, fmt.Errorf("npy: bad shape entry %s", clip(f))
		}
		if d > 0 && out.n > maxElements/d {
			return nil, fmt.Errorf("npy: shape (%s) has more than %d elements", clip(s[1]), maxElements)
		}
		out.shape = append(out.shape, int(d))
		out.n *= d
	}
	if out.n*int64(dt.size()) > math.MaxInt {
		return nil, fmt.Errorf("npy: shape %v of %s is too large for this machine", out.shape, dt)
	}
	return out, nil
}

// readData reads exactly n bytes. Unless sized (n already checked against
// what the stream holds), the buffer grows with the bytes that arrive, so a
// stream shorter than n never makes it allocate n.
func readData(r io.Reader, n int64, sized bool) ([]byte, error) {
	if sized || n <= smallRead {
		b := make([]byte, n)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		return b, nil
	}
	var buf bytes.Buffer
	got, err := io.CopyN(&buf, r, n)
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("%w after %d of %d bytes", err, got, n)
	}
	return buf.Bytes(), nil
}

// decode converts the little-endian data bytes of h's elements.
func decode(h *header, raw []byte) *Array {
	a := &Array{DType: h.dtype, Shape: h.shape}
	n := int(h.n)
	le := binary.LittleEndian
	switch h.dtype {
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
	return a
}

// clip quotes s for an error message, cut to maxQuote bytes with "…".
func clip(s string) string {
	if len(s) <= maxQuote {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:maxQuote]) + "…"
}

// Write encodes data (one of []float32, []float64, []complex64,
// []complex128, []int64) with the given shape as a version-1 .npy stream.
func Write(w io.Writer, shape []int, data any) error {
	dt, n, err := dtypeOf(data)
	if err != nil {
		return fmt.Errorf("npy: %w", err)
	}
	want := 1
	for _, s := range shape {
		want *= s
	}
	if want != n {
		return fmt.Errorf("npy: shape %v holds %d elements, data has %d", shape, want, n)
	}
	if _, err := w.Write(Header(shape, dt)); err != nil {
		return fmt.Errorf("npy: writing header: %w", err)
	}
	if err := writeData(w, data); err != nil {
		return fmt.Errorf("npy: writing data: %w", err)
	}
	return nil
}

// Header is the version-1.0 header of a C-ordered array of dt with the
// given shape, padded so that the data start on a 64-byte boundary, as
// NumPy writes it: for writers that put the data in place themselves.
func Header(shape []int, dt DType) []byte {
	dims := make([]string, len(shape))
	for i, s := range shape {
		dims[i] = strconv.Itoa(s)
	}
	st := strings.Join(dims, ", ")
	if len(shape) == 1 {
		st += ","
	}
	h := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", dt, st)
	total := len(magic) + 2 + 2 + len(h) + 1
	h += strings.Repeat(" ", (64-total%64)%64) + "\n"
	pre := make([]byte, 0, len(magic)+4+len(h))
	pre = append(append(pre, magic...), 1, 0)
	pre = binary.LittleEndian.AppendUint16(pre, uint16(len(h)))
	return append(pre, h...)
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
