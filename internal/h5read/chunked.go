package h5read

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
)

// Filter identifiers (IV.A.2.l) and the LZF filter h5py registers.
const (
	filterDeflate = 1
	filterShuffle = 2
	filterLZF     = 32000
)

// maxRatio is the largest expansion a filter can produce from its input:
// deflate's 1032:1, LZF's 88:1 (a 3-byte back reference yields 264 bytes).
func maxRatio(id int) int64 {
	switch id {
	case filterDeflate:
		return 1032
	case filterLZF:
		return 88
	}
	return 1
}

type filter struct {
	id     int
	client []uint32
}

// parseFilters decodes a Filter Pipeline message (IV.A.2.l), version 1
// (names padded to 8, client data padded to an even count) or 2 (names
// only for ids >= 256, no padding).
func parseFilters(b []byte) ([]filter, error) {
	r := &rd{b: b}
	version, n := r.u8(), int(r.u8())
	if version == 1 {
		r.skip(6)
	} else if version != 2 {
		return nil, fmt.Errorf("version %d", version)
	}
	var out []filter
	for range n {
		f := filter{id: int(r.u16())}
		nameLen := 0
		if version == 1 || f.id >= 256 {
			nameLen = int(r.u16())
		}
		r.u16() // flags
		nc := int(r.u16())
		r.skip(nameLen)
		if nc > r.left()/4 {
			return nil, errShort
		}
		for range nc {
			f.client = append(f.client, r.u32())
		}
		if version == 1 && nc%2 == 1 {
			r.skip(4)
		}
		if r.err != nil {
			return nil, r.err
		}
		switch f.id {
		case filterDeflate, filterShuffle, filterLZF:
		default:
			return nil, fmt.Errorf("filter %d: %w", f.id, ErrUnsupported)
		}
		out = append(out, f)
	}
	return out, r.err
}

// chunkRec is one stored chunk: address, stored size, filter mask and the
// element offsets of its first element.
type chunkRec struct {
	addr uint64
	size uint32
	mask uint32
	off  []int
}

// readChunked gathers the chunks from the dataset's v1 B-tree (node type 1,
// keys: chunk size (4), filter mask (4), rank+1 offsets (8 each)) and
// assembles the dataset. It first checks that the stored chunks can hold
// nbytes at all, so the output is never larger than the file implies.
func (d *Dataset) readChunked(nbytes int64) ([]byte, error) {
	rank := len(d.Shape)
	chunkElems := int64(1)
	for _, c := range d.chunk {
		if chunkElems *= int64(c); chunkElems > 1<<31 {
			return nil, fmt.Errorf("chunks of more than 2^31 elements")
		}
	}
	chunkBytes := chunkElems * int64(d.Type.Size)
	if chunkBytes > 1<<31 {
		return nil, fmt.Errorf("chunks of %d bytes", chunkBytes)
	}
	ratio := int64(1)
	for _, f := range d.filters {
		ratio *= maxRatio(f.id)
	}
	var recs []chunkRec
	capacity, stored := int64(0), int64(0)
	seen := map[string]bool{}
	walk := d.f.walkBtree
	if d.addr == undef { // no chunk written yet: an empty index
		walk = func(uint64, byte, int, func(uint64, []byte) error) error { return nil }
	}
	err := walk(d.addr, 1, 8+8*(rank+1), func(child uint64, key []byte) error {
		rec := chunkRec{addr: child, size: binary.LittleEndian.Uint32(key), mask: binary.LittleEndian.Uint32(key[4:])}
		for k := range rank {
			o := binary.LittleEndian.Uint64(key[8+8*k:])
			if o >= uint64(d.Shape[k]) || o%uint64(d.chunk[k]) != 0 {
				return fmt.Errorf("chunk offset %d in dimension %d", o, k)
			}
			rec.off = append(rec.off, int(o))
		}
		if id := string(key[8 : 8+8*rank]); seen[id] {
			return fmt.Errorf("chunk at %v stored twice", rec.off)
		} else {
			seen[id] = true
		}
		// Chunks are distinct regions of the file, and a chunk decodes to
		// at most ratio times its stored size.
		if stored += int64(rec.size); stored > d.f.size {
			return fmt.Errorf("chunks store more bytes than the file has")
		}
		if chunkBytes > int64(rec.size)*ratio {
			return fmt.Errorf("chunk at %v of %d stored bytes cannot hold %d", rec.off, rec.size, chunkBytes)
		}
		capacity += chunkBytes
		recs = append(recs, rec)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("chunk index: %w", err)
	}
	if capacity < nbytes {
		return nil, fmt.Errorf("%d bytes declared but the stored chunks hold at most %d", nbytes, capacity)
	}
	out := make([]byte, nbytes)
	for _, rec := range recs {
		stored, err := d.f.read(rec.addr, int64(rec.size))
		if err != nil {
			return nil, fmt.Errorf("chunk at %v: %w", rec.off, err)
		}
		data, err := d.unfilter(stored, rec.mask, int(chunkBytes))
		if err != nil {
			return nil, fmt.Errorf("chunk at %v: %w", rec.off, err)
		}
		d.place(out, data, rec.off)
	}
	return out, nil
}

// unfilter undoes the pipeline (last filter first), skipping filters whose
// bit is set in mask; the result must be exactly n bytes.
func (d *Dataset) unfilter(b []byte, mask uint32, n int) ([]byte, error) {
	for i := len(d.filters) - 1; i >= 0; i-- {
		if i < 32 && mask&(1<<i) != 0 {
			continue
		}
		var err error
		switch d.filters[i].id {
		case filterDeflate:
			b, err = inflate(b, n)
		case filterLZF:
			b, err = lzfDecompress(b, n)
		case filterShuffle:
			b = unshuffle(b, d.Type.Size)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(b) != n {
		return nil, fmt.Errorf("%d bytes after filters, want %d", len(b), n)
	}
	return b, nil
}

func inflate(b []byte, n int) ([]byte, error) {
	zr, err := zlib.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("deflate: %w", err)
	}
	out, err := io.ReadAll(io.LimitReader(zr, int64(n)+1))
	if err != nil {
		return nil, fmt.Errorf("deflate: %w", err)
	}
	return out, nil
}

// unshuffle undoes the shuffle filter: byte k of every element was stored
// in the k-th of size planes; a trailing partial element is left as is.
func unshuffle(b []byte, size int) []byte {
	if size <= 1 {
		return b
	}
	n := len(b) / size
	out := make([]byte, len(b))
	for k := range size {
		for i := range n {
			out[i*size+k] = b[k*n+i]
		}
	}
	copy(out[n*size:], b[n*size:])
	return out
}

// place copies a full chunk whose first element is at off into the
// C-ordered dataset buffer out, clipping at the dataset's edges.
func (d *Dataset) place(out, chunk []byte, off []int) {
	rank, es := len(d.Shape), d.Type.Size
	row := min(d.chunk[rank-1], d.Shape[rank-1]-off[rank-1]) * es
	ext := make([]int, rank-1) // chunk extent inside the dataset
	for k := range ext {
		ext[k] = min(d.chunk[k], d.Shape[k]-off[k])
	}
	idx := make([]int, rank-1) // position within the chunk, outer dimensions
	for {
		src, dst := 0, 0
		for k := range rank - 1 {
			src = src*d.chunk[k] + idx[k]
			dst = dst*d.Shape[k] + off[k] + idx[k]
		}
		src = src * d.chunk[rank-1] * es
		dst = (dst*d.Shape[rank-1] + off[rank-1]) * es
		copy(out[dst:dst+row], chunk[src:src+row])
		k := rank - 2
		for ; k >= 0; k-- {
			if idx[k]++; idx[k] < ext[k] {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}
