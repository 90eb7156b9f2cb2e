package h5write

import (
	"encoding/binary"
	"math"
)

// enc appends little-endian fields to a byte slice.
type enc struct{ b []byte }

func (e *enc) u8(v byte)      { e.b = append(e.b, v) }
func (e *enc) u16(v uint16)   { e.b = binary.LittleEndian.AppendUint16(e.b, v) }
func (e *enc) u32(v uint32)   { e.b = binary.LittleEndian.AppendUint32(e.b, v) }
func (e *enc) u64(v uint64)   { e.b = binary.LittleEndian.AppendUint64(e.b, v) }
func (e *enc) raw(p []byte)   { e.b = append(e.b, p...) }
func (e *enc) zeros(n int)    { e.b = append(e.b, make([]byte, n)...) }
func (e *enc) undefAddr()     { e.u64(undef) }
func (e *enc) addr(a uint64)  { e.u64(a) }
func (e *enc) length(n int64) { e.u64(uint64(n)) }

// name8 writes a null-terminated name padded with nulls to a multiple of 8
// bytes (compound and enum members, datatype version 1).
func (e *enc) name8(s string) {
	n := (len(s) + 1 + 7) / 8 * 8
	e.raw([]byte(s))
	e.zeros(n - len(s))
}

// undef is the "undefined address" (all bits set), File Format
// Specification II.A.
const undef = math.MaxUint64
