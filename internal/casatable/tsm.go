package casatable

import (
	"fmt"
	"os"
	"path/filepath"
)

// A Tiled column is stored by a TiledColumnStMan of its own: one
// hypercube of shape [cell..., nrow] whose tiles are one row each, so that
// the tiles, in order, are the column's cells in row order, encoded as
// StManAipsIO encodes them (big-endian values, a Bool cell's bits packed
// from the cell's first byte). Its data file, table.f<seq>_TSM0, is
// therefore written as rows arrive, like table.f0's direct columns, and
// casacore addresses it with 64-bit offsets (TSMFile version 2 past
// 2 GiB), so it has no 4 GiB limit. Its header, table.f<seq>, is written
// by Close (TiledColumnStMan's and TiledStMan::headerFilePut's layout).

// tsmName is the tiled storage manager's type.
const tsmName = "TiledColumnStMan"

// tsmGroup is the data manager group (and hypercolumn name) of a tiled
// column.
func tsmGroup(c Column) string { return "Tiled" + c.Name }

// seqnrs gives each column its data manager's sequence number: 0 for
// StManAipsIO, 1, 2, ... for the tiled columns in column order.
func seqnrs(cols []Column) []int {
	out := make([]int, len(cols))
	n := 0
	for i, c := range cols {
		if c.Tiled {
			n++
			out[i] = n
		}
	}
	return out
}

// tsmFile is the name of a tiled column's data file.
func tsmFile(seq int) string { return fmt.Sprintf("table.f%d_TSM0", seq) }

// createTiled opens column i's data file for direct writes.
func (w *Writer) createTiled(seq int) (*spill, error) {
	f, err := os.Create(filepath.Join(w.dir, tsmFile(seq)))
	if err != nil {
		return nil, err
	}
	return &spill{f: f}, nil
}

// bucketSize is the bytes of one tile, one cell of c.
func bucketSize(c Column) uint64 {
	if c.Type == Bool {
		return (uint64(c.nelem()) + 7) / 8
	}
	return uint64(c.nelem()) * uint64(c.Type.size())
}

// maxTiled bounds a tiled column's data file (1 PiB), far above any
// table written here, so that its size never overflows.
const maxTiled = 1 << 50

// tiledSize is the bytes of a tiled column's data file for nrow rows, or
// an error when that is over maxTiled.
func tiledSize(c Column, nrow int) (int64, error) {
	if nrow < 0 || bucketSize(c) > maxTiled/uint64(max(nrow, 1)) {
		return 0, fmt.Errorf("column %s: %d rows of %d bytes are over the %d bytes a tiled column is allowed", c.Name, nrow, bucketSize(c), uint64(maxTiled))
	}
	return int64(uint64(nrow) * bucketSize(c)), nil
}

// tsmHeader encodes table.f<seq> of a tiled column of nrow rows
// (TiledColumnStMan's header: its default tile shape, then
// TiledStMan::headerFilePut, version 1 for big-endian data, with one
// TSMFile and one TSMCube object).
func tsmHeader(c Column, seq, nrow int) []byte {
	tile := append(append([]int(nil), c.Shape...), 1)
	cube := append(append([]int(nil), c.Shape...), nrow)
	length := uint64(nrow) * bucketSize(c)
	var e enc
	e.start(tsmName, 1)
	e.iposition(tile)
	e.start("TiledStMan", 1)
	e.u32(uint32(seq))
	e.u32(uint32(nrow))
	e.u32(1) // columns
	e.i32(int32(c.Type))
	e.str(tsmGroup(c))
	e.u32(0) // maximum cache size: casacore's default
	e.u32(uint32(len(cube)))
	e.u32(1) // files
	e.boolean(true)
	if length < 1<<31 { // TSMFile::putObject: 32-bit length below 2 GiB
		e.u32(1)
		e.u32(0)
		e.u32(uint32(length))
	} else {
		e.u32(2)
		e.u32(0)
		e.u64(length)
	}
	e.u32(1) // cubes
	e.u32(1) // TSMCube version 1: the cube starts at offset 0
	e.start("Record", 1)
	e.start("RecordDesc", 2)
	e.i32(0)
	e.end()
	e.i32(1) // RecordInterface::Variable
	e.end()
	e.boolean(true) // extensible
	e.u32(uint32(len(cube)))
	e.iposition(cube)
	e.iposition(tile)
	e.i32(0) // the file's sequence number
	e.u32(0) // the cube's offset in it
	e.end()
	e.end()
	return e.b
}

// finishTiled checks that tiled column i filled its file, closes it and
// writes the manager's header.
func (w *Writer) finishTiled(i, seq int) error {
	c, s := w.desc.Columns[i], w.spills[i]
	want := uint64(w.nrow) * bucketSize(c)
	err := s.f.Close()
	if err == nil && s.n != want {
		err = fmt.Errorf("column %s has %d bytes of values, want %d", c.Name, s.n, want)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(w.dir, fmt.Sprintf("table.f%d", seq)), tsmHeader(c, seq, w.nrow), 0o666)
	}
	if err != nil {
		return fmt.Errorf("casatable: %s: %w", w.dir, err)
	}
	return nil
}
