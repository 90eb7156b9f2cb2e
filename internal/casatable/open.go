package casatable

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/gomatvis/gomatvis/internal/inputfile"
)

// Columns is a table opened by Open: its description and row count, with
// table.f0 mapped and indexed but no value decoded. Cells decodes the rows
// of one column a caller asks for, so a reader that needs two columns of
// ten, or a block of rows at a time, never holds a whole table's values
// (Read's main table of a 350-antenna MS holds 1.25 GB of DATA alone).
// It reads with pread, not through a mapping: a mapped file cut short
// reads as zeros up to the end of its last page, a silent wrong value.
type Columns struct {
	Desc  Desc
	Rows  int
	path  string
	f     *os.File
	spans []span
	tiled []*os.File // the tiled columns' data files (TiledColumnStMan)
	// bufs holds read's buffers: Cells decodes each into fresh values,
	// so a block reader's 8 MiB are reused, not zeroed and collected.
	bufs sync.Pool
}

// span is where a column's values lie: in table.f0, or from offset 0 of
// its own data file f (a tiled column).
type span struct {
	off, n int
	f      *os.File
}

// Open reads table dir's description and indexes its table.f0 (mapped
// while it is walked), checking each column's object and value count as
// Read does (Cells decodes what Read would). Close closes table.f0.
func Open(dir string) (*Columns, error) {
	dat, err := readFile(filepath.Join(dir, "table.dat"))
	if err != nil {
		return nil, err
	}
	t, err := parseTableDat(dat)
	if err != nil {
		return nil, fmt.Errorf("casatable: %s: table.dat: %w", dir, err)
	}
	path := filepath.Join(dir, "table.f0")
	m, err := inputfile.Map(path, maxRead)
	if err != nil {
		return nil, fmt.Errorf("casatable: %w", err)
	}
	c := &Columns{Desc: t.Desc, Rows: t.Rows, path: path}
	err = m.Guard(func() error { return c.index(m.Bytes(), t) })
	size := len(m.Bytes())
	if cerr := m.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("casatable: %s: table.f0: %w", dir, err)
	}
	f, n, err := inputfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("casatable: %w", err)
	}
	if n != int64(size) {
		f.Close()
		return nil, fmt.Errorf("casatable: %s: %w (%d bytes, then %d): read it again", path, inputfile.ErrChanged, size, n)
	}
	c.f = f
	if err := c.openTiled(t, dir); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// openTiled checks each tiled column's header and opens its data file,
// whose size must be its rows' exactly; its span replaces the column's.
func (c *Columns) openTiled(t *Table, dir string) error {
	for i := range t.Desc.Columns {
		if !t.tiled(i) {
			continue
		}
		size, err := t.tiledHeader(dir, i)
		if err != nil {
			return err
		}
		f, n, err := inputfile.Open(filepath.Join(dir, tsmFile(t.seq[i])))
		if err != nil {
			return fmt.Errorf("casatable: %w", err)
		}
		c.tiled = append(c.tiled, f)
		if err := t.tiledLength(dir, i, n, size); err != nil {
			return err
		}
		c.spans[i] = span{n: int(size), f: f}
	}
	return nil
}

// Close closes table.f0 and the tiled columns' files; Cells must not be
// called after.
func (c *Columns) Close() error {
	err := c.f.Close()
	for _, f := range c.tiled {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// index walks table.f0 as parseData does, recording each column's values'
// span instead of decoding them.
func (c *Columns) index(b []byte, t *Table) error {
	aips := t.aipsColumns()
	d := &dec{b: b}
	d.start(dmName)
	d.str()
	d.u32()
	d.u32()
	if n := d.u32(); d.err == nil && int(n) != c.Rows {
		d.fail("%d rows in a table of %d", n, c.Rows)
	}
	if n := d.u32(); d.err == nil && int(n) != len(aips) {
		d.fail("%d columns in a table of %d in %s", n, len(aips), dmName)
	}
	for _, col := range aips {
		if dt := DataType(d.i32()); d.err == nil && dt != col.Type {
			d.fail("column %s has type %d, described %d", col.Name, dt, col.Type)
		}
	}
	c.spans = make([]span, len(c.Desc.Columns))
	for i, col := range c.Desc.Columns {
		if d.err != nil {
			break
		}
		if !t.tiled(i) {
			c.spans[i] = d.skipColumn(col, c.Rows)
		}
	}
	d.end()
	if d.err == nil && d.pos != len(b) {
		d.fail("%d bytes after the columns", len(b)-d.pos)
	}
	return d.err
}

// skipColumn reads a column object's heads as column does and steps over
// its values, returning their span.
func (d *dec) skipColumn(c Column, nrow int) span {
	if c.Shape != nil {
		d.start("StManColumnArrayAipsIO")
	}
	d.start("StManColumnAipsIO")
	if n := d.u32(); d.err == nil && int(n) != nrow {
		d.fail("column %s holds %d rows, want %d", c.Name, n, nrow)
	}
	var s span
	if nrow > 0 {
		n := nrow * c.nelem()
		if k := d.u32(); d.err == nil && int(k) != nrow {
			d.fail("column %s in chunks of %d rows; this reader takes one chunk", c.Name, k)
		}
		if k := d.u32(); d.err == nil && int(k) != n {
			d.fail("column %s has %d values, want %d", c.Name, k, n)
		}
		s.off = d.pos
		size := 0
		switch {
		case c.Type == String && len(d.ends) > 0:
			size = d.ends[len(d.ends)-1] - d.pos // checked by end below
		case c.Type == Bool && c.Shape == nil:
			size = (nrow + 7) / 8
		case c.Type == Bool:
			size = nrow * ((c.nelem() + 7) / 8)
		default:
			size = n * c.Type.size()
		}
		if d.take(size) != nil {
			s.n = size
		}
	}
	d.end()
	if c.Shape != nil {
		d.end()
	}
	return s
}

// Cells decodes rows lo to hi of column name, as Read's Values holds them
// ([]bool, []int32, []float32, []float64, []complex64 or []string, a
// cell's first axis fastest). It may be called from several goroutines.
func (c *Columns) Cells(name string, lo, hi int) (any, error) {
	i := c.find(name)
	if i < 0 {
		return nil, fmt.Errorf("casatable: %s: no column %s", c.path, name)
	}
	if lo < 0 || hi < lo || hi > c.Rows {
		return nil, fmt.Errorf("casatable: %s: column %s: rows %d to %d of %d", c.path, name, lo, hi, c.Rows)
	}
	col := c.Desc.Columns[i]
	if hi == lo {
		return emptyOf(col.Type), nil
	}
	v, err := c.decode(col, c.spans[i], lo, hi)
	if err != nil {
		return nil, fmt.Errorf("casatable: %s: column %s: %w", c.path, name, err)
	}
	return v, nil
}

func (c *Columns) find(name string) int {
	for i, col := range c.Desc.Columns {
		if col.Name == name {
			return i
		}
	}
	return -1
}

// decode decodes rows lo to hi (lo < hi) of column col from its span s.
func (c *Columns) decode(col Column, s span, lo, hi int) (any, error) {
	switch {
	case col.Type == String:
		// Strings have no fixed size: decode up to hi and keep the rows asked for.
		b, err := c.read(s, 0, s.n)
		if err != nil {
			return nil, err
		}
		defer c.bufs.Put(&b)
		d := &dec{b: b}
		v, _ := d.values(col, hi).([]string)
		if d.err != nil {
			return nil, d.err
		}
		return v[lo*col.nelem():], nil
	case col.Type == Bool && col.Shape == nil:
		b, err := c.read(s, lo/8, (hi+7)/8)
		if err != nil {
			return nil, err
		}
		defer c.bufs.Put(&b)
		return scalarBits(b, lo%8, hi-lo), nil
	}
	cell := col.nelem() * col.Type.size()
	if col.Type == Bool {
		cell = (col.nelem() + 7) / 8
	}
	b, err := c.read(s, lo*cell, hi*cell)
	if err != nil {
		return nil, err
	}
	defer c.bufs.Put(&b)
	d := &dec{b: b}
	return d.values(col, hi-lo), d.err
}

// read reads bytes from to to of span s into a buffer from c.bufs.
func (c *Columns) read(s span, from, to int) ([]byte, error) {
	var b []byte
	if p, ok := c.bufs.Get().(*[]byte); ok && cap(*p) >= to-from {
		b = (*p)[:to-from]
	} else {
		b = make([]byte, to-from)
	}
	f := c.f
	if s.f != nil {
		f = s.f
	}
	if _, err := f.ReadAt(b, int64(s.off+from)); err != nil {
		return nil, fmt.Errorf("reading %d bytes at %d: %w", len(b), s.off+from, err)
	}
	return b, nil
}

// scalarBits unpacks n bits of a scalar Bool column's bit run b from bit
// first on.
func scalarBits(b []byte, first, n int) []bool {
	v := make([]bool, n)
	for i := range v {
		k := first + i
		v[i] = b[k/8]>>(k%8)&1 == 1
	}
	return v
}
