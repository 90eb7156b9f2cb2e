package npy

import (
	"fmt"
	"os"

	"github.com/gomatvis/gomatvis/internal/atomicfile"
)

// FileWriter fills a .npy file in place, for an array written in pieces
// as they are computed (a simulation's blocks of times): Create writes the
// header and sizes the file, WriteAt puts elements at their flat C-order
// index in any order, and Close renames the file into place. Until then
// nothing appears at the path; Abort removes the temporary. The bytes are
// those Write gives for the same array. A FileWriter is not safe for
// concurrent use.
type FileWriter struct {
	path string
	out  *atomicfile.Stream
	dt   DType
	n    int64 // elements
	data int64 // offset of the first element
}

// Create starts the .npy file of a C-ordered array of dt with the given
// shape in a temporary beside path; elements never written read as zero.
func Create(path string, shape []int, dt DType) (*FileWriter, error) {
	if dt.size() == 0 {
		return nil, fmt.Errorf("npy: %s: unsupported dtype %q", path, dt)
	}
	n := int64(1)
	for _, s := range shape {
		if s < 0 {
			return nil, fmt.Errorf("npy: %s: negative dimension in shape %v", path, shape)
		}
		n *= int64(s)
	}
	out, err := atomicfile.NewStream(path)
	if err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	hdr := Header(shape, dt)
	w := &FileWriter{path: path, out: out, dt: dt, n: n, data: int64(len(hdr))}
	f := out.File()
	if _, err := f.WriteAt(hdr, 0); err == nil {
		err = f.Truncate(w.data + n*int64(dt.size()))
	}
	if err != nil {
		out.Abort()
		return nil, fmt.Errorf("npy: %s: %w", path, err)
	}
	return w, nil
}

// Len is the array's element count.
func (w *FileWriter) Len() int64 { return w.n }

// WriteAt writes data (a slice of the file's dtype) at element index off.
func (w *FileWriter) WriteAt(off int64, data any) error {
	if w.out.Finished() {
		return fmt.Errorf("npy: %s: %w", w.path, atomicfile.ErrFinished)
	}
	dt, n, err := dtypeOf(data)
	switch {
	case err != nil:
		return fmt.Errorf("npy: %s: %w", w.path, err)
	case dt != w.dt:
		return fmt.Errorf("npy: %s: %s data written to a %s array", w.path, dt, w.dt)
	case off < 0 || off > w.n-int64(n):
		return fmt.Errorf("npy: %s: elements [%d, %d) outside the array's %d", w.path, off, off+int64(n), w.n)
	}
	ow := &offsetWriter{f: w.out.File(), off: w.data + off*int64(dt.size())}
	if err := writeData(ow, data); err != nil {
		return fmt.Errorf("npy: %s: %w", w.path, err)
	}
	_ = w.out.StartWriteback() // the close's sync then has little left: advice only
	return nil
}

// Close syncs the file and renames it to its path.
func (w *FileWriter) Close() error { return w.CloseAs(w.path) }

// CloseAs syncs the file and renames it to dest (in the path's
// directory), with companions (its metadata) written beside it as one
// group: they appear together or not at all (atomicfile.WriteGroup).
func (w *FileWriter) CloseAs(dest string, companions ...atomicfile.File) error {
	if err := w.out.CommitWith(dest, companions...); err != nil {
		return fmt.Errorf("npy: %s: %w", dest, err)
	}
	return nil
}

// Abort removes the temporary; safe after Close and more than once.
func (w *FileWriter) Abort() error {
	if err := w.out.Abort(); err != nil {
		return fmt.Errorf("npy: %s: %w", w.path, err)
	}
	return nil
}

// dtypeOf is the dtype and length of a slice Write accepts.
func dtypeOf(data any) (DType, int, error) {
	switch d := data.(type) {
	case []float32:
		return Float32, len(d), nil
	case []float64:
		return Float64, len(d), nil
	case []complex64:
		return Complex64, len(d), nil
	case []complex128:
		return Complex128, len(d), nil
	case []int64:
		return Int64, len(d), nil
	}
	return "", 0, fmt.Errorf("unsupported data type %T", data)
}

// offsetWriter writes sequentially from an offset of a file.
type offsetWriter struct {
	f   *os.File
	off int64
}

func (o *offsetWriter) Write(p []byte) (int, error) {
	n, err := o.f.WriteAt(p, o.off)
	o.off += int64(n)
	return n, err
}
