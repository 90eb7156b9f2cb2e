package h5write

import "fmt"

// Kind names the element types the writer supports.
type Kind int

// The supported element kinds.
const (
	KindInt32 Kind = iota + 1
	KindInt64
	KindUint64
	KindFloat32
	KindFloat64
	KindBool       // h5py's numpy-bool enum: int8 with FALSE=0, TRUE=1
	KindComplex64  // compound {r, i} of little-endian float32
	KindComplex128 // compound {r, i} of little-endian float64
	KindString     // fixed-length ASCII, null-padded (h5py's np.bytes_)
)

// String names the kind.
func (k Kind) String() string {
	names := map[Kind]string{KindInt32: "int32", KindInt64: "int64", KindUint64: "uint64",
		KindFloat32: "float32", KindFloat64: "float64", KindBool: "bool", KindComplex64: "complex64",
		KindComplex128: "complex128", KindString: "string"}
	if n, ok := names[k]; ok {
		return n
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Datatype is an HDF5 element type the writer can store. The zero value is
// invalid; use the predefined values or FixedString.
type Datatype struct {
	kind Kind
	size int // bytes per element
}

// Predefined datatypes, all little-endian as numpy/h5py write them on x86.
var (
	Int32             = Datatype{KindInt32, 4}
	Int64             = Datatype{KindInt64, 8}
	Uint64            = Datatype{KindUint64, 8}
	Float32           = Datatype{KindFloat32, 4}
	Float64           = Datatype{KindFloat64, 8}
	Bool              = Datatype{KindBool, 1}
	Complex64Compound = Datatype{KindComplex64, 8}
	// Complex128Compound is the {r, i} compound of float64 that pyuvdata
	// uses for visdata and h5py reads as complex128.
	Complex128Compound = Datatype{KindComplex128, 16}
)

// FixedString returns a fixed-length ASCII string type of n bytes, padded
// with nulls (H5T_STR_NULLPAD), as h5py writes numpy bytes_ values.
func FixedString(n int) (Datatype, error) {
	if n < 1 || n > 1<<31-1 {
		return Datatype{}, fmt.Errorf("h5write: fixed string length %d out of range", n)
	}
	return Datatype{KindString, n}, nil
}

// Kind reports the element kind.
func (t Datatype) Kind() Kind { return t.kind }

// Size reports the element size in bytes.
func (t Datatype) Size() int { return t.size }

func (t Datatype) valid() bool {
	if t.kind == KindString {
		return t.size >= 1
	}
	return t.kind >= KindInt32 && t.kind <= KindComplex128 && t.size > 0
}

// encode returns the Datatype message (File Format Specification
// IV.A.2.d). Every type uses datatype message version 1.
func (t Datatype) encode() []byte {
	switch t.kind {
	case KindInt32, KindInt64:
		return fixedPoint(t.size, true)
	case KindUint64:
		return fixedPoint(t.size, false)
	case KindFloat32:
		return float32Type()
	case KindFloat64:
		return float64Type()
	case KindBool:
		return boolEnum()
	case KindComplex64:
		return complexCompound(float32Type(), 4)
	case KindComplex128:
		return complexCompound(float64Type(), 8)
	case KindString:
		// Class 3, bit field: padding 1 (null pad), character set 0 (ASCII).
		return typeHeader(3, 0x01, 0, 0, t.size)
	}
	return nil
}

// typeHeader builds the 8-byte datatype message prefix: class and version
// (version 1 in the high nibble), 24 class bits, and the element size.
func typeHeader(class byte, b0, b1, b2 byte, size int) []byte {
	var e enc
	e.u8(1<<4 | class)
	e.u8(b0)
	e.u8(b1)
	e.u8(b2)
	e.u32(uint32(size))
	return e.b
}

// fixedPoint is class 0: bit 3 of the bit field marks signed; byte order
// bit 0 = little-endian. Properties: bit offset (2 bytes), precision (2).
func fixedPoint(size int, signed bool) []byte {
	var flags byte
	if signed {
		flags = 0x08
	}
	e := enc{b: typeHeader(0, flags, 0, 0, size)}
	e.u16(0)
	e.u16(uint16(8 * size))
	return e.b
}

// ieeeFloat is class 1, an IEEE 754 float of size bytes whose exponent
// has expBits bits: mantissa normalisation 2 (implied leading 1, bits 4-5
// = 0x20), the sign in the top bit; properties: offset 0, precision
// 8·size, exponent just above the mantissa, mantissa at bit 0, exponent
// bias 2^(expBits−1) − 1. Double: exponent at bit 52 of size 11, bias
// 1023; single: at 23 of size 8, bias 127.
func ieeeFloat(size, expBits int) []byte {
	bits := 8 * size
	mant := bits - 1 - expBits
	e := enc{b: typeHeader(1, 0x20, byte(bits-1), 0, size)}
	e.u16(0)
	e.u16(uint16(bits))
	e.u8(byte(mant))
	e.u8(byte(expBits))
	e.u8(0)
	e.u8(byte(mant))
	e.u32(1<<(expBits-1) - 1)
	return e.b
}

func float64Type() []byte { return ieeeFloat(8, 11) }

func float32Type() []byte { return ieeeFloat(4, 8) }

// boolEnum is class 8 (enumeration) version 1 with two members over a
// signed 8-bit base: names null-terminated and padded to a multiple of 8
// bytes, then the values packed in base-type size.
func boolEnum() []byte {
	e := enc{b: typeHeader(8, 2, 0, 0, 1)}
	e.raw(fixedPoint(1, true))
	e.name8("FALSE")
	e.name8("TRUE")
	e.u8(0)
	e.u8(1)
	return e.b
}

// complexCompound is class 6 (compound) version 1 with members "r" at 0 and
// "i" at half; each member: name padded to 8, byte offset (4), dimensionality
// (1), reserved (3), permutation (4), reserved (4), four dimension sizes (16),
// then the member's datatype message.
func complexCompound(member []byte, half int) []byte {
	e := enc{b: typeHeader(6, 2, 0, 0, 2*half)}
	for i, name := range []string{"r", "i"} {
		e.name8(name)
		e.u32(uint32(i * half))
		e.zeros(3 + 1 + 4 + 4 + 16)
		e.raw(member)
	}
	return e.b
}
