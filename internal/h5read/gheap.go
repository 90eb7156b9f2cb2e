package h5read

import (
	"encoding/binary"
	"fmt"
)

// gcolHeaderSize is the size of a global heap collection's header and of
// each object's header: 16 bytes with 8-byte lengths.
const gcolHeaderSize = 16

// gheaps caches the global heap collections read from a file, and how many
// bytes they hold together: collections are disjoint regions of the file,
// so a file whose references make the reader load more than the file's
// size is refused instead of reading it again and again.
type gheaps struct {
	cols   map[uint64]map[uint32][]byte
	loaded int64
}

// globalObject returns the data of object index in the global heap
// collection at addr (III.E).
func (f *File) globalObject(addr uint64, index uint32) ([]byte, error) {
	col, ok := f.gheap.cols[addr]
	if !ok {
		var err error
		if col, err = f.globalCollection(addr); err != nil {
			return nil, err
		}
		if f.gheap.cols == nil {
			f.gheap.cols = map[uint64]map[uint32][]byte{}
		}
		f.gheap.cols[addr] = col
	}
	obj, ok := col[index]
	if !ok || index == 0 {
		return nil, fmt.Errorf("global heap collection at %d has no object %d", addr, index)
	}
	return obj, nil
}

// globalCollection reads the global heap collection at addr: "GCOL",
// version 1, 3 reserved bytes, collection size (8, header included), then
// objects — index (2), reference count (2), reserved (4), size (8), data
// padded to 8 bytes — up to the free-space object (index 0) or the end.
func (f *File) globalCollection(addr uint64) (map[uint32][]byte, error) {
	head, err := f.read(addr, gcolHeaderSize)
	if err != nil {
		return nil, fmt.Errorf("global heap collection: %w", err)
	}
	if string(head[:4]) != "GCOL" {
		return nil, fmt.Errorf("no global heap collection at %d", addr)
	}
	if head[4] != 1 {
		return nil, fmt.Errorf("global heap collection at %d: version %d", addr, head[4])
	}
	size := binary.LittleEndian.Uint64(head[8:])
	if size < gcolHeaderSize {
		return nil, fmt.Errorf("global heap collection at %d declares %d bytes, less than its header", addr, size)
	}
	if size > uint64(f.size)-addr {
		return nil, fmt.Errorf("global heap collection at %d declares %d bytes, past the end of the %d-byte file", addr, size, f.size)
	}
	if f.gheap.loaded += int64(size); f.gheap.loaded > f.size {
		return nil, fmt.Errorf("global heap collection at %d: collections of more bytes than the %d-byte file holds", addr, f.size)
	}
	b, err := f.read(addr, int64(size))
	if err != nil {
		return nil, fmt.Errorf("global heap collection at %d: %w", addr, err)
	}
	return parseCollection(b[gcolHeaderSize:])
}

// parseCollection splits a collection's objects by index.
func parseCollection(b []byte) (map[uint32][]byte, error) {
	objs := map[uint32][]byte{}
	r := &rd{b: b}
	for r.left() >= gcolHeaderSize {
		index := uint32(r.u16())
		r.skip(2 + 4)
		size := r.u64()
		if index == 0 { // free space: the rest of the collection
			break
		}
		if size > uint64(r.left()) {
			return nil, fmt.Errorf("global heap object %d of %d bytes overruns its collection", index, size)
		}
		if _, dup := objs[index]; dup {
			return nil, fmt.Errorf("global heap object %d stored twice", index)
		}
		objs[index] = r.take(int(size))
		r.skip(min(int(-size&7), r.left()))
	}
	return objs, nil
}

// varLenStrings decodes the variable-length string references in b (one
// varLenRefSize-byte element each). Their total length may not exceed the
// file's size: each string is its own heap object, so a valid file holds
// them all, and a forged file repeating one reference cannot make the
// result outgrow its input.
func (f *File) varLenStrings(b []byte, n int64) ([]string, error) {
	out := make([]string, n)
	total := int64(0)
	for i := range out {
		r := &rd{b: b[i*varLenRefSize : (i+1)*varLenRefSize]}
		length, addr, index := uint64(r.u32()), r.u64(), r.u32()
		if length == 0 {
			continue
		}
		if total += int64(length); total > f.size {
			return nil, fmt.Errorf("element %d: variable-length strings of more bytes than the %d-byte file holds", i, f.size)
		}
		obj, err := f.globalObject(addr, index)
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
		if uint64(len(obj)) < length {
			return nil, fmt.Errorf("element %d: string of %d bytes in a %d-byte heap object", i, length, len(obj))
		}
		out[i] = string(obj[:length])
	}
	return out, nil
}
