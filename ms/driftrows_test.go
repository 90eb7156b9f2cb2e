package ms

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/uvh5"
)

// driftOf opens a Drift writer on the first reference case, and returns
// it with the case's file and a block maker for rows [k0, k1) of time ti.
func driftOf(t *testing.T) (*Drift, func(ti, k0, k1 int) DriftBlock) {
	t.Helper()
	src := filepath.Join(refDir, "pyuvsim-"+refCases[0])
	f, err := uvh5.ReadFile(filepath.Join(src, refCases[0]+".uvh5"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewDrift(filepath.Join(t.TempDir(), "x.ms"), &f.Header, Phasing{EOP: eopOf(t, src)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	h := &f.Header
	nb, nv := d.w.h.Baselines, len(h.Freqs)*len(h.Pols)
	return d, func(ti, k0, k1 int) DriftBlock {
		lo, hi := ti*nb+k0, ti*nb+k1
		b := DriftBlock{JD: d.w.h.Times[ti], LST: h.LSTs[lo], Vis: f.Vis[lo*nv : hi*nv]}
		for k := lo; k < hi; k++ {
			b.Ant1, b.Ant2 = append(b.Ant1, int(h.Ant1[k])), append(b.Ant2, int(h.Ant2[k]))
		}
		return b
	}
}

// TestDriftRowsInOrder: WriteRows takes a time's rows in order: rows that
// skip ahead of, or repeat, those written are refused, naming the row
// that is next (MAIN's rows are written where they fall; a gap would be
// rows of zeros, a repeat would overwrite).
func TestDriftRowsInOrder(t *testing.T) {
	d, block := driftOf(t)
	nb := d.w.h.Baselines
	if nb < 4 {
		t.Fatalf("%d baselines: too few for the test", nb)
	}
	if err := d.WriteRows(1, block(0, 1, 2)); err == nil || !strings.Contains(err.Error(), "where row 0 of") {
		t.Errorf("rows [1, 2) first: %v, want refused naming row 0", err)
	}
	if err := d.WriteRows(0, block(0, 0, 2)); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteRows(0, block(0, 0, 1)); err == nil || !strings.Contains(err.Error(), "where row 2 of") {
		t.Errorf("row 0 again: %v, want refused naming row 2", err)
	}
	if err := d.WriteRows(3, block(0, 3, 4)); err == nil || !strings.Contains(err.Error(), "where row 2 of") {
		t.Errorf("row 3 after row 1: %v, want refused naming row 2", err)
	}
	if k0, k := d.NextRow(); k0 != 0 || k != 2 {
		t.Errorf("NextRow = %d, %d after refusals; want 0, 2", k0, k)
	}
}

// TestDriftPieceBound: no more than piece visibilities are phased and
// held at once (the field's contract), one row's at least: the phased
// buffer never grows past max(piece, one row).
func TestDriftPieceBound(t *testing.T) {
	for _, rows := range []float64{0.1, 1, 2.5, 2.9} {
		d, block := driftOf(t)
		nb := d.w.h.Baselines
		nv := len(d.w.h.Freqs) * len(d.w.h.Pols)
		piece := max(1, int(rows*float64(nv)))
		d.piece = piece
		if err := d.WriteRows(0, block(0, 0, nb)); err != nil {
			t.Fatal(err)
		}
		if c, most := cap(d.buf.data), max(piece/nv, 1)*nv; c > most || nb < 3 {
			t.Errorf("piece %d (%d values a row, %d rows): %d values held, want at most %d", piece, nv, nb, c, most)
		}
	}
}
