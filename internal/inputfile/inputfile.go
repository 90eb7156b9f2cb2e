// Package inputfile opens input files safely: only regular files are
// accepted, so a directory, a named pipe (which would block the open or
// the read forever), a device such as /dev/zero (which never ends) or a
// socket is refused with a clear message before anything is read. The
// size returned with the file lets callers check the sizes a file's header
// declares against the bytes that are really there before allocating.
package inputfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
)

// ErrNotRegular is wrapped by the errors of Open and ReadAll for paths that
// exist but are not regular files.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by the error of ReadAll for files over its limit.
var ErrTooLarge = errors.New("file too large")

// Open opens path for reading and returns the file with its size in bytes.
// Anything but a regular file (after following symbolic links) is refused
// without blocking: a named pipe is opened non-blocking and closed again.
func Open(path string) (*os.File, int64, error) {
	// Stat first so that a FIFO is refused before open(2) could block on it.
	fi, err := os.Stat(path)
	if err != nil {
		return nil, 0, err
	}
	if err := checkRegular(path, fi); err != nil {
		return nil, 0, err
	}
	// The path may have been replaced since; openFlags keeps a FIFO from
	// blocking the open, and the Stat of the open file decides.
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, 0, err
	}
	fi, err = f.Stat()
	if err == nil {
		err = checkRegular(path, fi)
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// Check refuses path, without opening it, unless it names a regular file
// (after following symbolic links): its error says what the path is ("is
// a directory", wrapping ErrNotRegular), or why it could not be looked at
// (fs.ErrNotExist, a symbolic-link loop, a permission).
func Check(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	return checkRegular(path, fi)
}

// ReadAll reads the whole regular file at path, refusing it by its size,
// before reading, when it holds more than limit bytes (math.MaxInt64: no
// limit but the file's).
func ReadAll(path string, limit int64) ([]byte, error) {
	f, size, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := checkSize(path, size, limit); err != nil {
		return nil, err
	}
	return readOpen(f, path, size, limit)
}

// checkSize refuses a file of size bytes over limit, before any read.
func checkSize(path string, size, limit int64) error {
	if size > limit {
		return fmt.Errorf("%s: %w: %d bytes, the limit is %d", path, ErrTooLarge, size, limit)
	}
	return nil
}

// readOpen reads f, opened by Open with its size from the Stat, whole.
func readOpen(f *os.File, path string, size, limit int64) ([]byte, error) {
	// The file may grow while it is read: read at most one byte past
	// limit (the limit itself when one more byte would overflow). The
	// buffer is sized from the Stat, as os.ReadFile's, so that a large
	// file is read into one allocation, not copied through doubling buffers.
	var buf bytes.Buffer
	buf.Grow(int(size) + bytes.MinRead) // ReadFrom keeps MinRead free: no copy at EOF
	if _, err := buf.ReadFrom(io.LimitReader(f, min(limit, math.MaxInt64-1)+1)); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(buf.Len()) > limit {
		return nil, fmt.Errorf("%s: %w: more than %d bytes", path, ErrTooLarge, limit)
	}
	return buf.Bytes(), nil
}

// checkRegular refuses everything that is not a regular file, naming what
// the path is.
func checkRegular(path string, fi fs.FileInfo) error {
	m := fi.Mode()
	if m.IsRegular() {
		return nil
	}
	return fmt.Errorf("%s is %s: %w", path, kind(m), ErrNotRegular)
}

// kind names a non-regular file mode for messages.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeIrregular != 0:
		return "an irregular file"
	}
	return fmt.Sprintf("a special file (mode %v)", m)
}
