package h5read

import (
	"encoding/binary"
	"errors"
)

// errShort is recorded by rd when a field runs past its buffer.
var errShort = errors.New("structure truncated")

// rd decodes little-endian fields from a buffer; running past the end
// records errShort and yields zeros, so callers check err once.
type rd struct {
	b   []byte
	off int
	err error
}

func (r *rd) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b)-r.off {
		r.err = errShort
		return nil
	}
	p := r.b[r.off : r.off+n]
	r.off += n
	return p
}

func (r *rd) u8() byte {
	if p := r.take(1); p != nil {
		return p[0]
	}
	return 0
}

func (r *rd) u16() uint16 {
	if p := r.take(2); p != nil {
		return binary.LittleEndian.Uint16(p)
	}
	return 0
}

func (r *rd) u32() uint32 {
	if p := r.take(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (r *rd) u64() uint64 {
	if p := r.take(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

// uN reads an unsigned integer of n (1, 2, 4 or 8) bytes.
func (r *rd) uN(n int) uint64 {
	switch n {
	case 1:
		return uint64(r.u8())
	case 2:
		return uint64(r.u16())
	case 4:
		return uint64(r.u32())
	default:
		return r.u64()
	}
}

func (r *rd) skip(n int) { r.take(n) }

func (r *rd) left() int { return len(r.b) - r.off }

// cstring reads a null-terminated string and then skips padding so that
// the name with its null occupies a multiple of pad bytes (pad 1: none).
func (r *rd) cstring(pad int) string {
	if r.err != nil {
		return ""
	}
	rest := r.b[r.off:]
	n := -1
	for i, c := range rest {
		if c == 0 {
			n = i
			break
		}
	}
	if n < 0 {
		r.err = errShort
		return ""
	}
	s := string(rest[:n])
	total := (n + 1 + pad - 1) / pad * pad
	r.skip(total)
	return s
}
