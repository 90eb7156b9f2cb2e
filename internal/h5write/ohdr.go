package h5write

// Header message types (File Format Specification IV.A.2).
const (
	msgDataspace = 0x01
	msgLinkInfo  = 0x02
	msgDatatype  = 0x03
	msgFillValue = 0x05
	msgLink      = 0x06
	msgLayout    = 0x08
	msgGroupInfo = 0x0A
)

// message is one header message: its type and encoded body.
type message struct {
	typ  byte
	body []byte
	flag byte
}

// objectHeader encodes a version 2 object header (IV.A.1.b) holding msgs in
// a single chunk: "OHDR", version 2, flags 0x02 (chunk #0 size stored in 4
// bytes; no times, no attribute phase change values), the chunk size, the
// messages (type 1 byte, size 2 bytes, flags 1 byte, data), and the lookup3
// checksum of everything before it.
func objectHeader(msgs []message) []byte {
	var body enc
	for _, m := range msgs {
		body.u8(m.typ)
		body.u16(uint16(len(m.body)))
		body.u8(m.flag)
		body.raw(m.body)
	}
	var e enc
	e.raw([]byte("OHDR"))
	e.u8(2)
	e.u8(0x02)
	e.u32(uint32(len(body.b)))
	e.raw(body.b)
	e.u32(Checksum(e.b))
	return e.b
}

// Message flag bit 0: the message is constant (used for datatypes, as the
// HDF5 library marks them).
const msgFlagConstant = 0x01

// dataspaceMsg is the version 2 Dataspace message (IV.A.2.b): version,
// rank, flags (no maximum sizes), type (0 scalar, 1 simple, 2 null), and the
// dimension sizes as lengths.
func dataspaceMsg(shape []int, null bool) message {
	var e enc
	e.u8(2)
	e.u8(byte(len(shape)))
	e.u8(0)
	switch {
	case null:
		e.u8(2)
	case len(shape) == 0:
		e.u8(0)
	default:
		e.u8(1)
	}
	for _, d := range shape {
		e.length(int64(d))
	}
	return message{typ: msgDataspace, body: e.b}
}

// fillValueMsg is the version 3 Fill Value message (IV.A.2.f) with flags
// 0x09: space allocation time early (1), fill value write time "if set" (2
// in bits 2-3), no fill value defined, which is what the data being written
// in full by the caller amounts to.
func fillValueMsg() message {
	return message{typ: msgFillValue, body: []byte{3, 0x09}}
}

// contiguousLayoutMsg is the version 3 Data Layout message (IV.A.2.i),
// class 1 (contiguous): address and size of the raw data.
func contiguousLayoutMsg(addr uint64, size int64) message {
	var e enc
	e.u8(3)
	e.u8(1)
	e.addr(addr)
	e.length(size)
	return message{typ: msgLayout, body: e.b}
}

// linkInfoMsg is the version 0 Link Info message (IV.A.2.c) of a group
// whose links are all stored compactly in its header: no creation order,
// undefined fractal heap and name-index B-tree addresses.
func linkInfoMsg() message {
	var e enc
	e.u8(0)
	e.u8(0)
	e.undefAddr()
	e.undefAddr()
	return message{typ: msgLinkInfo, body: e.b}
}

// groupInfoMsg is the version 0 Group Info message (IV.A.2.k) with default
// storage thresholds.
func groupInfoMsg() message {
	return message{typ: msgGroupInfo, body: []byte{0, 0}}
}

// hardLinkMsg is the version 1 Link message (IV.A.2.g) for a hard link:
// flags 0 when the name fits a 1-byte length (bits 0-1 = 0) or 1 for a
// 2-byte length, no link type field (hard), no creation order, ASCII name;
// then the object header address.
func hardLinkMsg(name string, addr uint64) message {
	var e enc
	e.u8(1)
	if len(name) < 256 {
		e.u8(0)
		e.u8(byte(len(name)))
	} else {
		e.u8(1)
		e.u16(uint16(len(name)))
	}
	e.raw([]byte(name))
	e.addr(addr)
	return message{typ: msgLink, body: e.b}
}
