package h5read

import (
	"encoding/binary"
	"math"
	"strings"
)

// Int64s reads an integer dataset (any fixed-point size) as int64.
func (d *Dataset) Int64s() ([]int64, error) {
	if d.Type.Class != ClassFixed {
		return nil, pathErr(d.Path, "%s is not an integer type", d.Type)
	}
	b, err := d.Raw()
	if err != nil {
		return nil, err
	}
	out := make([]int64, d.n)
	for i := range out {
		p := b[i*d.Type.Size : (i+1)*d.Type.Size]
		v := decodeInt(p, d.Type)
		if !d.Type.Signed && d.Type.Size == 8 && v < 0 {
			return nil, pathErr(d.Path, "element %d overflows int64", i)
		}
		out[i] = v
	}
	return out, nil
}

// Float64s reads a float32 or float64 dataset as float64.
func (d *Dataset) Float64s() ([]float64, error) {
	if d.Type.Class != ClassFloat || (d.Type.Size != 4 && d.Type.Size != 8) {
		return nil, pathErr(d.Path, "%s is not float32 or float64", d.Type)
	}
	b, err := d.Raw()
	if err != nil {
		return nil, err
	}
	out := make([]float64, d.n)
	for i := range out {
		out[i] = decodeFloat(b[i*d.Type.Size:], d.Type)
	}
	return out, nil
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
	b, err := d.Raw()
	if err != nil {
		return nil, err
	}
	if vlen {
		out, err := d.f.varLenStrings(b, d.n)
		if err != nil {
			return nil, pathErr(d.Path, "%w", err)
		}
		return out, nil
	}
	out := make([]string, d.n)
	for i := range out {
		s := string(b[i*d.Type.Size : (i+1)*d.Type.Size])
		if d.Type.Pad == 2 {
			s = strings.TrimRight(s, " ")
		} else if k := strings.IndexByte(s, 0); k >= 0 {
			s = s[:k]
		}
		out[i] = s
	}
	return out, nil
}
