// Package part reads and writes the part files of a sharded run: one
// shard's block of the (frequency, time) grid with everything the merge
// needs to place it and to write the final file, so that merging reads
// nothing but the parts.
//
// A part file of format 1 (Write; a run now streams format 2: Writer,
// Magic2) is
//
//	"GOMATVIS-PART/1\n"      16 bytes of magic
//	uint64, little endian     n, the length of the metadata
//	n bytes                   Meta as JSON
//	the block's visibilities  little-endian complex64 or complex128 in
//	                          matvis.Result order (freq, time, pair[, p, q])
//
// Meta holds the SHA-256 and length of the data, so a truncated or
// damaged part is told from a complete one (Verify) without trusting its
// size alone.
package part

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/gomatvis/gomatvis/internal/atomicfile"
	"github.com/gomatvis/gomatvis/internal/inputfile"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/uvdata"
)

// Magic opens every part file of format 1.
const Magic = "GOMATVIS-PART/1\n"

// maxMeta bounds the metadata a reader accepts (a layout of 10⁵
// baselines and 10⁴ times is a few MB).
const maxMeta = 1 << 30

// Output formats a part is made for: they differ in conventions
// (UVH5's pyuvsim baselines, npy's matvis pairs).
const (
	OutputUVH5 = "uvh5"
	OutputNpy  = "npy"
)

// Meta describes a part.
type Meta struct {
	// ConfigHash is the SHA-256 of the run's configuration (hex): every
	// part of one run carries the same.
	ConfigHash string `json:"config_sha256"`
	// Shard is I of N.
	Shard int `json:"shard"`
	N     int `json:"nshards"`
	// NFreq and NTime are the whole run's grid; Block is this part's.
	NFreq int          `json:"nfreq"`
	NTime int          `json:"ntimes"`
	Block matvis.Block `json:"block"`
	// Shape is the block's visibilities' shape: (nfreq, ntimes, npairs) or
	// (nfreq, ntimes, npairs, 2, 2).
	Shape     []int `json:"shape"`
	Precision int   `json:"precision"`
	// Output is OutputUVH5 or OutputNpy.
	Output string `json:"output"`
	// Backend, MatProd and NChunks say how the part was computed.
	Backend string `json:"backend"`
	MatProd string `json:"matprod"`
	NChunks int    `json:"nchunks"`
	// DataBytes and DataSHA256 are the length and hash of the data.
	DataBytes  int64  `json:"data_bytes"`
	DataSHA256 string `json:"data_sha256"`
	// UVH5 is the whole file's layout (Output uvh5).
	UVH5 *uvdata.Layout `json:"uvh5,omitempty"`
	// NpyMeta is the whole run's OUT.meta.json (Output npy).
	NpyMeta json.RawMessage `json:"npy_meta,omitempty"`
}

// ElemBytes is the size of one visibility.
func (m *Meta) ElemBytes() int64 { return int64(8 * m.Precision) }

// Check validates the metadata's own consistency.
func (m *Meta) Check() error {
	bad := func(f string, a ...any) error { return fmt.Errorf("part metadata: "+f, a...) }
	switch {
	case len(m.ConfigHash) != 64:
		return bad("config_sha256 %q: want 64 hex digits", m.ConfigHash)
	case m.N < 1 || m.Shard < 0 || m.Shard >= m.N:
		return bad("shard %d of %d", m.Shard, m.N)
	case m.Precision != 1 && m.Precision != 2:
		return bad("precision %d", m.Precision)
	case m.Output != OutputUVH5 && m.Output != OutputNpy:
		return bad("output %q: want uvh5 or npy", m.Output)
	case m.Output == OutputUVH5 && m.UVH5 == nil:
		return bad("output uvh5 without a layout")
	case m.Block.F0 < 0 || m.Block.F1 > m.NFreq || m.Block.T0 < 0 || m.Block.T1 > m.NTime || m.Block.Size() <= 0:
		return bad("block %v outside the grid of %d freqs × %d times", m.Block, m.NFreq, m.NTime)
	case len(m.Shape) != 3 && len(m.Shape) != 5:
		return bad("shape %v", m.Shape)
	case m.Shape[0] != m.Block.NFreq() || m.Shape[1] != m.Block.NTime():
		return bad("shape %v for block %v", m.Shape, m.Block)
	}
	n := int64(1)
	for _, d := range m.Shape {
		if d <= 0 || n > math.MaxInt64/int64(d)/16 {
			return bad("shape %v", m.Shape)
		}
		n *= int64(d)
	}
	if m.DataBytes != n*m.ElemBytes() {
		return bad("data_bytes %d for shape %v of precision %d (want %d)", m.DataBytes, m.Shape, m.Precision, n*m.ElemBytes())
	}
	return nil
}

// Write writes res, the result of the block meta.Block, to path
// atomically as a part of format 1; it fills in meta's shape, precision,
// data size and hash. Runs stream format 2 (Writer); Write stays as the
// whole-result twin Writer is tested against, and for the parts of
// earlier versions that merge still reads.
func Write(path string, meta Meta, res *matvis.Result) error {
	if !res.Complete() {
		return fmt.Errorf("part %s: the result is incomplete", path)
	}
	h := sha256.New()
	nbytes, err := encode(h, res)
	if err != nil {
		return fmt.Errorf("part %s: %w", path, err)
	}
	meta.Shape, meta.Precision = res.Shape, res.Precision
	meta.DataBytes, meta.DataSHA256 = nbytes, hex.EncodeToString(h.Sum(nil))
	if err := meta.Check(); err != nil {
		return fmt.Errorf("part %s: %w", path, err)
	}
	js, err := json.Marshal(meta)
	if err != nil {
		return fmt.Errorf("part %s: %w", path, err)
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(js)))
		for _, b := range [][]byte{[]byte(Magic), n[:], js} {
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
		_, err := encode(w, res)
		return err
	})
}

// encodeStep is how many visibilities encode converts at a time.
const encodeStep = 1 << 16

// encode writes res's visibilities little-endian to w, a piece at a time
// (no copy of the whole array), and returns the bytes written.
func encode(w io.Writer, res *matvis.Result) (int64, error) {
	var total int64
	if res.Precision == 1 {
		for i := 0; i < len(res.Vis64); i += encodeStep {
			if err := binary.Write(w, binary.LittleEndian, res.Vis64[i:min(i+encodeStep, len(res.Vis64))]); err != nil {
				return total, err
			}
			total += int64(min(encodeStep, len(res.Vis64)-i)) * 8
		}
		return total, nil
	}
	for i := 0; i < len(res.Vis128); i += encodeStep {
		if err := binary.Write(w, binary.LittleEndian, res.Vis128[i:min(i+encodeStep, len(res.Vis128))]); err != nil {
			return total, err
		}
		total += int64(min(encodeStep, len(res.Vis128)-i)) * 16
	}
	return total, nil
}

// File is an open part: its metadata, and its data still in the file.
type File struct {
	Path string
	Meta Meta
	r    io.ReaderAt
	c    io.Closer // nil for Read
	off  int64     // where the data start
	// timeMajor says the data are in (time, freq) order of integrations
	// (format 2), not Result's (freq, time) (format 1).
	timeMajor bool
}

// Open reads a part's metadata and checks that the file is as long as it
// says; Data reads (and checks) the visibilities.
func Open(path string) (*File, error) {
	// A FIFO among the parts used to block the merge forever: only a
	// regular file is opened (inputfile.Open).
	f, size, err := inputfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("part: %w", err)
	}
	p, err := Read(f, size, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	p.c = f
	return p, nil
}

// Read is Open for a part of size bytes read through r; name names it in
// errors. It reads both formats, told apart by their head magic.
func Read(r io.ReaderAt, size int64, name string) (*File, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("part %s: "+format, append([]any{name}, a...)...)
	}
	head := make([]byte, len(Magic))
	if _, err := r.ReadAt(head, 0); err != nil && !(err == io.EOF && size >= int64(len(head))) {
		return nil, bad("not a gomatvis part file (no %q header)", Magic[:len(Magic)-1])
	}
	var js []byte
	var off, dataBytes int64
	var err error
	switch string(head) {
	case Magic:
		js, off, dataBytes, err = readMeta1(r, size)
	case Magic2:
		js, off, dataBytes, err = readMeta2(r, size)
	default:
		return nil, bad("not a gomatvis part file (no %q header)", Magic[:len(Magic)-1])
	}
	if err != nil {
		return nil, bad("%w", err)
	}
	p := &File{Path: name, r: r, off: off, timeMajor: string(head) == Magic2}
	if err := json.Unmarshal(js, &p.Meta); err != nil {
		return nil, bad("metadata: %w", err)
	}
	if err := p.Meta.Check(); err != nil {
		return nil, bad("%w", err)
	}
	if err := p.Meta.checkValues(); err != nil {
		return nil, bad("part metadata: %w", err)
	}
	if dataBytes != p.Meta.DataBytes {
		return nil, bad("%d bytes of data, the metadata says %d: truncated or damaged", dataBytes, p.Meta.DataBytes)
	}
	return p, nil
}

// readMeta1 reads a format 1 part's metadata (after the magic, before the
// data) and says where its data start and how long they are.
func readMeta1(r io.ReaderAt, size int64) (js []byte, off, dataBytes int64, err error) {
	head := int64(len(Magic) + 8)
	var nb [8]byte
	if size < head {
		return nil, 0, 0, fmt.Errorf("%d bytes: truncated or damaged", size)
	}
	if _, err := r.ReadAt(nb[:], int64(len(Magic))); err != nil {
		return nil, 0, 0, fmt.Errorf("reading metadata length: %w", err)
	}
	n := binary.LittleEndian.Uint64(nb[:])
	if n > maxMeta || int64(n) > size-head {
		return nil, 0, 0, fmt.Errorf("metadata of %d bytes in a file of %d: truncated or damaged", n, size)
	}
	js = make([]byte, n)
	if _, err := io.ReadFull(io.NewSectionReader(r, head, int64(n)), js); err != nil {
		return nil, 0, 0, fmt.Errorf("reading metadata: %w", err)
	}
	return js, head + int64(n), size - head - int64(n), nil
}

// readMeta2 reads a format 2 part's metadata (before its trailer, after
// the data) and says where its data start and how long they are.
func readMeta2(r io.ReaderAt, size int64) (js []byte, off, dataBytes int64, err error) {
	head := int64(len(Magic2))
	var tail [trailerLen]byte
	if size < head+int64(trailerLen) {
		return nil, 0, 0, fmt.Errorf("%d bytes, no %q trailer: truncated or damaged (a run stopped while writing it? rerun the shard)", size, Magic2[:len(Magic2)-1])
	}
	if _, err := r.ReadAt(tail[:], size-int64(trailerLen)); err != nil {
		return nil, 0, 0, fmt.Errorf("reading the trailer: %w", err)
	}
	if string(tail[8:]) != Magic2 {
		return nil, 0, 0, fmt.Errorf("no %q trailer at its end: truncated or damaged (a run stopped while writing it? rerun the shard)", Magic2[:len(Magic2)-1])
	}
	n := binary.LittleEndian.Uint64(tail[:8])
	if n > maxMeta || int64(n) > size-head-int64(trailerLen) {
		return nil, 0, 0, fmt.Errorf("metadata of %d bytes in a file of %d: truncated or damaged", n, size)
	}
	at := size - int64(trailerLen) - int64(n)
	js = make([]byte, n)
	if _, err := io.ReadFull(io.NewSectionReader(r, at, int64(n)), js); err != nil {
		return nil, 0, 0, fmt.Errorf("reading metadata: %w", err)
	}
	return js, head, at - head, nil
}

// Close closes the file (nothing for Read's).
func (p *File) Close() error {
	if p.c == nil {
		return nil
	}
	return p.c.Close()
}

// data is a reader of the data section that stops with ctx's error once
// ctx is cancelled (a part may hold gigabytes).
func (p *File) data(ctx context.Context) io.Reader {
	return ctxReader{ctx, io.NewSectionReader(p.r, p.off, p.Meta.DataBytes)}
}

// ctxReader is r failing with ctx's error once ctx is cancelled: a read
// of a large file stops within one buffer fill (1 MiB here) of it.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

// Read implements io.Reader.
func (c ctxReader) Read(b []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(b)
}

// ErrChecksum says a part's data do not match the hash in its metadata.
var ErrChecksum = errors.New("data do not match their SHA-256")

// Data reads the visibilities as a Result of the block (all integrations
// done), a piece at a time (no second copy), and checks their hash; it
// stops when ctx is cancelled.
func (p *File) Data(ctx context.Context) (*matvis.Result, error) {
	m := &p.Meta
	res := &matvis.Result{Shape: m.Shape, Precision: m.Precision, Done: make([]bool, m.Block.Size())}
	for i := range res.Done {
		res.Done[i] = true
	}
	n := int(m.DataBytes / m.ElemBytes())
	h := sha256.New()
	r := bufio.NewReaderSize(io.TeeReader(p.data(ctx), h), 1<<20)
	var err error
	if m.Precision == 1 {
		res.Vis64 = make([]complex64, n)
		err = decodeInto(p, r, res.Vis64)
	} else {
		res.Vis128 = make([]complex128, n)
		err = decodeInto(p, r, res.Vis128)
	}
	if err != nil {
		return nil, err
	}
	if hex.EncodeToString(h.Sum(nil)) != m.DataSHA256 {
		return nil, fmt.Errorf("part %s: %w", p.Path, ErrChecksum)
	}
	return res, nil
}

// decodeInto reads the part's data from r into dst in Result order, an
// integration at a time from the file's order (format 2's time-major
// data are put back in (freq, time) order), and checks that each value
// is finite.
func decodeInto[T complex64 | complex128](p *File, r io.Reader, dst []T) error {
	m := &p.Meta
	nf, nt := m.Shape[0], m.Shape[1]
	per := len(dst) / (nf * nt)
	for k := range nf * nt { // file order
		f, t := k/nt, k%nt
		if p.timeMajor {
			t, f = k/nf, k%nf
		}
		v := dst[(f*nt+t)*per : (f*nt+t+1)*per]
		if err := decode(r, v); err != nil {
			return fmt.Errorf("part %s: reading data: %w", p.Path, err)
		}
		if err := checkFinite(p, v, int64(k*per)); err != nil {
			return err
		}
	}
	return nil
}

// decode reads little-endian values into dst, encodeStep at a time.
func decode[T complex64 | complex128](r io.Reader, dst []T) error {
	for i := 0; i < len(dst); i += encodeStep {
		if err := binary.Read(r, binary.LittleEndian, dst[i:min(i+encodeStep, len(dst))]); err != nil {
			return err
		}
	}
	return nil
}

// Verify checks that path is a complete, undamaged part (its data match
// their hash) and returns its metadata; it stops when ctx is cancelled.
func Verify(ctx context.Context, path string) (*Meta, error) {
	p, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	if err := p.Verify(ctx); err != nil {
		return nil, err
	}
	return &p.Meta, nil
}

// Verify checks the part's data against their hash and that every
// visibility is finite, a piece at a time; it stops when ctx is
// cancelled.
func (p *File) Verify(ctx context.Context) error {
	h := sha256.New()
	r := bufio.NewReaderSize(io.TeeReader(p.data(ctx), h), 1<<20)
	n := p.Meta.DataBytes / p.Meta.ElemBytes()
	var err error
	if p.Meta.Precision == 1 {
		err = verifyFinite[complex64](p, r, n)
	} else {
		err = verifyFinite[complex128](p, r, n)
	}
	if err != nil {
		return err
	}
	if hex.EncodeToString(h.Sum(nil)) != p.Meta.DataSHA256 {
		return fmt.Errorf("part %s: %w", p.Path, ErrChecksum)
	}
	return nil
}

// verifyFinite reads n visibilities from r, encodeStep at a time, and
// checks that each is finite.
func verifyFinite[T complex64 | complex128](p *File, r io.Reader, n int64) error {
	buf := make([]T, min(n, encodeStep))
	for i := int64(0); i < n; i += int64(len(buf)) {
		b := buf[:min(int64(len(buf)), n-i)]
		if err := binary.Read(r, binary.LittleEndian, b); err != nil {
			return fmt.Errorf("part %s: reading data: %w", p.Path, err)
		}
		if err := checkFinite(p, b, i); err != nil {
			return err
		}
	}
	return nil
}
