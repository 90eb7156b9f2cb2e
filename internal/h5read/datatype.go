package h5read

import "fmt"

// Datatype classes (File Format Specification IV.A.2.d).
const (
	ClassFixed    = 0
	ClassFloat    = 1
	ClassString   = 3
	ClassCompound = 6
	ClassEnum     = 8
	ClassVarLen   = 9
)

// Variable-length kinds (class 9, bits 0-3).
const (
	varLenSequence = 0
	varLenString   = 1
)

// varLenRefSize is the size of a variable-length element as stored with
// 8-byte offsets: sequence length (4), global heap collection address (8)
// and object index (4).
const varLenRefSize = 16

// Datatype is a decoded HDF5 datatype message.
type Datatype struct {
	Class     int
	Size      int  // bytes per element
	Signed    bool // fixed point
	BigEndian bool // fixed point and float
	Pad       int  // string padding: 0 null-terminated, 1 null-padded, 2 space-padded
	VarString bool // variable-length: a string (else a sequence of Base)
	Members   []Member
	Base      *Datatype // enum and variable-length base type
	Names     []string  // enum member names
	Values    []int64   // enum member values
}

// Member is one member of a compound datatype.
type Member struct {
	Name   string
	Offset int
	Type   Datatype
}

// String describes the type in a few words, for error messages.
func (t Datatype) String() string {
	switch t.Class {
	case ClassFixed:
		if t.Signed {
			return fmt.Sprintf("int%d", 8*t.Size)
		}
		return fmt.Sprintf("uint%d", 8*t.Size)
	case ClassFloat:
		return fmt.Sprintf("float%d", 8*t.Size)
	case ClassString:
		return fmt.Sprintf("string%d", t.Size)
	case ClassCompound:
		s := "compound{"
		for i, m := range t.Members {
			if i > 0 {
				s += ","
			}
			s += m.Name + ":" + m.Type.String()
		}
		return s + "}"
	case ClassEnum:
		return fmt.Sprintf("enum%v", t.Names)
	case ClassVarLen:
		if t.VarString {
			return "vlen-string"
		}
		if t.Base != nil {
			return "vlen-sequence of " + t.Base.String()
		}
	}
	return fmt.Sprintf("class %d", t.Class)
}

const maxTypeDepth = 8

// parseDatatype decodes a datatype message.
func parseDatatype(b []byte) (Datatype, error) {
	r := &rd{b: b}
	t, err := readType(r, 0)
	if err == nil && r.err != nil {
		err = r.err
	}
	return t, err
}

func readType(r *rd, depth int) (Datatype, error) {
	if depth > maxTypeDepth {
		return Datatype{}, fmt.Errorf("datatype nested deeper than %d", maxTypeDepth)
	}
	cv := r.u8()
	bits := [3]byte{r.u8(), r.u8(), r.u8()}
	t := Datatype{Class: int(cv & 15), Size: int(r.u32())}
	version := int(cv >> 4)
	if r.err != nil {
		return t, r.err
	}
	if t.Size < 1 || t.Size > 1<<20 {
		return t, fmt.Errorf("datatype size %d out of range", t.Size)
	}
	switch t.Class {
	case ClassFixed:
		t.BigEndian, t.Signed = bits[0]&1 != 0, bits[0]&8 != 0
		r.skip(4)
	case ClassFloat:
		t.BigEndian = bits[0]&1 != 0
		if bits[0]&0x40 != 0 {
			return t, fmt.Errorf("VAX float order is not supported")
		}
		r.skip(12)
	case ClassString:
		t.Pad = int(bits[0] & 15)
	case ClassCompound:
		return t, readCompound(r, &t, version, int(bits[0])|int(bits[1])<<8, depth)
	case ClassEnum:
		return t, readEnum(r, &t, version, int(bits[0])|int(bits[1])<<8, depth)
	case ClassVarLen:
		return t, readVarLen(r, &t, bits, depth)
	default:
		return t, fmt.Errorf("unsupported datatype class %d", t.Class)
	}
	return t, r.err
}

// readCompound decodes compound members (IV.A.2.d, class 6): version 1
// names padded to 8 bytes, 4-byte offset and array fields; version 2 the
// same without array fields; version 3 unpadded names and offsets of the
// fewest bytes that hold the compound's size.
func readCompound(r *rd, t *Datatype, version, n, depth int) error {
	offBytes := 1
	for s := t.Size; s > 255; s >>= 8 {
		offBytes++
	}
	for range n {
		var m Member
		switch version {
		case 1, 2:
			m.Name = r.cstring(8)
			m.Offset = int(r.u32())
			if version == 1 {
				if dims := r.u8(); dims != 0 {
					return fmt.Errorf("array members are not supported")
				}
				r.skip(3 + 4 + 4 + 16)
			}
		case 3:
			m.Name = r.cstring(1)
			m.Offset = int(r.uN(offBytes))
		default:
			return fmt.Errorf("compound datatype version %d", version)
		}
		mt, err := readType(r, depth+1)
		if err != nil {
			return err
		}
		if r.err != nil {
			return r.err
		}
		if m.Offset < 0 || m.Offset+mt.Size > t.Size {
			return fmt.Errorf("compound member %q outside its %d bytes", m.Name, t.Size)
		}
		m.Type = mt
		t.Members = append(t.Members, m)
	}
	return r.err
}

// readEnum decodes an enumeration (class 8): base type, member names
// (padded to 8 bytes before version 3), then the values in the base type.
func readEnum(r *rd, t *Datatype, version, n, depth int) error {
	base, err := readType(r, depth+1)
	if err != nil {
		return err
	}
	if base.Class != ClassFixed || base.Size > 8 {
		return fmt.Errorf("enum over %s is not supported", base)
	}
	t.Base = &base
	pad := 8
	if version >= 3 {
		pad = 1
	}
	for range n {
		t.Names = append(t.Names, r.cstring(pad))
		if r.err != nil {
			return r.err
		}
	}
	for range n {
		p := r.take(base.Size)
		if r.err != nil {
			return r.err
		}
		t.Values = append(t.Values, decodeInt(p, base))
	}
	return nil
}

// readVarLen decodes a variable-length type (class 9): kind in bits 0-3
// (sequence or string), padding in bits 4-7, then the base type. Elements
// are references into global heap collections (see globalObject).
func readVarLen(r *rd, t *Datatype, bits [3]byte, depth int) error {
	kind := int(bits[0] & 15)
	if kind != varLenSequence && kind != varLenString {
		return fmt.Errorf("variable-length kind %d", kind)
	}
	if t.Size != varLenRefSize {
		return fmt.Errorf("variable-length element of %d bytes (want %d)", t.Size, varLenRefSize)
	}
	t.VarString, t.Pad = kind == varLenString, int(bits[0]>>4)
	base, err := readType(r, depth+1)
	if err != nil {
		return err
	}
	if t.VarString && (base.Class != ClassFixed && base.Class != ClassString || base.Size != 1) {
		return fmt.Errorf("variable-length string of %s characters", base)
	}
	t.Base = &base
	return r.err
}

// decodeInt decodes one fixed-point value of type t from p.
func decodeInt(p []byte, t Datatype) int64 {
	var u uint64
	for i := range p {
		k := i
		if t.BigEndian {
			k = len(p) - 1 - i
		}
		u |= uint64(p[k]) << (8 * i)
	}
	if t.Signed && len(p) < 8 && u&(1<<(8*len(p)-1)) != 0 {
		u |= ^uint64(0) << (8 * len(p))
	}
	return int64(u)
}
