// Package h5write writes the subset of HDF5 that UVH5 files need, in pure
// Go, following the HDF5 File Format Specification (version 3.0).
//
// Files use a version 2 superblock, version 2 object headers, "new-style"
// groups whose links are Link messages in the group's header, and contiguous
// datasets. The raw data of every dataset is allocated when the dataset is
// created, so large datasets can be filled later in pieces, in any order,
// with Dataset.WriteAt; object headers and the superblock are written by
// File.Close. Datatypes: little-endian int32, int64, uint64, float32,
// float64, h5py's numpy-bool enum, {r, i} compounds of float32 or float64,
// and null-padded fixed-length ASCII strings. Dataspaces: scalar, simple
// (N-d) and null.
//
// A File is not safe for concurrent use.
package h5write

import (
	"errors"
	"fmt"
	"io"
)

// ErrClosed is returned by operations on a File after Close.
var ErrClosed = errors.New("h5write: file already closed")

// superblockSize is the size of a version 2 superblock with 8-byte offsets
// and lengths (File Format Specification II.A.2).
const superblockSize = 48

// Signature is the 8-byte HDF5 format signature (II.A).
var Signature = [8]byte{0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'}

// File is an HDF5 file being written.
type File struct {
	w      io.WriterAt
	eoa    uint64 // end of allocated space
	root   *Group
	closed bool
	buf    []byte // WriteAt's encoding scratch, reused across calls
}

// Create starts a new HDF5 file written through w, which should be empty
// (an *os.File opened for writing is the usual choice). Nothing is valid
// HDF5 until Close returns nil.
func Create(w io.WriterAt) (*File, error) {
	if w == nil {
		return nil, errors.New("h5write: nil writer")
	}
	f := &File{w: w, eoa: superblockSize}
	f.root = newGroup(f, "/")
	return f, nil
}

// Root returns the root group "/".
func (f *File) Root() *Group { return f.root }

// allocate reserves n bytes of raw data aligned to 8 bytes and returns
// their address.
func (f *File) allocate(n int64) (uint64, error) {
	addr := (f.eoa + 7) &^ 7
	end := addr + uint64(n)
	if n < 0 || end < addr || end > 1<<62 {
		return 0, fmt.Errorf("h5write: cannot allocate %d bytes", n)
	}
	f.eoa = end
	return addr, nil
}

// Close writes every object header and the superblock. The data of all
// datasets must have been written before. Close does not close the
// underlying writer.
func (f *File) Close() error {
	if f.closed {
		return ErrClosed
	}
	f.closed = true
	rootAddr, err := f.writeGroup(f.root)
	if err != nil {
		return err
	}
	return f.writeSuperblock(rootAddr)
}

// writeGroup writes the headers of g's members (depth first), then g's own
// header, and returns its address.
func (f *File) writeGroup(g *Group) (uint64, error) {
	msgs := []message{linkInfoMsg(), groupInfoMsg()}
	for _, l := range g.links {
		var addr uint64
		var err error
		if l.group != nil {
			addr, err = f.writeGroup(l.group)
		} else {
			addr, err = f.writeHeader(l.ds.header(), l.ds.path)
		}
		if err != nil {
			return 0, err
		}
		msgs = append(msgs, hardLinkMsg(l.name, addr))
	}
	return f.writeHeader(objectHeader(msgs), g.path)
}

func (f *File) writeHeader(b []byte, path string) (uint64, error) {
	addr, err := f.allocate(int64(len(b)))
	if err != nil {
		return 0, fmt.Errorf("h5write: header of %s: %w", path, err)
	}
	if _, err := f.w.WriteAt(b, int64(addr)); err != nil {
		return 0, fmt.Errorf("h5write: writing header of %s: %w", path, err)
	}
	return addr, nil
}

// writeSuperblock writes the version 2 superblock (II.A.2): signature,
// version 2, 8-byte offsets and lengths, consistency flags 0, base address
// 0, no superblock extension, end-of-file address, root object header
// address, lookup3 checksum.
func (f *File) writeSuperblock(rootAddr uint64) error {
	if _, err := f.w.WriteAt(superblock(f.eoa, rootAddr), 0); err != nil {
		return fmt.Errorf("h5write: writing superblock: %w", err)
	}
	return nil
}

func superblock(eof, rootAddr uint64) []byte {
	var e enc
	e.raw(Signature[:])
	e.u8(2)
	e.u8(8)
	e.u8(8)
	e.u8(0)
	e.addr(0)
	e.undefAddr()
	e.addr(eof)
	e.addr(rootAddr)
	e.u32(Checksum(e.b))
	return e.b
}
