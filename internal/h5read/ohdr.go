package h5read

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// Header message types used here (File Format Specification IV.A.2).
const (
	msgDataspace    = 0x01
	msgLinkInfo     = 0x02
	msgDatatype     = 0x03
	msgLink         = 0x06
	msgLayout       = 0x08
	msgFilters      = 0x0B
	msgContinuation = 0x10
	msgSymbolTable  = 0x11
)

// Limits on structures read from a file, so hostile input cannot make the
// reader loop or allocate without bound.
const (
	maxContinuations = 1024
	maxMessages      = 1 << 16
)

// hmsg is one header message.
type hmsg struct {
	typ   uint16
	flags byte
	data  []byte
}

// span is a block of header messages still to parse.
type span struct {
	addr, size uint64
}

// messages returns all messages of the object header at addr, following
// continuation messages.
func (f *File) messages(addr uint64) ([]hmsg, error) {
	prefix, err := f.read(addr, min(f.size-int64(min(addr, uint64(f.size))), 64))
	if err != nil {
		return nil, fmt.Errorf("object header at %d: %w", addr, err)
	}
	if len(prefix) >= 4 && bytes.Equal(prefix[:4], []byte("OHDR")) {
		return f.messagesV2(addr, prefix)
	}
	if len(prefix) >= 1 && prefix[0] == 1 {
		return f.messagesV1(addr, prefix)
	}
	return nil, fmt.Errorf("no object header at %d", addr)
}

// messagesV1 parses a version 1 object header (IV.A.1.a): version, reserved,
// message count (2), reference count (4), header size (4), 4 bytes of
// padding, then 8-byte aligned messages.
func (f *File) messagesV1(addr uint64, prefix []byte) ([]hmsg, error) {
	if len(prefix) < 16 {
		return nil, fmt.Errorf("object header at %d truncated", addr)
	}
	size := uint64(binary.LittleEndian.Uint32(prefix[8:12]))
	var out []hmsg
	queue := []span{{addr + 16, size}}
	for i := 0; i < len(queue); i++ {
		if i > maxContinuations {
			return nil, fmt.Errorf("object header at %d: too many continuation blocks", addr)
		}
		b, err := f.read(queue[i].addr, int64(min(queue[i].size, uint64(f.size))))
		if err != nil {
			return nil, fmt.Errorf("object header at %d: %w", addr, err)
		}
		r := &rd{b: b}
		for r.left() >= 8 {
			m := hmsg{typ: r.u16()}
			n := int(r.u16())
			m.flags = r.u8()
			r.skip(3)
			m.data = r.take(n)
			if r.err != nil {
				return nil, fmt.Errorf("object header at %d: message %#x: %w", addr, m.typ, r.err)
			}
			if out, queue, err = collect(out, queue, m); err != nil {
				return nil, fmt.Errorf("object header at %d: %w", addr, err)
			}
		}
	}
	return out, nil
}

// messagesV2 parses a version 2 object header (IV.A.1.b): "OHDR", version
// 2, flags, optional times and attribute limits, chunk #0 size (1-8 bytes),
// messages, checksum; continuation blocks are "OCHK", messages, checksum.
func (f *File) messagesV2(addr uint64, prefix []byte) ([]hmsg, error) {
	r := &rd{b: prefix, off: 4}
	if v := r.u8(); v != 2 {
		return nil, fmt.Errorf("object header at %d: version %d", addr, v)
	}
	flags := r.u8()
	if flags&0x20 != 0 {
		r.skip(16)
	}
	if flags&0x10 != 0 {
		r.skip(4)
	}
	size := r.uN(1 << (flags & 3))
	if r.err != nil {
		return nil, fmt.Errorf("object header at %d: %w", addr, r.err)
	}
	start := uint64(r.off)
	if size > uint64(f.size) {
		return nil, fmt.Errorf("object header at %d: chunk of %d bytes exceeds the file", addr, size)
	}
	var out []hmsg
	queue := []span{{addr, start + size + 4}}
	for i := 0; i < len(queue); i++ {
		if i > maxContinuations {
			return nil, fmt.Errorf("object header at %d: too many continuation blocks", addr)
		}
		b, err := f.read(queue[i].addr, int64(min(queue[i].size, uint64(f.size))))
		if err != nil {
			return nil, fmt.Errorf("object header at %d: %w", addr, err)
		}
		skip, sig := int(start), "OHDR"
		if i > 0 {
			skip, sig = 4, "OCHK"
		}
		if len(b) < skip+4 || string(b[:4]) != sig {
			return nil, fmt.Errorf("object header at %d: block at %d lacks %s", addr, queue[i].addr, sig)
		}
		body := b[:len(b)-4]
		if binary.LittleEndian.Uint32(b[len(b)-4:]) != checksum(body) {
			return nil, fmt.Errorf("object header at %d: checksum mismatch in block at %d", addr, queue[i].addr)
		}
		r := &rd{b: body, off: skip}
		hdr := 4
		if flags&0x04 != 0 {
			hdr = 6
		}
		for r.left() >= hdr {
			m := hmsg{typ: uint16(r.u8())}
			n := int(r.u16())
			m.flags = r.u8()
			if flags&0x04 != 0 {
				r.skip(2)
			}
			m.data = r.take(n)
			if r.err != nil {
				return nil, fmt.Errorf("object header at %d: message %#x: %w", addr, m.typ, r.err)
			}
			if out, queue, err = collect(out, queue, m); err != nil {
				return nil, fmt.Errorf("object header at %d: %w", addr, err)
			}
		}
	}
	return out, nil
}

// collect appends m to out, or queues the block a continuation message
// (IV.A.2.q: offset, length) points to.
func collect(out []hmsg, queue []span, m hmsg) ([]hmsg, []span, error) {
	if len(out) >= maxMessages {
		return nil, nil, fmt.Errorf("too many messages")
	}
	switch m.typ {
	case 0: // NIL
		return out, queue, nil
	case msgContinuation:
		r := &rd{b: m.data}
		s := span{r.u64(), r.u64()}
		if r.err != nil {
			return nil, nil, fmt.Errorf("continuation message: %w", r.err)
		}
		for _, q := range queue {
			if q.addr == s.addr {
				return nil, nil, fmt.Errorf("continuation loop at %d", s.addr)
			}
		}
		return out, append(queue, s), nil
	}
	return append(out, m), queue, nil
}

// find returns the first message of type typ.
func find(msgs []hmsg, typ uint16) (hmsg, bool) {
	for _, m := range msgs {
		if m.typ == typ {
			return m, true
		}
	}
	return hmsg{}, false
}
