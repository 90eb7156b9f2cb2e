// Package casatable writes casacore tables (the format of CASA's
// Measurement Sets) in pure Go: a table is a directory holding table.dat
// (the AipsIO-encoded description: columns, their types, cell shapes and
// keywords, and the binding of columns to storage managers), table.info
// and the storage managers' files.
//
// Two storage managers are written. casacore's StManAipsIO stores every
// column not marked Tiled: table.f0 holds them one after the other, each
// as an AipsIO object. It stores scalars, strings and fixed-shape arrays
// with no indexing to get wrong; it is casacore's oldest manager, and
// casacore 3.5 (python-casacore, casacore-tools, WSClean 3.1) reads it,
// loading it whole when the table is opened. Its AipsIO lengths are 32-bit,
// so its file is limited to 4 GiB; Create refuses a larger one. A Tiled
// array column gets a TiledColumnStMan of its own (tsm.go), whose data
// file has no such limit: a Measurement Set's DATA and FLAG go there.
//
// Rows are written column by column in row order. In a table without
// String columns every column's place in table.f0 is known from the row
// count, so values are written there as they arrive; otherwise each
// column's values go to a spill file beside the table's files (bounded
// buffers) and Close assembles table.f0 from them.
//
// Read reads such a table back, bounded against damaged files, for the
// writers' own round-trip tests.
package casatable

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/gomatvis/gomatvis/internal/atomicfile"
)

// dmName is the storage manager's type and name.
const dmName = "StManAipsIO"

// Info is the table's table.info: its type ("Measurement Set" for an MS
// main table, empty for its subtables) and readme.
type Info struct {
	Type, SubType, Readme string
}

// Desc describes a table.
type Desc struct {
	Columns  []Column
	Keywords Record
	Info     Info
}

// Writer writes one table of a number of rows fixed at Create.
type Writer struct {
	dir    string
	desc   Desc
	nrow   int
	spills []*spill
	seq    []int    // each column's data manager (seqnrs)
	f0     *os.File // table.f0 when the columns are written in place
	dat    []byte   // table.dat, encoded at Create
	closed bool
}

// spill takes one column's encoded values: into its place in table.f0
// (direct) or into a spill file until Close.
type spill struct {
	f     *os.File      // the spill file, or table.f0 when direct
	w     *bufio.Writer // the spill file's buffer; nil when direct
	off   int64         // direct: where the next bytes go in table.f0
	n     uint64        // bytes written
	nelem uint64        // elements written
	buf   []byte
	// Bools are packed 8 to a byte, lowest bit first, a scalar column's
	// over all rows and an array column's cell by cell (AipsIO packs the
	// values of each write call: TypeIO::write and Conversion::boolToBit).
	bits, nbits int // the byte being packed and its bits set so far
	cellBits    int // bits packed of the current cell
}

// maxFile is the largest StManAipsIO file: its lengths are 32-bit.
const maxFile = math.MaxUint32

// ErrTooLarge is wrapped by Create's refusal of a table over maxFile, so
// that callers can say how to split their data.
var ErrTooLarge = errors.New("over the 4 GiB a StManAipsIO table holds")

// Create makes the directory dir (which must not exist) and returns a
// Writer for nrow rows of the table desc.
func Create(dir string, desc Desc, nrow int) (*Writer, error) {
	if err := checkColumns(desc.Columns); err != nil {
		return nil, err
	}
	if nrow < 0 || uint64(nrow) > math.MaxInt32 {
		return nil, fmt.Errorf("casatable: %s: %d rows; must be 0..%d", dir, nrow, math.MaxInt32)
	}
	if len(desc.Columns) > 0 && !slices.ContainsFunc(desc.Columns, func(c Column) bool { return !c.Tiled }) {
		return nil, fmt.Errorf("casatable: %s: every column is tiled; keep one (a scalar) in StManAipsIO", dir)
	}
	for _, c := range desc.Columns {
		if _, err := tiledSize(c, nrow); c.Tiled && err != nil {
			return nil, fmt.Errorf("casatable: %s: %w", dir, err)
		}
	}
	if err := CheckSize(desc, nrow); err != nil {
		return nil, fmt.Errorf("casatable: %s: %w", dir, err)
	}
	dat, err := tableDat(desc, nrow)
	if err != nil {
		return nil, fmt.Errorf("casatable: %s: %w", dir, err)
	}
	if err := os.Mkdir(dir, 0o777); err != nil {
		return nil, fmt.Errorf("casatable: %w", err)
	}
	w := &Writer{dir: dir, desc: desc, nrow: nrow, dat: dat}
	if err := w.openSinks(); err != nil {
		w.Abort()
		return nil, fmt.Errorf("casatable: %w", err)
	}
	return w, nil
}

// openSinks opens each tiled column's data file, and table.f0 for direct
// writes when no other column holds strings, else a spill file per other
// column.
func (w *Writer) openSinks() error {
	w.seq = seqnrs(w.desc.Columns)
	direct := true
	for _, c := range w.desc.Columns {
		direct = direct && (c.Type != String || c.Tiled)
	}
	w.spills = make([]*spill, len(w.desc.Columns))
	off := int64(len(w.header()))
	for i, c := range w.desc.Columns {
		var err error
		switch {
		case c.Tiled:
			w.spills[i], err = w.createTiled(w.seq[i])
		case direct:
			if w.f0 == nil {
				if w.f0, err = os.Create(filepath.Join(w.dir, "table.f0")); err != nil {
					return err
				}
			}
			size := w.dataSize(i)
			off += int64(len(w.columnHead(i, size)))
			w.spills[i] = &spill{f: w.f0, off: off}
			off += int64(size)
		default:
			var f *os.File
			if f, err = os.Create(filepath.Join(w.dir, fmt.Sprintf(".spill%d", i))); err == nil {
				w.spills[i] = &spill{f: f, w: bufio.NewWriterSize(f, 64<<10)}
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// dataSize is the byte size of all values of column i, which has no
// strings.
func (w *Writer) dataSize(i int) uint64 {
	c := w.desc.Columns[i]
	nrow, nelem := uint64(w.nrow), uint64(c.nelem())
	switch {
	case c.Type == Bool && c.Shape == nil:
		return (nrow + 7) / 8
	case c.Type == Bool:
		return nrow * ((nelem + 7) / 8)
	}
	return nrow * nelem * uint64(c.Type.size())
}

// fixedSize is the size of table.f0 without the strings' bytes.
func fixedSize(cols []Column, nrow int) uint64 {
	var n uint64 = 1 << 12 // the header, generously
	for _, c := range cols {
		if c.Tiled {
			continue
		}
		el := uint64(c.Type.size()) * 8
		if c.Type == String {
			el = 32
		} else if c.Type == Bool {
			el = 1
		}
		n += 256 + uint64(nrow)*uint64(c.nelem())*el/8
	}
	return n
}

// CheckSize is Create's check that nrow rows of desc's StManAipsIO
// columns fit its 4 GiB (wrapping ErrTooLarge when not), for callers to
// make before they build the rows.
func CheckSize(desc Desc, nrow int) error {
	if size := fixedSize(desc.Columns, nrow); size > maxFile {
		return fmt.Errorf("%d rows of these columns take %d bytes, %w; write fewer rows (times or channels) per table", nrow, size, ErrTooLarge)
	}
	return nil
}

// Columns is the number of columns.
func (w *Writer) Columns() int { return len(w.desc.Columns) }

// column checks that col exists, has type t and that n more elements fit.
func (w *Writer) column(col int, t DataType, n int) (*spill, error) {
	if w.closed {
		return nil, fmt.Errorf("casatable: %s: the writer is closed", w.dir)
	}
	if col < 0 || col >= len(w.desc.Columns) {
		return nil, fmt.Errorf("casatable: %s: column %d of %d", w.dir, col, len(w.desc.Columns))
	}
	c := w.desc.Columns[col]
	if c.Type != t {
		return nil, fmt.Errorf("casatable: %s: column %s holds type %d, not %d", w.dir, c.Name, c.Type, t)
	}
	s := w.spills[col]
	if want := uint64(w.nrow) * uint64(c.nelem()); s.nelem+uint64(n) > want {
		return nil, fmt.Errorf("casatable: %s: column %s: %d more values after %d exceed its %d rows × %d", w.dir, c.Name, n, s.nelem, w.nrow, c.nelem())
	}
	s.nelem += uint64(n)
	return s, nil
}

func (s *spill) flush() error {
	var n int
	var err error
	if s.w == nil {
		n, err = s.f.WriteAt(s.buf, s.off)
		s.off += int64(n)
	} else {
		n, err = s.w.Write(s.buf)
	}
	s.n += uint64(n)
	return err
}

// chunk is the most values one write encodes, so that a column's
// buffer stays near 1 MiB whatever the size of a Put.
const chunk = 1 << 16

// putValues appends v to column col, encoding chunk values at a time with enc.
func putValues[T any](w *Writer, col int, t DataType, v []T, enc func(b []byte, x T) []byte) error {
	s, err := w.column(col, t, len(v))
	if err != nil {
		return err
	}
	for lo := 0; lo < len(v); lo += chunk {
		s.buf = s.buf[:0]
		for _, x := range v[lo:min(len(v), lo+chunk)] {
			s.buf = enc(s.buf, x)
		}
		if err := s.flush(); err != nil {
			return fmt.Errorf("casatable: %s: column %s: %w", w.dir, w.desc.Columns[col].Name, err)
		}
	}
	return nil
}

// inChunks appends n values of fixed byte size to column col, chunk
// values at a time: fill encodes values lo..hi into buf.
func (w *Writer) inChunks(col int, t DataType, n, size int, fill func(buf []byte, lo, hi int)) error {
	s, err := w.column(col, t, n)
	if err != nil {
		return err
	}
	for lo := 0; lo < n; lo += chunk {
		hi := min(n, lo+chunk)
		if cap(s.buf) < (hi-lo)*size {
			s.buf = make([]byte, (hi-lo)*size)
		}
		s.buf = s.buf[:(hi-lo)*size]
		fill(s.buf, lo, hi)
		if err := s.flush(); err != nil {
			return fmt.Errorf("casatable: %s: column %s: %w", w.dir, w.desc.Columns[col].Name, err)
		}
	}
	return nil
}

// PutBools appends values (in row order, a cell's elements with the first
// axis fastest) to column col, as do the other Put methods.
func (w *Writer) PutBools(col int, v []bool) error {
	s, err := w.column(col, Bool, len(v))
	if err != nil {
		return err
	}
	cell := w.desc.Columns[col].nelem()
	if w.desc.Columns[col].Shape == nil {
		cell = 0 // one packing over all rows
	}
	for lo := 0; lo < len(v); lo += chunk {
		s.buf = s.packBools(s.buf[:0], v[lo:min(len(v), lo+chunk)], cell)
		if err := s.flush(); err != nil {
			return fmt.Errorf("casatable: %s: column %s: %w", w.dir, w.desc.Columns[col].Name, err)
		}
	}
	return nil
}

// packBools appends the bytes that v completes to b, packing bits into
// cells of cell values (0: one packing of all): eight at a time where a
// byte begins and its cell has eight more values, else as packBits.
func (s *spill) packBools(b []byte, v []bool, cell int) []byte {
	for len(v) > 0 {
		if s.nbits != 0 || len(v) < 8 || (cell != 0 && cell-s.cellBits < 8) {
			b = s.packBits(b, v[:1], cell)
			v = v[1:]
			continue
		}
		var x byte
		for j, f := range v[:8] {
			if f {
				x |= 1 << j
			}
		}
		b = append(b, x)
		v = v[8:]
		if s.cellBits += 8; s.cellBits == cell {
			s.cellBits = 0
		}
	}
	return b
}

// packBits is packBools one bit at a time: each value goes into the byte
// being packed, which is appended to b when it has 8 bits or ends a cell.
func (s *spill) packBits(b []byte, v []bool, cell int) []byte {
	for _, x := range v {
		if x {
			s.bits |= 1 << s.nbits
		}
		s.nbits++
		s.cellBits++
		endCell := s.cellBits == cell
		if s.nbits == 8 || endCell {
			b = append(b, byte(s.bits))
			s.bits, s.nbits = 0, 0
		}
		if endCell {
			s.cellBits = 0
		}
	}
	return b
}

// PutInts appends Int values.
func (w *Writer) PutInts(col int, v []int32) error {
	return w.inChunks(col, Int, len(v), 4, func(b []byte, lo, hi int) {
		for i, x := range v[lo:hi] {
			binary.BigEndian.PutUint32(b[4*i:], uint32(x))
		}
	})
}

// PutFloats appends float values.
func (w *Writer) PutFloats(col int, v []float32) error {
	return w.inChunks(col, Float, len(v), 4, func(b []byte, lo, hi int) {
		for i, x := range v[lo:hi] {
			binary.BigEndian.PutUint32(b[4*i:], math.Float32bits(x))
		}
	})
}

// PutDoubles appends double values.
func (w *Writer) PutDoubles(col int, v []float64) error {
	return w.inChunks(col, Double, len(v), 8, func(b []byte, lo, hi int) {
		for i, x := range v[lo:hi] {
			binary.BigEndian.PutUint64(b[8*i:], math.Float64bits(x))
		}
	})
}

// PutComplex appends complex (two float32) values.
func (w *Writer) PutComplex(col int, v []complex64) error {
	return w.inChunks(col, Complex, len(v), 8, func(b []byte, lo, hi int) {
		for i, x := range v[lo:hi] {
			re, im := math.Float32bits(real(x)), math.Float32bits(imag(x))
			binary.BigEndian.PutUint64(b[8*i:], uint64(re)<<32|uint64(im))
		}
	})
}

// PutStrings appends String values.
func (w *Writer) PutStrings(col int, v []string) error {
	return putValues(w, col, String, v, func(b []byte, x string) []byte {
		b = binary.BigEndian.AppendUint32(b, uint32(len(x)))
		return append(b, x...)
	})
}

// Abort removes the table's directory.
func (w *Writer) Abort() {
	for _, s := range w.spills {
		if s != nil {
			s.f.Close()
		}
	}
	if w.f0 != nil {
		w.f0.Close()
	}
	w.spills = nil
	w.closed = true
	os.RemoveAll(w.dir)
}

// Close checks that every column got all its rows, writes table.f0,
// table.dat and table.info and removes the spill files. On an error the
// directory is removed.
func (w *Writer) Close() error {
	if w.closed {
		return fmt.Errorf("casatable: %s: the writer is closed", w.dir)
	}
	err := w.finish()
	if err != nil {
		w.Abort()
		return err
	}
	w.closed = true
	return nil
}

func (w *Writer) finish() error {
	for i, c := range w.desc.Columns {
		s := w.spills[i]
		if want := uint64(w.nrow) * uint64(c.nelem()); s.nelem != want {
			return fmt.Errorf("casatable: %s: column %s got %d values; %d rows × %d need %d", w.dir, c.Name, s.nelem, w.nrow, c.nelem(), want)
		}
		if s.nbits > 0 { // a scalar Bool column's last bits
			s.buf = append(s.buf[:0], byte(s.bits))
			s.bits, s.nbits = 0, 0
			if err := s.flush(); err != nil {
				return fmt.Errorf("casatable: %s: %w", w.dir, err)
			}
		}
		if c.Tiled {
			if err := w.finishTiled(i, w.seq[i]); err != nil {
				return err
			}
			continue
		}
		if s.w == nil {
			continue
		}
		if err := s.w.Flush(); err != nil {
			return fmt.Errorf("casatable: %s: %w", w.dir, err)
		}
	}
	var err error
	if w.f0 != nil {
		err = w.finishDirect()
	} else {
		err = w.writeData()
	}
	if err != nil {
		return err
	}
	for _, s := range w.spills {
		if s.w != nil && s.f != nil {
			s.f.Close()
			os.Remove(s.f.Name())
		}
	}
	w.spills = nil
	if err := os.WriteFile(filepath.Join(w.dir, "table.dat"), w.dat, 0o666); err != nil {
		return fmt.Errorf("casatable: %w", err)
	}
	info := fmt.Sprintf("Type = %s\nSubType = %s\n\n%s", w.desc.Info.Type, w.desc.Info.SubType, w.desc.Info.Readme)
	if err := os.WriteFile(filepath.Join(w.dir, "table.info"), []byte(info), 0o666); err != nil {
		return fmt.Errorf("casatable: %w", err)
	}
	return nil
}

// columnHeads returns the bytes of column i's object up to its values,
// which follow (the spill), and the lengths that make its objects whole
// (StManColumnAipsIO::putFile and StManColumnArrayAipsIO::putFile): the
// row count, then one chunk of all rows: its row count and its element
// count.
func (w *Writer) columnHead(i int, data uint64) []byte {
	c := w.desc.Columns[i]
	inner := uint64(4) // nrval
	if w.nrow > 0 {
		inner += 4 + 4 + data
	}
	const scalarType, arrayType = "StManColumnAipsIO", "StManColumnArrayAipsIO"
	innerLen := objectLen(scalarType, inner)
	var e enc
	put := func(typ string, length uint64) {
		e.u32(uint32(length))
		e.str(typ)
		e.u32(2)
	}
	if c.Shape != nil {
		put(arrayType, objectLen(arrayType, innerLen))
	}
	put(scalarType, innerLen)
	e.u32(uint32(w.nrow))
	if w.nrow > 0 {
		e.u32(uint32(w.nrow))
		e.u32(uint32(uint64(w.nrow) * uint64(c.nelem())))
	}
	return e.b
}

// header is table.f0's start (StManAipsIO::flush) up to the columns,
// with the file's length field zero.
func (w *Writer) header() []byte {
	var e enc
	e.u32(magic)
	e.u32(0) // the length, filled in when known
	e.str(dmName)
	e.u32(2)
	e.str(dmName)
	e.u32(0) // sequence number
	e.u32(0) // unique number for the column files it never makes
	e.u32(uint32(w.nrow))
	e.u32(uint32(len(w.aips())))
	for _, i := range w.aips() {
		e.i32(int32(w.desc.Columns[i].Type))
	}
	return e.b
}

// finishDirect checks that every column filled its place and writes the
// header and the columns' heads around the values.
func (w *Writer) finishDirect() error {
	hdr := w.header()
	off := int64(len(hdr))
	var werr error
	for _, i := range w.aips() {
		s := w.spills[i]
		size := w.dataSize(i)
		if s.n != size {
			return fmt.Errorf("casatable: %s: column %s has %d bytes of values, want %d", w.dir, w.desc.Columns[i].Name, s.n, size)
		}
		h := w.columnHead(i, size)
		if _, err := w.f0.WriteAt(h, off); err != nil {
			werr = err
		}
		off += int64(len(h)) + int64(size)
	}
	if uint64(off-4) > maxFile {
		return fmt.Errorf("casatable: %s: table.f0 would be %d bytes, over StManAipsIO's 4 GiB; write fewer rows per table", w.dir, off)
	}
	binary.BigEndian.PutUint32(hdr[4:], uint32(off-4))
	if _, err := w.f0.WriteAt(hdr, 0); err != nil {
		werr = err
	}
	if err := w.f0.Close(); werr == nil {
		werr = err
	}
	w.f0 = nil
	if werr != nil {
		return fmt.Errorf("casatable: %s: table.f0: %w", w.dir, werr)
	}
	return nil
}

// writeData writes table.f0 (StManAipsIO::flush): the manager's header
// and each column's object, its values copied from the spill.
func (w *Writer) writeData() error {
	heads := make([][]byte, len(w.desc.Columns))
	var body uint64
	for _, i := range w.aips() {
		heads[i] = w.columnHead(i, w.spills[i].n)
		body += uint64(len(heads[i])) + w.spills[i].n
	}
	hdr := w.header()
	total := uint64(len(hdr)-4) + body
	if total > maxFile {
		return fmt.Errorf("casatable: %s: table.f0 would be %d bytes, over StManAipsIO's 4 GiB; write fewer rows per table", w.dir, total)
	}
	binary.BigEndian.PutUint32(hdr[4:], uint32(total))
	f, err := os.Create(filepath.Join(w.dir, "table.f0"))
	if err != nil {
		return fmt.Errorf("casatable: %w", err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	werr := func() error {
		if _, err := bw.Write(hdr); err != nil {
			return err
		}
		for _, i := range w.aips() {
			if _, err := bw.Write(heads[i]); err != nil {
				return err
			}
			s := w.spills[i]
			if _, err := s.f.Seek(0, io.SeekStart); err != nil {
				return err
			}
			if n, err := io.Copy(bw, s.f); err != nil || uint64(n) != s.n {
				return errors.Join(err, fmt.Errorf("copied %d of %d bytes of column %s", n, s.n, w.desc.Columns[i].Name))
			}
		}
		return bw.Flush()
	}()
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("casatable: %s: table.f0: %w", w.dir, werr)
	}
	return nil
}

// tableDat encodes table.dat (BaseTable::writeStart, PlainTable::putFile,
// TableDesc::putFile and ColumnSet::putFile).
func tableDat(d Desc, nrow int) ([]byte, error) {
	var e enc
	e.start("Table", 2)
	e.u32(uint32(nrow))
	e.u32(0) // 0: big-endian data (StManAipsIO is canonical anyway)
	e.str("PlainTable")
	e.start("TableDesc", 2)
	e.str("") // name
	e.str("") // version
	e.str("") // comment
	if err := e.putRecord(d.Keywords); err != nil {
		return nil, err
	}
	if err := e.putRecord(Record{}); err != nil { // private keywords
		return nil, err
	}
	e.u32(uint32(len(d.Columns)))
	for _, c := range d.Columns {
		if err := e.putColumnDesc(c); err != nil {
			return nil, err
		}
	}
	e.end()
	// ColumnSet: version, rows, data managers made, those in use, each
	// one's type and sequence number.
	seq := seqnrs(d.Columns)
	nman := uint32(1 + slices.Max(append(seq, 0)))
	e.i32(-2)
	e.u32(uint32(nrow))
	e.u32(nman)
	e.u32(nman)
	e.str(dmName)
	e.u32(0)
	for i, c := range d.Columns {
		if c.Tiled {
			e.str(tsmName)
			e.u32(uint32(seq[i]))
		}
	}
	for i, c := range d.Columns { // PlainColumn::putFile and the derived
		e.u32(2)
		e.str(c.Name)
		e.u32(1)
		e.u32(uint32(seq[i])) // the data manager's sequence number
		if c.Shape != nil {
			e.boolean(true)
			e.iposition(c.Shape)
		}
	}
	for range nman {
		e.u32(0) // neither manager puts anything in table.dat
	}
	e.end()
	return e.b, nil
}

// aips lists the columns StManAipsIO stores.
func (w *Writer) aips() []int {
	var out []int
	for i, c := range w.desc.Columns {
		if !c.Tiled {
			out = append(out, i)
		}
	}
	return out
}

// Rows is the table's row count.
func (w *Writer) Rows() int { return w.nrow }

// StartWriteback starts writing the table's files to disk as far as they
// are written, and returns at once (atomicfile.StartWriteback), so that
// the sync at the end finds little left: a writer filling the table block
// by block calls it after each block. An error is only advice.
func (w *Writer) StartWriteback() {
	if w.f0 != nil {
		_ = atomicfile.StartWriteback(w.f0) // every direct column's, once
	}
	for _, sp := range w.spills {
		if sp != nil && sp.f != nil && sp.f != w.f0 {
			_ = atomicfile.StartWriteback(sp.f)
		}
	}
}
