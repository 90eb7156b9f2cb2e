package uvh5

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/gomatvis/gomatvis/internal/atomicfile"
	"github.com/gomatvis/gomatvis/internal/blocks"
	"github.com/gomatvis/gomatvis/internal/h5write"
	"github.com/gomatvis/gomatvis/internal/rowcover"
)

// Writer streams a UVH5 file: Create writes the header and allocates the
// data, WriteBlock fills rows of baseline-times in any order, Close
// finalises and renames the file into place. A Writer is not safe for
// concurrent use.
type Writer struct {
	path     string
	out      *atomicfile.Stream // the temporary, until Close or Abort
	f        *h5write.File
	vis      *h5write.Dataset
	flags    *h5write.Dataset
	nsamples *h5write.Dataset
	nblts    int
	row      int // elements per baseline-time: Nfreqs*Npols
	npols    int
	single   bool
	written  *rowcover.Rows
	// Scratch of the goroutines that write a span's pieces (writePieces),
	// and the default flags (false) and nsamples (1) of at most pieceLen,
	// reused by every block (read only while pieces are written).
	scratch []*pieceScratch
	noFlags []bool
	ones    []float32
	// pieceWorkers bounds the goroutines of writePieces (maxPieceWorkers;
	// the tests set 1 for the serial twin).
	pieceWorkers int
	// defaults says the flags and nsamples hold their defaults wherever
	// no explicit ones were written: the flags are zero (false) in the
	// new file, and nsamples were filled with 1 whole, in large writes,
	// by the first block. A block without flags and nsamples then writes
	// its visibilities alone — a channel range of a time is one write per
	// row, not three (1.5·10⁶ system calls for a 1 GB run of 128-channel
	// blocks). The first explicit flags or nsamples end it: from then on
	// every block writes all three, as a row rewritten must.
	defaults, filled bool
}

// ErrIncomplete is returned by Close when some rows were never written.
var ErrIncomplete = errors.New("baseline-time rows never written")

// ErrFinished is returned by operations after Close or Abort.
var ErrFinished = errors.New("writer already closed or aborted")

// Create validates hdr, writes its metadata to a temporary file next to
// path and allocates visdata, flags and nsamples of shape (Nblts, Nfreqs,
// Npols). Nothing appears at path until Close succeeds.
func Create(path string, hdr *Header) (*Writer, error) {
	if hdr == nil {
		return nil, &FieldError{File: path, Field: "Header", Err: errors.New("nil")}
	}
	if err := hdr.Validate(); err != nil {
		return nil, withFile(err, path)
	}
	out, err := atomicfile.NewStream(path)
	if err != nil {
		return nil, fmt.Errorf("uvh5: %s: %w", path, err)
	}
	w := &Writer{path: path, out: out, nblts: hdr.Nblts(), row: hdr.Nfreqs() * hdr.Npols(), npols: hdr.Npols(),
		single: hdr.SinglePrecision, written: rowcover.New(hdr.Nblts(), hdr.Nfreqs()), defaults: true, pieceWorkers: maxPieceWorkers}
	if err := w.start(hdr); err != nil {
		w.Abort()
		return nil, withFile(err, path)
	}
	return w, nil
}

// withFile sets the file of a *FieldError, or wraps other errors with it.
func withFile(err error, path string) error {
	var fe *FieldError
	if errors.As(err, &fe) {
		fe.File = path
		return fe
	}
	return fmt.Errorf("uvh5: %s: %w", path, err)
}

func (w *Writer) start(hdr *Header) error {
	f, err := h5write.Create(w.out.File())
	if err != nil {
		return err
	}
	w.f = f
	hg, err := f.Root().Group("Header")
	if err != nil {
		return err
	}
	if err := writeHeader(hg, hdr); err != nil {
		return err
	}
	dg, err := f.Root().Group("Data")
	if err != nil {
		return err
	}
	shape := []int{hdr.Nblts(), hdr.Nfreqs(), hdr.Npols()}
	visType := h5write.Complex128Compound
	if w.single {
		visType = h5write.Complex64Compound
	}
	if w.vis, err = dg.Dataset("visdata", visType, shape...); err != nil {
		return &FieldError{Field: "Data/visdata", Err: err}
	}
	if w.flags, err = dg.Dataset("flags", h5write.Bool, shape...); err != nil {
		return &FieldError{Field: "Data/flags", Err: err}
	}
	if w.nsamples, err = dg.Dataset("nsamples", h5write.Float32, shape...); err != nil {
		return &FieldError{Field: "Data/nsamples", Err: err}
	}
	return nil
}

// WriteBlock writes baseline-time rows [bltStart, bltStart+n) where n =
// len(vis)/(Nfreqs*Npols); vis is C-ordered (blt, freq, pol). flags and
// nsamples have vis's length, or are nil for "not flagged" and 1.
// With Header.SinglePrecision the values are rounded to complex64.
func (w *Writer) WriteBlock(bltStart int, vis []complex128, flags []bool, nsamples []float32) error {
	if err := w.checkBlock(bltStart, len(vis), flags, nsamples); err != nil {
		return err
	}
	if err := w.writeSpan(int64(bltStart)*int64(w.row), vis, flags, nsamples); err != nil {
		return err
	}
	w.markWritten(bltStart, bltStart+len(vis)/w.row, 0, w.row/w.npols)
	return nil
}

// WriteChannels writes channels [f0, f1) of baseline-time rows
// [bltStart, bltStart+n): vis holds n·(f1−f0)·Npols values, C-ordered
// (blt, freq, pol); flags and nsamples as in WriteBlock. A run whose one
// time does not fit in memory writes it by ranges of channels; the rows
// count as written once every channel of them has been.
func (w *Writer) WriteChannels(bltStart, n, f0, f1 int, vis []complex128, flags []bool, nsamples []float32) error {
	nf := w.row / w.npols
	if f0 < 0 || f1 > nf || f0 >= f1 {
		return &FieldError{File: w.path, Field: "Data/visdata", Err: fmt.Errorf("channels [%d, %d) outside Nfreqs = %d", f0, f1, nf)}
	}
	if f0 == 0 && f1 == nf {
		return w.WriteBlock(bltStart, vis, flags, nsamples)
	}
	per := (f1 - f0) * w.npols
	if len(vis) != n*per {
		return &FieldError{File: w.path, Field: "Data/visdata", Err: fmt.Errorf("%d values for %d rows of %d channels × %d pols", len(vis), n, f1-f0, w.npols)}
	}
	if err := w.checkBlock(bltStart, n*w.row, nil, nil); err != nil {
		return err
	}
	if (flags != nil && len(flags) != len(vis)) || (nsamples != nil && len(nsamples) != len(vis)) {
		return &FieldError{File: w.path, Field: "Data/flags", Err: fmt.Errorf("flags or nsamples do not match the %d values", len(vis))}
	}
	for r := range n {
		off := int64(bltStart+r)*int64(w.row) + int64(f0*w.npols)
		var fl []bool
		var ns []float32
		if flags != nil {
			fl = flags[r*per : (r+1)*per]
		}
		if nsamples != nil {
			ns = nsamples[r*per : (r+1)*per]
		}
		if err := w.writeSpan(off, vis[r*per:(r+1)*per], fl, ns); err != nil {
			return err
		}
	}
	w.markWritten(bltStart, bltStart+n, f0, f1)
	return nil
}

// writeSpan writes vis (rounded to complex64 with SinglePrecision),
// flags and nsamples (or their defaults) at element offset off.
func (w *Writer) writeSpan(off int64, vis []complex128, flags []bool, nsamples []float32) error {
	err := w.writePieces(len(vis), func(s *pieceScratch, i, j int) error {
		if !w.single {
			return s.write(w.vis, off+int64(i), vis[i:j])
		}
		return s.write(w.vis, off+int64(i), converted(&s.c64, vis[i:j]))
	})
	return w.finishSpan(err, off, len(vis), flags, nsamples)
}

// WriteBlock64 is WriteBlock for single-precision visibilities (widened
// exactly to float64 unless Header.SinglePrecision).
func (w *Writer) WriteBlock64(bltStart int, vis []complex64, flags []bool, nsamples []float32) error {
	if err := w.checkBlock(bltStart, len(vis), flags, nsamples); err != nil {
		return err
	}
	off := int64(bltStart) * int64(w.row)
	err := w.writePieces(len(vis), func(s *pieceScratch, i, j int) error {
		if w.single {
			return s.write(w.vis, off+int64(i), vis[i:j])
		}
		return s.write(w.vis, off+int64(i), converted(&s.c128, vis[i:j]))
	})
	if err := w.finishSpan(err, off, len(vis), flags, nsamples); err != nil {
		return err
	}
	w.markWritten(bltStart, bltStart+len(vis)/w.row, 0, w.row/w.npols)
	return nil
}

// markWritten records rows [b0, b1) × channels [f0, f1) as written and
// starts their pages' writeback (atomicfile.Stream.StartWriteback), so
// that the close's sync has little left: advice only.
func (w *Writer) markWritten(b0, b1, f0, f1 int) {
	w.written.Mark(b0, b1, f0, f1)
	_ = w.out.StartWriteback()
}

func (w *Writer) checkBlock(bltStart, n int, flags []bool, nsamples []float32) error {
	switch {
	case w.out.Finished():
		return fmt.Errorf("uvh5: %s: %w", w.path, ErrFinished)
	case n == 0 || n%w.row != 0:
		return &FieldError{File: w.path, Field: "Data/visdata", Err: fmt.Errorf("block of %d values is not a positive multiple of Nfreqs*Npols = %d", n, w.row)}
	case bltStart < 0 || bltStart > w.nblts-n/w.row:
		return &FieldError{File: w.path, Field: "Data/visdata", Err: fmt.Errorf("rows [%d, %d) outside Nblts = %d", bltStart, bltStart+n/w.row, w.nblts)}
	case flags != nil && len(flags) != n:
		return &FieldError{File: w.path, Field: "Data/flags", Err: fmt.Errorf("%d flags for %d values", len(flags), n)}
	case nsamples != nil && len(nsamples) != n:
		return &FieldError{File: w.path, Field: "Data/nsamples", Err: fmt.Errorf("%d nsamples for %d values", len(nsamples), n)}
	}
	return nil
}

// finishSpan writes the flags and nsamples (or their defaults) of the n
// values at element offset off whose visibilities were written with
// error err.
func (w *Writer) finishSpan(err error, off int64, n int, flags []bool, nsamples []float32) error {
	if err != nil {
		return &FieldError{File: w.path, Field: "Data/visdata", Err: err}
	}
	if w.defaults && flags == nil && nsamples == nil {
		return w.fillOnes()
	}
	w.defaults = false
	if flags == nil {
		w.noFlags = grow(w.noFlags, min(n, pieceLen))
	}
	err = w.writePieces(n, func(s *pieceScratch, i, j int) error {
		if flags != nil {
			return s.write(w.flags, off+int64(i), flags[i:j])
		}
		return s.write(w.flags, off+int64(i), w.noFlags[:j-i])
	})
	if err != nil {
		return &FieldError{File: w.path, Field: "Data/flags", Err: err}
	}
	if nsamples == nil {
		w.ones = onesOf(w.ones, min(n, pieceLen))
	}
	err = w.writePieces(n, func(s *pieceScratch, i, j int) error {
		if nsamples != nil {
			return s.write(w.nsamples, off+int64(i), nsamples[i:j])
		}
		return s.write(w.nsamples, off+int64(i), w.ones[:j-i])
	})
	if err != nil {
		return &FieldError{File: w.path, Field: "Data/nsamples", Err: err}
	}
	return nil
}

// fillOnes writes nsamples 1 over the whole dataset, once.
func (w *Writer) fillOnes() error {
	if w.filled {
		return nil
	}
	w.filled = true
	n := int(w.nsamples.Len())
	w.ones = onesOf(w.ones, min(n, pieceLen))
	if err := w.writePieces(n, func(s *pieceScratch, i, j int) error { return s.write(w.nsamples, int64(i), w.ones[:j-i]) }); err != nil {
		return &FieldError{File: w.path, Field: "Data/nsamples", Err: err}
	}
	return nil
}

// onesOf is s with at least n ones.
func onesOf(s []float32, n int) []float32 {
	if len(s) < n {
		s = make([]float32, n)
		for k := range s {
			s[k] = 1
		}
	}
	return s
}

// pieceLen bounds the scratch slices of conversions and defaults.
const pieceLen = 1 << 16

// converted is v converted value by value (rounded to complex64, or
// widened exactly to complex128) into *buf, grown as needed.
func converted[T, U complex64 | complex128](buf *[]U, v []T) []U {
	*buf = grow(*buf, len(v))
	c := (*buf)[:len(v)]
	for k, x := range v {
		c[k] = U(x)
	}
	return c
}

// grow returns s with length at least n (contents unspecified, zero when
// newly allocated; callers needing zeros never write into it).
func grow[T any](s []T, n int) []T {
	if len(s) < n {
		return make([]T, n)
	}
	return s
}

// maxPieceWorkers bounds the goroutines that write one span's pieces:
// the conversions and the encoding run in parallel, the file system's
// copies into the page cache one after the other (a file's writes hold
// its inode's lock), so more would only wait.
const maxPieceWorkers = 4

// pieceScratch is one goroutine's scratch for the pieces it writes: the
// precision conversions and the encoding (h5write.Dataset.WriteAtWith).
type pieceScratch struct {
	c64  []complex64
	c128 []complex128
	enc  []byte
}

// write writes data at element offset off of d through s's encoding
// buffer.
func (s *pieceScratch) write(d *h5write.Dataset, off int64, data any) error {
	var err error
	s.enc, err = d.WriteAtWith(off, data, s.enc)
	return err
}

// writePieces calls put for the pieces [i, j) of [0, n), of at most
// pieceLen elements, in contiguous runs of pieces on up to pieceWorkers
// goroutines, each with a scratch of its own (the pieces are disjoint
// elements of the file: h5write.Dataset.WriteAtWith), and returns the
// first error; after one, the pieces not started are skipped. A UVH5
// writer kept a GPU run waiting: 0.25 GB in 0.47-0.54 s, one core
// converting and encoding (2026-12-07, an H100's host).
func (w *Writer) writePieces(n int, put func(s *pieceScratch, i, j int) error) error {
	pieces := (n + pieceLen - 1) / pieceLen
	workers := max(1, min(pieces, w.pieceWorkers, runtime.GOMAXPROCS(0)))
	for len(w.scratch) < workers {
		w.scratch = append(w.scratch, &pieceScratch{})
	}
	free := make(chan *pieceScratch, workers)
	for _, s := range w.scratch[:workers] {
		free <- s
	}
	var mu sync.Mutex
	var first error
	failed := func() bool { mu.Lock(); defer mu.Unlock(); return first != nil }
	blocks.Run(pieces, workers, func(lo, hi int) {
		s := <-free
		defer func() { free <- s }()
		for p := lo; p < hi && !failed(); p++ {
			if err := put(s, p*pieceLen, min((p+1)*pieceLen, n)); err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
				return
			}
		}
	})
	return first
}

// Close checks that every row was written, finalises the HDF5 metadata,
// syncs and renames the file to its path. On error the temporary file is
// removed and nothing is left at path.
func (w *Writer) Close() error { return w.CloseAs(w.path) }

// CloseAs is Close renaming the file to dest instead of its path (in the
// same directory, so the rename is atomic): a cancelled run keeps the rows
// it finished, flagged rows for the rest, as OUT.partial.uvh5 without
// touching OUT.uvh5.
func (w *Writer) CloseAs(dest string) error {
	if w.out.Finished() {
		return fmt.Errorf("uvh5: %s: %w", w.path, ErrFinished)
	}
	if m := w.written.Missing(); m != "" {
		w.Abort()
		return &FieldError{File: w.path, Field: "Data/visdata", Err: fmt.Errorf("rows %s: %w", m, ErrIncomplete)}
	}
	// The HDF5 metadata are written last, into the temporary: only a file
	// whose metadata were all written is renamed into place.
	if err := w.f.Close(); err != nil {
		w.out.Abort()
		return fmt.Errorf("uvh5: %s: finishing: %w", dest, err)
	}
	if err := w.out.Commit(dest); err != nil {
		return fmt.Errorf("uvh5: %s: finishing: %w", dest, err)
	}
	return nil
}

// Abort discards the file being written. It is safe to call after Close
// (then it does nothing) and more than once.
func (w *Writer) Abort() error {
	if err := w.out.Abort(); err != nil {
		return fmt.Errorf("uvh5: %s: %w", w.path, err)
	}
	return nil
}

// WriteFile writes a whole UVH5 file: hdr and vis of length
// Nblts*Nfreqs*Npols in (blt, freq, pol) order, nothing flagged, nsamples 1.
func WriteFile(path string, hdr *Header, vis []complex128) error {
	w, err := Create(path, hdr)
	if err != nil {
		return err
	}
	if len(vis) != hdr.Nblts()*w.row {
		w.Abort()
		return &FieldError{File: path, Field: "Data/visdata", Err: fmt.Errorf("%d values for Nblts*Nfreqs*Npols = %d", len(vis), hdr.Nblts()*w.row)}
	}
	if err := w.WriteBlock(0, vis, nil, nil); err != nil {
		w.Abort()
		return err
	}
	return w.Close()
}
