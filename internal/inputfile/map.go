package inputfile

import (
	"errors"
	"fmt"
	"runtime/debug"
)

// ErrChanged is wrapped by the error of Guard when a mapped file shrank
// while it was read.
var ErrChanged = errors.New("the file changed while it was read")

// Mapping is a regular file's bytes, mapped read-only where the system
// allows it (the pages are the page cache's own: nothing is copied or
// zeroed, and a large catalog's buffer costs no page faults of fresh
// memory) and read into memory otherwise. Close releases them.
type Mapping struct {
	path   string
	data   []byte
	mapped bool
}

// Map maps the whole regular file at path, refusing what Open refuses and,
// as ReadAll does, a file of more than limit bytes; where mapping fails it
// reads the file with ReadAll. Bytes of a mapping must be read inside
// Guard, and not kept after Close.
func Map(path string, limit int64) (*Mapping, error) {
	f, size, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := checkSize(path, size, limit); err != nil {
		return nil, err
	}
	if size > 0 && size == int64(int(size)) {
		if b, err := mmap(f.Fd(), int(size)); err == nil {
			return &Mapping{path: path, data: b, mapped: true}, nil
		}
	}
	// The file is open already: read it through the same descriptor.
	b, err := readOpen(f, path, size, limit)
	if err != nil {
		return nil, err
	}
	return &Mapping{path: path, data: b}, nil
}

// Bytes returns the file's bytes, which must not be written.
func (m *Mapping) Bytes() []byte { return m.data }

// Mapped reports whether the bytes are mapped rather than read.
func (m *Mapping) Mapped() bool { return m.mapped }

// Close unmaps the bytes (Bytes must not be used after); it may be called
// more than once.
func (m *Mapping) Close() error {
	b := m.data
	m.data = nil
	if !m.mapped {
		return nil
	}
	m.mapped = false
	if err := munmap(b); err != nil {
		return fmt.Errorf("%s: unmapping: %w", m.path, err)
	}
	return nil
}

// Guard runs fn, which reads m's bytes, turning the fault of a read past
// the end of a file that was truncated while mapped (SIGBUS) into an error
// wrapping ErrChanged instead of a crash. It covers the calling goroutine
// only: each goroutine that reads the bytes runs its reads in a Guard.
func (m *Mapping) Guard(fn func() error) (err error) {
	if !m.mapped {
		return fn()
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if _, ok := r.(interface{ Addr() uintptr }); !ok {
			panic(r)
		}
		err = fmt.Errorf("%s: %w (%v): read it again", m.path, ErrChanged, r)
	}()
	return fn()
}
