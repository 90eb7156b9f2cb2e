package part

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"math"

	"github.com/gomatvis/gomatvis/internal/atomicfile"
)

// Magic2 opens and closes a part file of format 2, which a run streams as
// it computes: the data come first, so that each block is written where
// it belongs as it arrives, and the metadata, which hold the data's hash,
// last:
//
//	"GOMATVIS-PART/2\n"      16 bytes of magic
//	the block's visibilities  little-endian complex64 or complex128, its
//	                          integrations in time-major order (time,
//	                          freq), each's values as in Result (pair[,
//	                          p, q]); DataBytes long
//	n bytes                   Meta as JSON
//	uint64, little endian     n
//	"GOMATVIS-PART/2\n"      the magic again, as a trailer
//
// A file cut anywhere lacks the trailer (or has one that does not match
// its length), so a truncated part is told from a complete one before its
// hash is checked. The data are time-major because a run's blocks are
// (output.Plan: whole times, or channel ranges of one time, in order):
// each block then lands just after the one before, and the data's hash
// is taken as they are written, never read back.
const Magic2 = "GOMATVIS-PART/2\n"

// trailerLen is the length of format 2's metadata length and trailer.
const trailerLen = 8 + len(Magic2)

// Writer writes a part of format 2 in place as its data are computed, in
// a temporary beside its path that Close renames into place with the
// metadata appended; until then nothing appears at the path. The data's
// SHA-256 is computed as they are written while they come in file order
// (a run's time-major blocks do), and otherwise at Close, by reading the
// rest back from the file. A Writer is not safe for concurrent use.
type Writer struct {
	path      string
	out       *atomicfile.Stream
	shape     []int
	precision int
	n         int64 // values
	written   int64 // values written
	// h is the hash of the first hashed values, in file order.
	h      hash.Hash
	hashed int64
	buf    []byte
}

// Create starts the part of a block of the given shape (nfreq, ntimes,
// npairs[, 2, 2]) and precision at path.
func Create(path string, shape []int, precision int) (*Writer, error) {
	if precision != 1 && precision != 2 {
		return nil, fmt.Errorf("part %s: precision %d", path, precision)
	}
	n := int64(1)
	for _, d := range shape {
		if d <= 0 || n > math.MaxInt64/int64(d)/16 {
			return nil, fmt.Errorf("part %s: shape %v", path, shape)
		}
		n *= int64(d)
	}
	out, err := atomicfile.NewStream(path)
	if err != nil {
		return nil, fmt.Errorf("part: %w", err)
	}
	if _, err := out.File().WriteAt([]byte(Magic2), 0); err != nil {
		out.Abort()
		return nil, fmt.Errorf("part %s: %w", path, err)
	}
	return &Writer{path: path, out: out, shape: append([]int(nil), shape...), precision: precision, n: n, h: sha256.New()}, nil
}

// elem is the size of one visibility.
func (w *Writer) elem() int64 { return int64(8 * w.precision) }

// WriteAt writes data ([]complex64 for precision 1, []complex128 for 2)
// at value index off of the part's data, in the file's (time-major)
// order. Each value must be written once.
func (w *Writer) WriteAt(off int64, data any) error {
	if w.out.Finished() {
		return fmt.Errorf("part %s: %w", w.path, atomicfile.ErrFinished)
	}
	var n int
	switch d := data.(type) {
	case []complex64:
		if w.precision == 1 {
			n = len(d)
		}
	case []complex128:
		if w.precision == 2 {
			n = len(d)
		}
	}
	switch {
	case n == 0:
		return fmt.Errorf("part %s: %T written to a part of precision %d", w.path, data, w.precision)
	case off < 0 || off > w.n-int64(n):
		return fmt.Errorf("part %s: values [%d, %d) outside the part's %d", w.path, off, off+int64(n), w.n)
	}
	inOrder := off == w.hashed
	at := int64(len(Magic2)) + off*w.elem()
	for lo := 0; lo < n; lo += encodeStep {
		b := w.encode(data, lo, min(lo+encodeStep, n))
		if _, err := w.out.File().WriteAt(b, at); err != nil {
			return fmt.Errorf("part %s: %w", w.path, err)
		}
		if inOrder {
			w.h.Write(b)
		}
		at += int64(len(b))
	}
	if inOrder {
		w.hashed += int64(n)
	}
	w.written += int64(n)
	return nil
}

// encode is data's values [lo, hi) little-endian, in w's reused buffer.
func (w *Writer) encode(data any, lo, hi int) []byte {
	le := binary.LittleEndian
	b := w.buf[:0]
	switch d := data.(type) {
	case []complex64:
		for _, v := range d[lo:hi] {
			b = le.AppendUint32(b, math.Float32bits(real(v)))
			b = le.AppendUint32(b, math.Float32bits(imag(v)))
		}
	case []complex128:
		for _, v := range d[lo:hi] {
			b = le.AppendUint64(b, math.Float64bits(real(v)))
			b = le.AppendUint64(b, math.Float64bits(imag(v)))
		}
	}
	w.buf = b
	return b
}

// Close finishes the part with meta, its shape, precision, data size and
// hash filled in, and renames it into place. Every value must have been
// written.
func (w *Writer) Close(meta Meta) error {
	if w.out.Finished() {
		return fmt.Errorf("part %s: %w", w.path, atomicfile.ErrFinished)
	}
	err := w.finish(&meta)
	if err == nil {
		err = w.out.Commit(w.path)
	}
	if err != nil {
		w.out.Abort()
		return fmt.Errorf("part %s: %w", w.path, err)
	}
	return nil
}

// finish hashes what was not hashed in order and appends the metadata
// and trailer.
func (w *Writer) finish(meta *Meta) error {
	if w.written != w.n {
		return fmt.Errorf("%d of %d visibilities written: the part is incomplete", w.written, w.n)
	}
	f := w.out.File()
	data := int64(len(Magic2))
	if w.hashed < w.n {
		// Blocks that came out of file order: the rest is read back (from
		// the page cache, as it was just written).
		rest := io.NewSectionReader(f, data+w.hashed*w.elem(), (w.n-w.hashed)*w.elem())
		if _, err := io.CopyBuffer(w.h, rest, make([]byte, 1<<20)); err != nil {
			return fmt.Errorf("reading the data back to hash them: %w", err)
		}
		w.hashed = w.n
	}
	meta.Shape, meta.Precision = w.shape, w.precision
	meta.DataBytes, meta.DataSHA256 = w.n*w.elem(), hex.EncodeToString(w.h.Sum(nil))
	if err := meta.Check(); err != nil {
		return err
	}
	js, err := json.Marshal(meta)
	if err != nil {
		return err
	}
	tail := binary.LittleEndian.AppendUint64(js, uint64(len(js)))
	tail = append(tail, Magic2...)
	_, err = f.WriteAt(tail, data+meta.DataBytes)
	return err
}

// Abort removes the temporary; safe after Close and more than once.
func (w *Writer) Abort() error {
	if err := w.out.Abort(); err != nil {
		return fmt.Errorf("part %s: %w", w.path, err)
	}
	return nil
}
