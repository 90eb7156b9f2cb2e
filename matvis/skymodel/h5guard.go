package skymodel

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
)

// guardHDF5 rejects a file whose HDF5 structures declare sizes larger than
// the file itself, before github.com/scigolib/hdf5 v0.14.0 allocates them:
// that library trusts some size fields and a corrupt value makes the Go
// runtime abort with "out of memory", which recover cannot catch. It checks
// the headers of local heaps ("HEAP") and global heap collections
// ("GCOL"), whose length field follows the 4-byte signature, the version
// byte and 3 reserved bytes (HDF5 File Format Specification v3, sections
// III.D and III.E), using the size of lengths of a superblock at offset 0.
// The library checks only the signature, so neither are the version and
// reserved bytes here (a fuzzed file with them altered allocated 2.7 GB):
// a "HEAP" or "GCOL" anywhere declaring more than the file holds is
// refused. Other structures are left to the library;
// the dataset readers check declared dataset sizes themselves.
func guardHDF5(r io.ReaderAt, size int64) error {
	head := make([]byte, 16)
	if _, err := r.ReadAt(head, 0); err != nil {
		return nil // too short: the library reports it
	}
	ls := superblockLengthSize(head)
	if ls == 0 {
		return nil
	}
	const block = 4 << 20
	buf := make([]byte, block+8+ls)
	for base := int64(0); base < size; base += block {
		n, err := r.ReadAt(buf, base)
		if err != nil && err != io.EOF {
			return err
		}
		for _, g := range heapGuards {
			if err := g.check(buf[:n], block, base, ls, size); err != nil {
				return err
			}
		}
	}
	return nil
}

// heapGuard is a structure header whose length field follows sig.
type heapGuard struct {
	sig  string
	what string
}

var heapGuards = []heapGuard{
	{"HEAP", "local heap"},
	{"GCOL", "global heap collection"},
}

// heapLengthOffset is where a heap header's length field starts: after
// the signature, the version byte and 3 reserved bytes.
const heapLengthOffset = 8

// check scans chunk (starting at file offset base; signatures must start
// before limit) for g's headers and compares their lengths with size.
func (g heapGuard) check(chunk []byte, limit int, base int64, ls int, size int64) error {
	for off := 0; ; {
		i := bytes.Index(chunk[off:], []byte(g.sig))
		if i < 0 || off+i >= limit {
			return nil
		}
		start := off + i
		off = start + len(g.sig)
		p := start + heapLengthOffset
		if p+ls > len(chunk) {
			return nil
		}
		if v := readLength(chunk[p:p+ls], ls); v > uint64(size) {
			return fmt.Errorf("malformed HDF5 file: %s at byte %d declares %d bytes in a %d-byte file",
				g.what, base+int64(start), v, size)
		}
	}
}

// superblockLengthSize returns the "size of lengths" of a superblock at
// offset 0 as github.com/scigolib/hdf5 v0.14.0 reads it — which is what
// sizes its allocations: versions 0–1 byte 14, 0 meaning 8; versions 2–3
// 8 when byte 10 is a plain size (1, 2, 4, 8), else the size coded in its
// upper 4 bits (0–3: 1, 2, 4, 8 bytes). 0 when there is no superblock or
// the library would refuse it. (A fuzzed file with byte 14 zeroed slipped
// past an earlier guard that took 0 for "none" and allocated 256 TB.)
func superblockLengthSize(b []byte) int {
	if len(b) < 16 || string(b[:8]) != "\x89HDF\r\n\x1a\n" {
		return 0
	}
	switch b[8] {
	case 0, 1:
		if b[14] == 0 {
			return 8
		}
		switch b[14] {
		case 1, 2, 4, 8:
			return int(b[14])
		}
	case 2, 3:
		switch b[10] {
		case 1, 2, 4, 8:
			return 8
		}
		if code := b[10] >> 4; code <= 3 {
			return 1 << code
		}
	}
	return 0
}

func readLength(b []byte, n int) uint64 {
	switch n {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return binary.LittleEndian.Uint64(b)
}
