package h5read

import (
	"bytes"
	"encoding/binary"
	"math"
)

// Int64s reads an integer dataset (any fixed-point size) as int64.
func (d *Dataset) Int64s() ([]int64, error) {
	if d.Type.Class != ClassFixed {
		return nil, pathErr(d.Path, "%s is not an integer type", d.Type)
	}
	var out []int64
	bad := int64(-1) // an unsigned 64-bit element past int64
	err := d.eachBlock(func(b []byte, first int64) {
		if out == nil {
			out = make([]int64, d.n)
		}
		size := int64(d.Type.Size)
		for i := range int64(len(b)) / size {
			v := decodeInt(b[i*size:(i+1)*size], d.Type)
			if !d.Type.Signed && d.Type.Size == 8 && v < 0 && bad < 0 {
				bad = first + i
			}
			out[first+i] = v
		}
	})
	if err != nil {
		return nil, err
	}
	if bad >= 0 {
		return nil, pathErr(d.Path, "element %d overflows int64", bad)
	}
	return out, nil
}

// Float64s reads a float32 or float64 dataset as float64.
func (d *Dataset) Float64s() ([]float64, error) {
	if d.Type.Class != ClassFloat || (d.Type.Size != 4 && d.Type.Size != 8) {
		return nil, pathErr(d.Path, "%s is not float32 or float64", d.Type)
	}
	var out []float64
	err := d.eachBlock(func(b []byte, first int64) {
		if out == nil {
			out = make([]float64, d.n)
		}
		decodeFloats(out[first:], b, d.Type)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// decodeFloats decodes the elements in b into dst; little-endian float64,
// the common case, without a per-element switch.
func decodeFloats(dst []float64, b []byte, t Datatype) {
	n := len(b) / t.Size
	if t.Size == 8 && !t.BigEndian {
		for i := range dst[:n] {
			dst[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		}
		return
	}
	for i := range dst[:n] {
		dst[i] = decodeFloat(b[i*t.Size:], t)
	}
}

func decodeFloat(p []byte, t Datatype) float64 {
	var o binary.ByteOrder = binary.LittleEndian
	if t.BigEndian {
		o = binary.BigEndian
	}
	if t.Size == 4 {
		return float64(math.Float32frombits(o.Uint32(p)))
	}
	return math.Float64frombits(o.Uint64(p))
}

// Complex128s reads a compound {r, i} dataset whose two members are the
// same float32/float64 (or integer) type, as pyuvdata stores visibilities.
func (d *Dataset) Complex128s() ([]complex128, error) {
	re, im, ok := d.complexMembers()
	if !ok {
		return nil, pathErr(d.Path, "%s is not a compound {r, i}", d.Type)
	}
	b, err := d.Raw()
	if err != nil {
		return nil, err
	}
	out := make([]complex128, d.n)
	for i := range out {
		e := b[i*d.Type.Size:]
		out[i] = complex(memberValue(e[re.Offset:], re.Type), memberValue(e[im.Offset:], im.Type))
	}
	return out, nil
}

func (d *Dataset) complexMembers() (re, im Member, ok bool) {
	if d.Type.Class != ClassCompound || len(d.Type.Members) != 2 {
		return re, im, false
	}
	for _, m := range d.Type.Members {
		switch m.Name {
		case "r":
			re = m
		case "i":
			im = m
		}
	}
	okType := func(t Datatype) bool {
		return (t.Class == ClassFloat && (t.Size == 4 || t.Size == 8)) || t.Class == ClassFixed
	}
	return re, im, re.Name == "r" && im.Name == "i" && okType(re.Type) && okType(im.Type)
}

func memberValue(p []byte, t Datatype) float64 {
	if t.Class == ClassFloat {
		return decodeFloat(p, t)
	}
	v := decodeInt(p[:t.Size], t)
	if !t.Signed && t.Size == 8 {
		return float64(uint64(v))
	}
	return float64(v)
}

// Bools reads h5py's numpy-bool enum (or a plain 1-byte integer) as bool:
// non-zero is true.
func (d *Dataset) Bools() ([]bool, error) {
	base := d.Type
	if d.Type.Class == ClassEnum && d.Type.Base != nil {
		base = *d.Type.Base
	}
	if base.Class != ClassFixed || base.Size != 1 {
		return nil, pathErr(d.Path, "%s is not a boolean type", d.Type)
	}
	b, err := d.Raw()
	if err != nil {
		return nil, err
	}
	out := make([]bool, d.n)
	for i := range out {
		out[i] = b[i] != 0
	}
	return out, nil
}

// Strings reads a fixed-length or variable-length string dataset,
// removing fixed-length strings' padding; variable-length strings are
// returned as stored.
func (d *Dataset) Strings() ([]string, error) {
	vlen := d.Type.Class == ClassVarLen && d.Type.VarString
	if d.Type.Class != ClassString && !vlen {
		return nil, pathErr(d.Path, "%s is not a string type", d.Type)
	}
	if vlen {
		b, err := d.Raw()
		if err != nil {
			return nil, err
		}
		out, err := d.f.varLenStrings(b, d.n)
		if err != nil {
			return nil, pathErr(d.Path, "%w", err)
		}
		return out, nil
	}
	return d.fixedStrings()
}

// fixedStrings reads fixed-length strings without their padding. The
// strings of a block share one allocation of exactly their bytes (not
// one per string, nor the padding).
func (d *Dataset) fixedStrings() ([]string, error) {
	var out []string
	var joined []byte
	var ends []int
	size := d.Type.Size
	err := d.eachBlock(func(b []byte, first int64) {
		if out == nil {
			out = make([]string, d.n)
		}
		joined, ends = joined[:0], ends[:0]
		for p := 0; p+size <= len(b); p += size {
			joined = append(joined, d.Type.unpad(b[p:p+size])...)
			ends = append(ends, len(joined))
		}
		s, start := string(joined), 0
		for k, e := range ends {
			out[first+int64(k)], start = s[start:e], e
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// unpad removes a fixed-length string's padding: trailing spaces for
// space padding (Pad 2), else everything from the first NUL.
func (t Datatype) unpad(b []byte) []byte {
	if t.Pad == 2 {
		return bytes.TrimRight(b, " ")
	}
	if k := bytes.IndexByte(b, 0); k >= 0 {
		return b[:k]
	}
	return b
}
