package casatable

import (
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"

	"github.com/gomatvis/gomatvis/internal/inputfile"
)

// Table is a table read back by Read: its description, row count and
// each column's values ([]bool, []int32, []float32, []float64,
// []complex64 or []string, row after row, a cell's first axis fastest).
type Table struct {
	Desc   Desc
	Rows   int
	Values []any
	seq    []int // each column's data manager: 0 StManAipsIO, else tiled
}

// maxRead bounds the files Read accepts (the writer's 4 GiB limit).
const maxRead = maxFile

// Read reads a table this package wrote (a description with only the
// value types it writes, its columns in one StManAipsIO manager and the
// Tiled ones each in a TiledColumnStMan, read by readTiled). It
// checks every length and count against the bytes present before using
// it, so a damaged or hostile table gives an error, never a panic or an
// allocation beyond its size.
func Read(dir string) (*Table, error) {
	dat, err := readFile(filepath.Join(dir, "table.dat"))
	if err != nil {
		return nil, err
	}
	f0, err := readFile(filepath.Join(dir, "table.f0"))
	if err != nil {
		return nil, err
	}
	t, err := parse(dat, f0)
	if err != nil {
		return nil, fmt.Errorf("casatable: %s: %w", dir, err)
	}
	return t, t.readTiled(dir)
}

// parse reads a table from the bytes of its table.dat and table.f0.
func parse(dat, f0 []byte) (*Table, error) {
	t, err := parseTableDat(dat)
	if err != nil {
		return nil, fmt.Errorf("table.dat: %w", err)
	}
	if err := t.parseData(f0); err != nil {
		return nil, fmt.Errorf("table.f0: %w", err)
	}
	return t, nil
}

// readFile reads one of a table's files through inputfile.ReadAll: a
// FIFO or a directory in a table file's place is refused without
// blocking, and a file over the 4 GiB a table file holds before it is read.
func readFile(path string) ([]byte, error) {
	b, err := inputfile.ReadAll(path, maxRead)
	if err != nil {
		return nil, fmt.Errorf("casatable: %w", err)
	}
	return b, nil
}

// dec reads AipsIO bytes; the first error sticks and later reads return
// zero values.
type dec struct {
	b   []byte
	pos int
	err error
	// ends are the end offsets of the objects being read.
	ends []int
}

func (d *dec) fail(format string, a ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("at byte %d: %s", d.pos, fmt.Sprintf(format, a...))
	}
}

// take returns the next n bytes, or nil after an error or past the end.
func (d *dec) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b)-d.pos {
		d.fail("%d bytes wanted, %d left", n, len(d.b)-d.pos)
		return nil
	}
	p := d.b[d.pos : d.pos+n]
	d.pos += n
	return p
}

func (d *dec) u32() uint32 {
	if p := d.take(4); p != nil {
		return binary.BigEndian.Uint32(p)
	}
	return 0
}

func (d *dec) i32() int32 { return int32(d.u32()) }

func (d *dec) u64() uint64 {
	if p := d.take(8); p != nil {
		return binary.BigEndian.Uint64(p)
	}
	return 0
}

func (d *dec) boolean() bool {
	p := d.take(1)
	return p != nil && p[0] != 0
}

func (d *dec) str() string {
	n := d.u32()
	return string(d.take(int(min(n, math.MaxInt32))))
}

// count reads a count of items of at least size bytes each that must fit
// in what is left.
func (d *dec) count(size int, what string) int {
	n := d.u32()
	if d.err == nil && uint64(n)*uint64(size) > uint64(len(d.b)-d.pos) {
		d.fail("%s count %d does not fit in the %d bytes left", what, n, len(d.b)-d.pos)
		return 0
	}
	return int(n)
}

// start reads an object's head and checks its type and length.
func (d *dec) start(typ string) uint32 {
	if len(d.ends) == 0 {
		if m := d.u32(); d.err == nil && m != magic {
			d.fail("magic %#x, want %#x", m, uint32(magic))
		}
	}
	at := d.pos
	n := d.u32()
	if d.err == nil && (n < 12 || uint64(n) > uint64(len(d.b)-at)) {
		d.fail("object length %d does not fit in the %d bytes left", n, len(d.b)-at)
	}
	if got := d.str(); d.err == nil && got != typ {
		d.fail("object %q, want %q", got, typ)
	}
	v := d.u32()
	d.ends = append(d.ends, at+int(n))
	return v
}

// end checks that the object was read to its end.
func (d *dec) end() {
	if len(d.ends) == 0 {
		d.fail("end of an object never started")
		return
	}
	e := d.ends[len(d.ends)-1]
	d.ends = d.ends[:len(d.ends)-1]
	if d.err == nil && d.pos != e {
		d.fail("object ends at byte %d, read to %d", e, d.pos)
	}
}

func (d *dec) iposition() []int {
	d.start("IPosition")
	n := d.count(4, "IPosition")
	out := make([]int, n)
	for i := range out {
		out[i] = int(d.i32())
	}
	d.end()
	return out
}

// record reads a TableRecord as putRecord writes it.
func (d *dec) record(depth int) Record {
	if depth > 8 {
		d.fail("records nested deeper than 8")
		return Record{}
	}
	d.start("TableRecord")
	d.start("RecordDesc")
	n := d.count(8, "field")
	names := make([]string, n)
	types := make([]DataType, n)
	for i := range n {
		names[i] = d.str()
		types[i] = DataType(d.i32())
		switch types[i] {
		case tpRecord:
			d.start("RecordDesc")
			if k := d.i32(); d.err == nil && k != 0 {
				d.fail("field %q: a sub-record described with %d fields; only whole sub-records are read", names[i], k)
			}
			d.end()
		case tpArrayString, tpArrayUInt:
			d.iposition()
		case tpTable:
			d.str()
		case Double, Int, String:
		default:
			d.fail("field %q has type %d, which this reader does not take", names[i], types[i])
		}
		d.str() // comment
	}
	d.end()
	d.i32() // record type
	var r Record
	for i := range n {
		if d.err != nil {
			break
		}
		var v any
		switch types[i] {
		case Double:
			v = math.Float64frombits(d.u64())
		case Int:
			v = d.i32()
		case String:
			v = d.str()
		case tpTable:
			v = SubTable(trimPrefix(d.str(), "././"))
		case tpRecord:
			v = d.record(depth + 1)
		case tpArrayString:
			d.start("Array<String>")
			d.arrayShape()
			s := make([]string, d.count(4, "string"))
			for j := range s {
				s[j] = d.str()
			}
			d.end()
			v = s
		case tpArrayUInt:
			d.start("Array<uInt>")
			d.arrayShape()
			u := make([]uint32, d.count(4, "uInt"))
			for j := range u {
				u[j] = d.u32()
			}
			d.end()
			v = u
		}
		r = r.Set(names[i], v)
	}
	d.end()
	return r
}

// arrayShape reads an Array's dimensions (only vectors are written).
func (d *dec) arrayShape() {
	if nd := d.u32(); d.err == nil && nd != 1 {
		d.fail("a %d-axis keyword array; only vectors are read", nd)
	}
	d.u32()
}

func trimPrefix(s, p string) string {
	if len(s) >= len(p) && s[:len(p)] == p {
		return s[len(p):]
	}
	return s
}

// parseTableDat reads table.dat as tableDat writes it.
func parseTableDat(b []byte) (*Table, error) {
	d := &dec{b: b}
	d.start("Table")
	t := &Table{Rows: int(d.u32())}
	d.u32() // endianness of the data managers
	if s := d.str(); d.err == nil && s != "PlainTable" {
		d.fail("table type %q, want PlainTable", s)
	}
	d.start("TableDesc")
	d.str()
	d.str()
	d.str()
	t.Desc.Keywords = d.record(0)
	d.record(0)
	ncol := d.count(16, "column")
	for range ncol {
		t.Desc.Columns = append(t.Desc.Columns, d.columnDesc())
	}
	d.end()
	if v := d.i32(); d.err == nil && v != -2 {
		d.fail("column set version %d, want -2", v)
	}
	if n := d.u32(); d.err == nil && int(n) != t.Rows {
		d.fail("column set of %d rows in a table of %d", n, t.Rows)
	}
	t.seq = d.columnSet(t.Desc.Columns)
	d.end()
	if d.err == nil && d.pos != len(b) {
		d.fail("%d bytes after the table", len(b)-d.pos)
	}
	if d.err == nil {
		if err := checkColumns(t.Desc.Columns); err != nil {
			return nil, err
		}
	}
	return t, d.err
}

func (d *dec) columnDesc() Column {
	var c Column
	d.u32()
	class := d.str()
	d.u32()
	c.Name = d.str()
	c.Comment = d.str()
	d.str()
	d.str()
	c.Type = DataType(d.i32())
	d.i32() // option
	ndim := d.i32()
	array := class == "ArrayColumnDesc<"+c.Type.typeName()
	if d.err == nil && !array && class != "ScalarColumnDesc<"+c.Type.typeName() {
		d.fail("column %q: class %q for type %d", c.Name, class, c.Type)
	}
	if array {
		c.Shape = d.iposition()
		if d.err == nil && len(c.Shape) != int(ndim) {
			d.fail("column %q: %d axes with a shape of %d", c.Name, ndim, len(c.Shape))
		}
	}
	d.i32()
	c.Keywords = d.record(0)
	d.u32()
	switch {
	case array:
		d.boolean()
	case c.Type == Bool:
		d.boolean()
	case c.Type == Int || c.Type == Float:
		d.u32()
	case c.Type == Double || c.Type == Complex:
		d.u64()
	case c.Type == String:
		d.str()
	}
	return c
}

// parseData reads table.f0's columns into t.Values.
func (t *Table) parseData(b []byte) error {
	d := &dec{b: b}
	d.start(dmName)
	d.str()
	d.u32()
	d.u32()
	if n := d.u32(); d.err == nil && int(n) != t.Rows {
		d.fail("%d rows in a table of %d", n, t.Rows)
	}
	if n := d.u32(); d.err == nil && int(n) != len(t.aipsColumns()) {
		d.fail("%d columns in a table of %d", n, len(t.aipsColumns()))
	}
	for _, c := range t.aipsColumns() {
		if dt := DataType(d.i32()); d.err == nil && dt != c.Type {
			d.fail("column %s has type %d, described %d", c.Name, dt, c.Type)
		}
	}
	for i, c := range t.Desc.Columns {
		if d.err != nil {
			break
		}
		if t.tiled(i) { // readTiled reads it
			t.Values = append(t.Values, nil)
			continue
		}
		t.Values = append(t.Values, d.column(c, t.Rows))
	}
	d.end()
	if d.err == nil && d.pos != len(b) {
		d.fail("%d bytes after the columns", len(b)-d.pos)
	}
	return d.err
}

// column reads one column's object.
func (d *dec) column(c Column, nrow int) any {
	if c.Shape != nil {
		d.start("StManColumnArrayAipsIO")
	}
	d.start("StManColumnAipsIO")
	if n := d.u32(); d.err == nil && int(n) != nrow {
		d.fail("column %s holds %d rows, want %d", c.Name, n, nrow)
	}
	n := nrow * c.nelem()
	var v any
	if nrow > 0 {
		if k := d.u32(); d.err == nil && int(k) != nrow {
			d.fail("column %s in chunks of %d rows; this reader takes one chunk", c.Name, k)
		}
		if k := d.u32(); d.err == nil && int(k) != n {
			d.fail("column %s has %d values, want %d", c.Name, k, n)
		}
		v = d.values(c, nrow)
	}
	d.end()
	if c.Shape != nil {
		d.end()
	}
	if v == nil {
		v = emptyOf(c.Type)
	}
	return v
}

func emptyOf(t DataType) any {
	switch t {
	case Bool:
		return []bool{}
	case Int:
		return []int32{}
	case Float:
		return []float32{}
	case Double:
		return []float64{}
	case Complex:
		return []complex64{}
	}
	return []string{}
}

// values decodes a column's nrow cells.
func (d *dec) values(c Column, nrow int) any {
	n := nrow * c.nelem()
	size := max(c.Type.size(), 4) // a string takes at least its length
	if c.Type == Bool {
		size = 0
	}
	if uint64(n)*uint64(size) > uint64(len(d.b)-d.pos) {
		d.fail("column %s: %d values do not fit in the %d bytes left", c.Name, n, len(d.b)-d.pos)
		return nil
	}
	switch c.Type {
	case Bool:
		return d.bools(c, nrow)
	case Int, Float, Double, Complex:
		// One take for the whole run: these loops decode a 1.25 GB DATA
		// column, where a bounds check per value cost half the read.
		return fixedValues(c.Type, d.take(n*c.Type.size()), n)
	}
	v := make([]string, n)
	for i := range v {
		v[i] = d.str()
	}
	return v
}

// fixedValues decodes n big-endian values of type t from p (nil after a
// failed take: then nil).
func fixedValues(t DataType, p []byte, n int) any {
	if p == nil {
		return nil
	}
	be := binary.BigEndian
	switch t {
	case Int:
		v := make([]int32, n)
		for i := range v {
			v[i] = int32(be.Uint32(p[4*i:]))
		}
		return v
	case Float:
		v := make([]float32, n)
		for i := range v {
			v[i] = math.Float32frombits(be.Uint32(p[4*i:]))
		}
		return v
	case Double:
		v := make([]float64, n)
		for i := range v {
			v[i] = math.Float64frombits(be.Uint64(p[8*i:]))
		}
		return v
	}
	v := make([]complex64, n)
	for i := range v {
		q := p[8*i : 8*i+8]
		v[i] = complex(math.Float32frombits(be.Uint32(q)), math.Float32frombits(be.Uint32(q[4:])))
	}
	return v
}

// bools unpacks a Bool column: one bit run over all rows for a scalar
// column, a byte-aligned run per cell for an array column.
func (d *dec) bools(c Column, nrow int) []bool {
	cell, cells := c.nelem(), 1
	if c.Shape == nil {
		cell, cells = nrow, 1
	} else {
		cells = nrow
	}
	per := (cell + 7) / 8
	if uint64(per)*uint64(cells) > uint64(len(d.b)-d.pos) {
		d.fail("column %s: %d bytes of bits do not fit in the %d left", c.Name, per*cells, len(d.b)-d.pos)
		return nil
	}
	v := make([]bool, cell*cells)
	for j := range cells {
		p := d.take(per)
		if p == nil {
			return nil
		}
		// Indexed, not appended: a 350-antenna MS's FLAG is 157 M bits.
		o := v[j*cell : (j+1)*cell]
		for i := range o {
			o[i] = p[i>>3]>>(i&7)&1 == 1
		}
	}
	return v
}
