package h5read

import (
	"fmt"
	"math"
)

// maxRank is HDF5's limit on dataspace rank.
const maxRank = 32

// Layout classes (IV.A.2.i).
const (
	layoutCompact    = 0
	layoutContiguous = 1
	layoutChunked    = 2
)

// Dataset is a dataset's metadata; its Read methods decode the data.
type Dataset struct {
	Path  string
	Type  Datatype
	Shape []int // nil for scalar and null dataspaces
	Null  bool  // null dataspace: no data at all

	f       *File
	msgs    []hmsg // the object header's messages (attributes)
	n       int64  // elements
	class   int
	compact []byte
	addr    uint64
	size    uint64 // contiguous storage size
	chunk   []int  // chunk dimensions (elements), rank = len(Shape)
	filters []filter
}

// Dataset opens the dataset at path.
func (f *File) Dataset(path string) (*Dataset, error) {
	o, err := f.lookup(path)
	if err != nil {
		return nil, err
	}
	d := &Dataset{Path: o.path, f: f, msgs: o.msgs}
	if err := d.parse(o.msgs); err != nil {
		return nil, pathErr(o.path, "%w", err)
	}
	return d, nil
}

func (d *Dataset) parse(msgs []hmsg) error {
	space, ok1 := find(msgs, msgDataspace)
	dtype, ok2 := find(msgs, msgDatatype)
	layout, ok3 := find(msgs, msgLayout)
	if !ok1 || !ok2 || !ok3 {
		return fmt.Errorf("not a dataset (dataspace, datatype or layout missing)")
	}
	if dtype.flags&0x02 != 0 {
		return fmt.Errorf("shared (committed) datatypes: %w", ErrUnsupported)
	}
	var err error
	if d.Type, err = parseDatatype(dtype.data); err != nil {
		return fmt.Errorf("datatype: %w", err)
	}
	if err = d.parseSpace(space.data); err != nil {
		return fmt.Errorf("dataspace: %w", err)
	}
	if d.n > (1<<50)/int64(d.Type.Size) {
		return fmt.Errorf("%d elements of %d bytes is too large", d.n, d.Type.Size)
	}
	if err = d.parseLayout(layout.data); err != nil {
		return fmt.Errorf("layout: %w", err)
	}
	if m, ok := find(msgs, msgFilters); ok {
		if d.filters, err = parseFilters(m.data); err != nil {
			return fmt.Errorf("filter pipeline: %w", err)
		}
	}
	return nil
}

// parseSpace decodes a Dataspace message (IV.A.2.b) version 1 (version,
// rank, flags, 5 reserved bytes) or 2 (version, rank, flags, type), then
// the dimension sizes.
func (d *Dataset) parseSpace(b []byte) error {
	r := &rd{b: b}
	version, rank := r.u8(), int(r.u8())
	r.u8()
	switch version {
	case 1:
		r.skip(5)
	case 2:
		switch r.u8() {
		case 0, 1:
		case 2:
			d.Null = true
		default:
			return fmt.Errorf("unknown dataspace type")
		}
	default:
		return fmt.Errorf("version %d", version)
	}
	if rank > maxRank {
		return fmt.Errorf("rank %d", rank)
	}
	d.n = 1
	if d.Null {
		d.n, rank = 0, 0
	}
	for range rank {
		dim := r.u64()
		if dim > math.MaxInt32 || (dim > 0 && d.n > (1<<50)/int64(dim)) {
			return fmt.Errorf("dimension %d too large", dim)
		}
		d.Shape = append(d.Shape, int(dim))
		d.n *= int64(dim)
	}
	return r.err
}

// parseLayout decodes a Data Layout message version 3 or 4 (IV.A.2.i) for
// compact (size, data), contiguous (address, size) and version 3 chunked
// (rank+1, v1 B-tree address, chunk dimensions of 4 bytes, the last the
// element size) storage.
func (d *Dataset) parseLayout(b []byte) error {
	r := &rd{b: b}
	version := r.u8()
	d.class = int(r.u8())
	if version != 3 && version != 4 {
		return fmt.Errorf("layout version %d: %w", version, ErrUnsupported)
	}
	switch d.class {
	case layoutCompact:
		n := int(r.u16())
		d.compact = r.take(n)
	case layoutContiguous:
		d.addr, d.size = r.u64(), r.u64()
	case layoutChunked:
		if version != 3 {
			return fmt.Errorf("version 4 chunk indexes (chunked datasets written with h5py's libver='latest'): %w", ErrUnsupported)
		}
		rank := int(r.u8()) - 1
		d.addr = r.u64()
		if rank != len(d.Shape) || rank < 1 {
			return fmt.Errorf("chunk rank %d for a rank-%d dataset", rank, len(d.Shape))
		}
		for range rank {
			c := int(r.u32())
			if c < 1 || c > 1<<30 {
				return fmt.Errorf("chunk dimension %d", c)
			}
			d.chunk = append(d.chunk, c)
		}
		if es := int(r.u32()); r.err == nil && es != d.Type.Size {
			return fmt.Errorf("chunk element size %d for a %d-byte type", es, d.Type.Size)
		}
	default:
		return fmt.Errorf("layout class %d is not supported", d.class)
	}
	return r.err
}

// Len returns the number of elements (0 for a null dataspace).
func (d *Dataset) Len() int { return int(d.n) }

// Raw returns the dataset's elements as stored, in C order, after undoing
// any filters.
func (d *Dataset) Raw() ([]byte, error) {
	b, err := d.raw()
	if err != nil {
		return nil, pathErr(d.Path, "%w", err)
	}
	return b, nil
}

// blockBytes bounds the buffer that contiguous data are read through, so
// that decoding a dataset never holds a second, raw copy of it.
const blockBytes = 1 << 20

// eachBlock calls fn with the dataset's raw elements in order, in blocks
// of whole elements (first: the index of the block's first element):
// contiguous data through one reused buffer of at most blockBytes, after
// checking the whole extent against the file; other layouts in one block.
// fn is called at least once (with no bytes for an empty dataset), and
// only after the storage has been checked, so that it may allocate.
func (d *Dataset) eachBlock(fn func(b []byte, first int64)) error {
	nbytes := d.n * int64(d.Type.Size)
	if d.class != layoutContiguous || nbytes == 0 {
		b, err := d.Raw()
		if err != nil {
			return err
		}
		fn(b, 0)
		return nil
	}
	if err := d.contiguousExtent(nbytes); err != nil {
		return pathErr(d.Path, "%w", err)
	}
	size := int64(d.Type.Size)
	per := max(blockBytes/size, 1)
	var buf []byte
	for first := int64(0); first < d.n; first += per {
		b, err := d.f.readInto(buf, d.addr+uint64(first*size), min(per, d.n-first)*size)
		if err != nil {
			return pathErr(d.Path, "%w", err)
		}
		fn(b, first)
		buf = b
	}
	return nil
}

// contiguousExtent checks contiguous storage of nbytes: allocated, large
// enough and inside the file.
func (d *Dataset) contiguousExtent(nbytes int64) error {
	if d.addr == undef {
		return fmt.Errorf("data never written (no storage allocated)")
	}
	if d.size < uint64(nbytes) {
		return fmt.Errorf("storage of %d bytes for %d", d.size, nbytes)
	}
	return d.f.inFile(d.addr, nbytes)
}

func (d *Dataset) raw() ([]byte, error) {
	nbytes := d.n * int64(d.Type.Size)
	if nbytes == 0 {
		return []byte{}, nil
	}
	switch d.class {
	case layoutCompact:
		if int64(len(d.compact)) < nbytes {
			return nil, fmt.Errorf("compact data of %d bytes for %d", len(d.compact), nbytes)
		}
		return append([]byte(nil), d.compact[:nbytes]...), nil
	case layoutContiguous:
		if err := d.contiguousExtent(nbytes); err != nil {
			return nil, err
		}
		return d.f.read(d.addr, nbytes)
	}
	return d.readChunked(nbytes)
}
