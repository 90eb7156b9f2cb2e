// Package h5read reads the subset of HDF5 that UVH5 and SkyH5 files use,
// in pure Go, following the HDF5 File Format Specification (version 3.0):
// superblocks version 0-3, object headers version 1 and 2 (with
// continuation blocks), old-style groups (symbol table, v1 B-tree, local
// heap) and new-style groups with compact link messages, contiguous,
// compact and chunked (v1 B-tree index) layouts, the deflate, shuffle and
// LZF filters, the integer, float, fixed-string, enum and compound
// datatypes, variable-length strings (global heap collections), and
// attributes stored in the object header (messages version 1-3).
//
// Not supported, each reported as an error naming the object: groups with
// dense link storage (fractal heaps; h5py's libver="latest" groups of more
// than 8 members) and dense attribute storage, version 4 layouts' chunk
// indexes (libver="latest" chunked datasets), variable-length sequences
// (other than strings) and other classes, committed datatypes, shared
// messages, offsets or lengths other than 8 bytes, user blocks. pyuvdata
// and pyradiosky write with h5py's default libver, which this covers.
//
// It is written for untrusted input: every size read from the file is
// checked against the file's length before anything is allocated, loops
// through on-disk structures are bounded, and malformed input is reported
// as an error naming the object, never a panic.
package h5read

import (
	"bytes"
	"fmt"
	"io"
)

// undef is the undefined address (File Format Specification II.A).
const undef = ^uint64(0)

var signature = []byte{0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'}

// File is an open HDF5 file. It is not safe for concurrent use.
type File struct {
	r    io.ReaderAt
	size int64
	root uint64 // root group object header address
	// groups caches each group's links by object header address, so
	// repeated lookups do not re-read symbol tables.
	groups map[uint64]map[string]uint64
	// links caches each group's soft and external links, described
	// ("an external link to sky.h5:/Data"): they are not followed, but a
	// lookup that meets one says so instead of "not found".
	others map[uint64]map[string]string
	gheap  gheaps // global heap collections read so far
	nread  int64  // bytes read so far, for budgets (see Walk)
}

// Open reads the superblock of the HDF5 file r of size bytes.
func Open(r io.ReaderAt, size int64) (*File, error) {
	f := &File{r: r, size: size, groups: map[uint64]map[string]uint64{}, others: map[uint64]map[string]string{}}
	head, err := f.read(0, min(size, 128))
	if err != nil {
		return nil, fmt.Errorf("superblock: %w", err)
	}
	if len(head) < 48 || !bytes.Equal(head[:8], signature) {
		return nil, fmt.Errorf("superblock: no HDF5 signature at offset 0")
	}
	root, err := parseSuperblock(head)
	if err != nil {
		return nil, fmt.Errorf("superblock: %w", err)
	}
	f.root = root
	return f, nil
}

// parseSuperblock returns the root group's object header address from a
// version 0/1 (II.A.1) or 2/3 (II.A.2) superblock with 8-byte offsets and
// lengths and base address 0.
func parseSuperblock(b []byte) (uint64, error) {
	r := &rd{b: b, off: 8}
	version := r.u8()
	var offsets, lengths byte
	switch version {
	case 0, 1:
		r.skip(4) // free-space, root symbol table, reserved, shared header versions
		offsets, lengths = r.u8(), r.u8()
		r.skip(1 + 2 + 2 + 4) // reserved, leaf K, internal K, flags
		if version == 1 {
			r.skip(4) // indexed storage K, reserved
		}
	case 2, 3:
		offsets, lengths = r.u8(), r.u8()
		r.skip(1)
	default:
		return 0, fmt.Errorf("unsupported superblock version %d", version)
	}
	if offsets != 8 || lengths != 8 {
		return 0, fmt.Errorf("unsupported sizes of offsets %d and lengths %d (want 8)", offsets, lengths)
	}
	base := r.u64()
	var root uint64
	if version <= 1 {
		r.skip(8 + 8 + 8) // free-space info, end of file, driver info
		r.skip(8)         // root symbol table entry: link name offset
		root = r.u64()
	} else {
		r.skip(8 + 8) // superblock extension, end of file
		root = r.u64()
		end := r.off
		sum := r.u32()
		if r.err == nil && sum != checksum(b[:end]) {
			return 0, fmt.Errorf("checksum mismatch")
		}
	}
	if r.err != nil {
		return 0, r.err
	}
	if base != 0 {
		return 0, fmt.Errorf("unsupported base address %d", base)
	}
	return root, nil
}

// read returns n bytes at addr, checking them against the file size first.
func (f *File) read(addr uint64, n int64) ([]byte, error) {
	return f.readInto(nil, addr, n)
}

// readInto is read into buf's storage when it is large enough.
func (f *File) readInto(buf []byte, addr uint64, n int64) ([]byte, error) {
	if err := f.inFile(addr, n); err != nil {
		return nil, err
	}
	f.nread += n
	if int64(cap(buf)) < n {
		buf = make([]byte, n)
	}
	b := buf[:n]
	if _, err := f.r.ReadAt(b, int64(addr)); err != nil && !(err == io.EOF && n == 0) {
		return nil, fmt.Errorf("reading %d bytes at %d: %w", n, addr, err)
	}
	return b, nil
}

// inFile checks that n bytes at addr lie inside the file.
func (f *File) inFile(addr uint64, n int64) error {
	if n < 0 || addr > uint64(f.size) || uint64(n) > uint64(f.size)-addr {
		return fmt.Errorf("%d bytes at %d beyond the end of the %d-byte file", n, addr, f.size)
	}
	return nil
}

// PathError is an error about the object at Path in the file.
type PathError struct {
	Path string
	Err  error
}

// Error reports the path and the cause.
func (e *PathError) Error() string { return e.Path + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *PathError) Unwrap() error { return e.Err }

// pathErr builds a *PathError from a format and arguments.
func pathErr(path, format string, args ...any) error {
	return &PathError{Path: path, Err: fmt.Errorf(format, args...)}
}
