package casatable

import (
	"encoding/binary"
	"math"
)

// magic opens every top-level AipsIO object (casacore's AipsIO::magicval_p).
const magic = 0xbebebebe

// enc builds AipsIO bytes in memory: casacore's canonical format, big
// endian, where every object starts with its length (itself included),
// its type name and its version. Objects nest; start and end bracket one
// and end fills in the length, as AipsIO::putstart and putend do on a
// seekable file.
type enc struct {
	b     []byte
	open  []int // offsets of the length fields of the objects not yet ended
	depth int
}

func (e *enc) u32(v uint32) { e.b = binary.BigEndian.AppendUint32(e.b, v) }
func (e *enc) i32(v int32)  { e.u32(uint32(v)) }
func (e *enc) u64(v uint64) { e.b = binary.BigEndian.AppendUint64(e.b, v) }
func (e *enc) f64(v float64) {
	e.u64(math.Float64bits(v))
}
func (e *enc) boolean(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

// str is an AipsIO String: its byte length, then its bytes.
func (e *enc) str(s string) {
	e.u32(uint32(len(s)))
	e.b = append(e.b, s...)
}

// start opens an object of the given type and version; the outermost one
// is preceded by the magic value.
func (e *enc) start(typ string, version uint32) {
	if len(e.open) == 0 {
		e.u32(magic)
	}
	e.open = append(e.open, len(e.b))
	e.u32(magic) // the length's place, as casacore writes it before patching
	e.str(typ)
	e.u32(version)
}

// end closes the innermost open object and writes its length.
func (e *enc) end() {
	at := e.open[len(e.open)-1]
	e.open = e.open[:len(e.open)-1]
	binary.BigEndian.PutUint32(e.b[at:], uint32(len(e.b)-at))
}

// iposition is casacore's IPosition (version 1: 32-bit values).
func (e *enc) iposition(shape []int) {
	e.start("IPosition", 1)
	e.u32(uint32(len(shape)))
	for _, n := range shape {
		e.i32(int32(n))
	}
	e.end()
}

// objectLen is the length AipsIO records for an object of type typ whose
// content after the version is n bytes: the length field, the type
// string, the version and the content.
func objectLen(typ string, n uint64) uint64 {
	return 4 + 4 + uint64(len(typ)) + 4 + n
}
