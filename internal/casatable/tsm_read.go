package casatable

import (
	"fmt"
	"path/filepath"

	"github.com/gomatvis/gomatvis/internal/inputfile"
)

// maxTSMHeader bounds a tiled manager's header file (a few hundred bytes
// as tsmHeader writes it).
const maxTSMHeader = 1 << 20

// columnSet reads table.dat's ColumnSet after its row count: the data
// managers (StManAipsIO as number 0, TiledColumnStMan for the others) and
// each column's binding, which it returns.
func (d *dec) columnSet(cols []Column) []int {
	d.u32() // data managers made
	nman := d.count(8, "data manager")
	for k := range nman {
		typ, seq := d.str(), d.u32()
		want := tsmName
		if k == 0 {
			want = dmName
		}
		if d.err == nil && (typ != want || seq != uint32(k)) {
			d.fail("data manager %d is %q number %d; this reader takes %s as 0, then %s", k, typ, seq, dmName, tsmName)
		}
	}
	seq := make([]int, len(cols))
	used := make([]bool, nman)
	for i, c := range cols {
		d.u32()
		if s := d.str(); d.err == nil && s != c.Name {
			d.fail("column data %q where column %q was described", s, c.Name)
		}
		d.u32()
		seq[i] = int(d.u32())
		if d.err != nil {
			// A failed read leaves a number that indexes nothing.
			return seq
		}
		if seq[i] >= nman || (seq[i] > 0 && (c.Shape == nil || c.Type == String || used[seq[i]])) {
			d.fail("column %s bound to data manager %d of %d, which it cannot be", c.Name, seq[i], nman)
			return seq
		}
		used[seq[i]] = true
		if c.Shape != nil {
			d.boolean()
			d.iposition()
		}
	}
	for range nman {
		d.take(d.count(1, "data manager blob"))
	}
	return seq
}

// tiled reports whether column i is in a TiledColumnStMan.
func (t *Table) tiled(i int) bool { return t.seq != nil && t.seq[i] > 0 }

// aipsColumns is the columns StManAipsIO stores, in order.
func (t *Table) aipsColumns() []Column {
	var out []Column
	for i, c := range t.Desc.Columns {
		if !t.tiled(i) {
			out = append(out, c)
		}
	}
	return out
}

// readTiled reads every tiled column's header and data file in dir into
// t.Values.
func (t *Table) readTiled(dir string) error {
	for i, c := range t.Desc.Columns {
		if !t.tiled(i) {
			continue
		}
		size, err := t.tiledHeader(dir, i)
		if err != nil {
			return err
		}
		data, err := inputfile.ReadAll(filepath.Join(dir, tsmFile(t.seq[i])), size)
		if err != nil {
			return fmt.Errorf("casatable: %w", err)
		}
		if err := t.tiledLength(dir, i, int64(len(data)), size); err != nil {
			return err
		}
		t.Values[i] = emptyOf(c.Type)
		if t.Rows > 0 {
			d := &dec{b: data}
			t.Values[i] = d.values(c, t.Rows)
			if d.err != nil {
				return fmt.Errorf("casatable: %s: %s: %w", dir, tsmFile(t.seq[i]), d.err)
			}
		}
	}
	return nil
}

// tiledHeader reads and checks tiled column i's header file in dir (Read
// and Open both) and returns the bytes its data file must hold.
func (t *Table) tiledHeader(dir string, i int) (int64, error) {
	c := t.Desc.Columns[i]
	name := fmt.Sprintf("table.f%d", t.seq[i])
	hdr, err := inputfile.ReadAll(filepath.Join(dir, name), maxTSMHeader)
	if err != nil {
		return 0, fmt.Errorf("casatable: %w", err)
	}
	d := &dec{b: hdr}
	d.tsmHeader(c, t.seq[i], t.Rows)
	if d.err != nil {
		return 0, fmt.Errorf("casatable: %s: %s: %w", dir, name, d.err)
	}
	size, err := tiledSize(c, t.Rows)
	if err != nil {
		return 0, fmt.Errorf("casatable: %s: %w", dir, err)
	}
	return size, nil
}

// tiledLength is the error for tiled column i's data file of n bytes
// where its rows need size, or nil.
func (t *Table) tiledLength(dir string, i int, n, size int64) error {
	if n == size {
		return nil
	}
	return fmt.Errorf("casatable: %s: %s has %d bytes; %d rows of column %s need %d", dir, tsmFile(t.seq[i]), n, t.Rows, t.Desc.Columns[i].Name, size)
}

// tsmHeader reads a tiled column's header as tsmHeader writes it,
// checking every count and shape against the column and row count.
func (d *dec) tsmHeader(c Column, seq, nrow int) {
	tile := append(append([]int(nil), c.Shape...), 1)
	cube := append(append([]int(nil), c.Shape...), nrow)
	d.start(tsmName)
	d.shape("default tile", tile)
	if v := d.start("TiledStMan"); d.err == nil && v != 1 {
		d.fail("TiledStMan version %d; this reader takes 1 (big-endian)", v)
	}
	d.want("sequence number", uint64(seq), d.u32())
	d.want("rows", uint64(nrow), d.u32())
	d.want("columns", 1, d.u32())
	d.want("data type", uint64(c.Type), d.u32())
	d.str()
	d.u32()
	d.want("axes", uint64(len(cube)), d.u32())
	d.want("files", 1, d.u32())
	if !d.boolean() && d.err == nil {
		d.fail("the cube's file is absent")
	}
	length := uint64(nrow) * bucketSize(c)
	switch v := d.u32(); {
	case v == 1:
		d.want("file number", 0, d.u32())
		d.want("file length", length, d.u32())
	case v == 2:
		d.want("file number", 0, d.u32())
		if n := d.u64(); d.err == nil && n != length {
			d.fail("file length %d, want %d", n, length)
		}
	default:
		d.fail("TSMFile version %d", v)
	}
	d.want("cubes", 1, d.u32())
	d.want("cube version", 1, d.u32())
	d.start("Record")
	d.start("RecordDesc")
	d.want("cube record fields", 0, d.u32())
	d.end()
	d.u32()
	d.end()
	d.boolean()
	d.want("cube axes", uint64(len(cube)), d.u32())
	d.shape("cube", cube)
	d.shape("tile", tile)
	d.want("cube's file", 0, d.u32())
	d.want("cube's offset", 0, d.u32())
	d.end()
	d.end()
	if d.err == nil && d.pos != len(d.b) {
		d.fail("%d bytes after the header", len(d.b)-d.pos)
	}
}

// want fails unless got is the value wanted for what.
func (d *dec) want(what string, want uint64, got uint32) {
	if d.err == nil && uint64(got) != want {
		d.fail("%s %d, want %d", what, got, want)
	}
}

// shape reads an IPosition and fails unless it is want.
func (d *dec) shape(what string, want []int) {
	got := d.iposition()
	if d.err == nil && fmt.Sprint(got) != fmt.Sprint(want) {
		d.fail("%s shape %v, want %v", what, got, want)
	}
}
