package h5write

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Dataset is a contiguous dataset whose storage is allocated; WriteAt fills
// it in pieces.
type Dataset struct {
	f     *File
	path  string
	t     Datatype
	shape []int
	n     int64  // number of elements
	addr  uint64 // raw data address, undef when empty
	null  bool   // null dataspace
	attrs []attribute
}

// Path returns the dataset's absolute path.
func (d *Dataset) Path() string { return d.path }

// Len returns the number of elements.
func (d *Dataset) Len() int64 { return d.n }

// Datatype returns the element type.
func (d *Dataset) Datatype() Datatype { return d.t }

// Shape returns a copy of the dataset's shape.
func (d *Dataset) Shape() []int { return append([]int(nil), d.shape...) }

// header encodes the dataset's object header.
func (d *Dataset) header() []byte {
	msgs := []message{
		dataspaceMsg(d.shape, d.null),
		{typ: msgDatatype, body: d.t.encode(), flag: msgFlagConstant},
		fillValueMsg(),
		contiguousLayoutMsg(d.addr, d.n*int64(d.t.size)),
	}
	for _, a := range d.attrs {
		msgs = append(msgs, a.message())
	}
	return objectHeader(msgs)
}

// chunkBytes bounds the scratch buffer WriteAt encodes through (one per
// File, reused), so memory does not grow with the size of the data written.
const chunkBytes = 1 << 20

// WriteAt writes data at element offset off, in C (row-major) order of the
// dataset's shape. data must match the datatype: []int32, []int64, []uint64,
// []float32, []float64, []bool, []complex64, []complex128 (for the {r, i}
// compounds) or []string (for fixed strings; longer strings are an error).
func (d *Dataset) WriteAt(off int64, data any) error {
	var err error
	d.f.buf, err = d.WriteAtWith(off, data, d.f.buf)
	return err
}

// WriteAtWith is WriteAt encoding through buf, returned grown for the
// caller's next call, instead of the file's own scratch: calls writing
// disjoint elements, of one dataset or several of one file, may then run
// on several goroutines at once, each with a buffer of its own, when the
// file's io.WriterAt allows parallel writes (an *os.File does).
func (d *Dataset) WriteAtWith(off int64, data any, buf []byte) ([]byte, error) {
	if d.f.closed {
		return buf, ErrClosed
	}
	n := int64(lenOf(data))
	if off < 0 || n > d.n || off > d.n-n {
		return buf, fmt.Errorf("h5write: %s: writing %d elements at %d outside its %d", d.path, n, off, d.n)
	}
	if n == 0 {
		return buf, nil
	}
	per := int64(max(chunkBytes/d.t.size, 1))
	if need := int(min(n, per)) * d.t.size; cap(buf) < need {
		buf = make([]byte, 0, max(need, min(chunkBytes, 2*cap(buf))))
	}
	for start := int64(0); start < n; start += per {
		end := min(start+per, n)
		var err error
		if buf, err = encodeRange(buf[:0], d.t, data, int(start), int(end)); err != nil {
			return buf, fmt.Errorf("h5write: %s: %w", d.path, err)
		}
		pos := int64(d.addr) + (off+start)*int64(d.t.size)
		if _, err := d.f.w.WriteAt(buf, pos); err != nil {
			return buf, fmt.Errorf("h5write: writing %s: %w", d.path, err)
		}
	}
	return buf, nil
}

// typeOf maps a Go slice to its Datatype and length.
func typeOf(data any) (Datatype, int, error) {
	switch x := data.(type) {
	case []int32:
		return Int32, len(x), nil
	case []int64:
		return Int64, len(x), nil
	case []uint64:
		return Uint64, len(x), nil
	case []float32:
		return Float32, len(x), nil
	case []float64:
		return Float64, len(x), nil
	case []bool:
		return Bool, len(x), nil
	case []complex64:
		return Complex64Compound, len(x), nil
	case []complex128:
		return Complex128Compound, len(x), nil
	}
	return Datatype{}, 0, fmt.Errorf("unsupported data type %T", data)
}

func lenOf(data any) int {
	if s, ok := data.([]string); ok {
		return len(s)
	}
	_, n, _ := typeOf(data)
	return n
}

// encodeRange appends elements [i, j) of data encoded as t.
func encodeRange(b []byte, t Datatype, data any, i, j int) ([]byte, error) {
	le := binary.LittleEndian
	if s, ok := data.([]string); ok {
		if t.kind != KindString {
			return nil, fmt.Errorf("strings written to a %v dataset", t.kind)
		}
		return encodeStrings(b, t.size, s[i:j])
	}
	dt, _, err := typeOf(data)
	if err != nil {
		return nil, err
	}
	if dt != t {
		return nil, fmt.Errorf("%T data written to a %v dataset", data, t.kind)
	}
	switch x := data.(type) {
	case []int32:
		for _, v := range x[i:j] {
			b = le.AppendUint32(b, uint32(v))
		}
	case []int64:
		for _, v := range x[i:j] {
			b = le.AppendUint64(b, uint64(v))
		}
	case []uint64:
		for _, v := range x[i:j] {
			b = le.AppendUint64(b, v)
		}
	case []float32:
		for _, v := range x[i:j] {
			b = le.AppendUint32(b, math.Float32bits(v))
		}
	case []float64:
		for _, v := range x[i:j] {
			b = le.AppendUint64(b, math.Float64bits(v))
		}
	case []bool:
		for _, v := range x[i:j] {
			if v {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
		}
	case []complex64:
		for _, v := range x[i:j] {
			b = le.AppendUint32(b, math.Float32bits(real(v)))
			b = le.AppendUint32(b, math.Float32bits(imag(v)))
		}
	case []complex128:
		for _, v := range x[i:j] {
			b = le.AppendUint64(b, math.Float64bits(real(v)))
			b = le.AppendUint64(b, math.Float64bits(imag(v)))
		}
	}
	return b, nil
}

// encodeStrings appends each string null-padded to width bytes.
func encodeStrings(b []byte, width int, s []string) ([]byte, error) {
	for k, v := range s {
		if len(v) > width {
			return nil, fmt.Errorf("string %d of %d bytes exceeds width %d", k, len(v), width)
		}
		b = append(b, v...)
		for range width - len(v) {
			b = append(b, 0)
		}
	}
	return b, nil
}
