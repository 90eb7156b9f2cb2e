package part

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/npy"
)

// blockAll is the block of a whole nf × nt grid.
func blockAll(nf, nt int) matvis.Block { return matvis.Block{F1: nf, T1: nt} }

// TestWriterAnyOrder: integrations written to a Writer at their
// time-major places in a random order (some runs in file order, hashed as
// they come, the rest hashed from the file at Close) read back with the
// metadata (but for the hash of differently ordered bytes) and data that
// Write gives for the whole result, on fresh random grids of both
// precisions.
func TestWriterAnyOrder(t *testing.T) {
	rng := sharedtest.RNG(t, 1)
	for trial := range 8 {
		nf, nt, np := 1+rng.IntN(4), 1+rng.IntN(4), 1+rng.IntN(5)
		full := grid(nf, nt, np)
		for i := range full.Vis128 {
			full.Vis128[i] = complex(rng.NormFloat64(), rng.NormFloat64())
		}
		if trial%2 == 1 {
			full = single(full)
		}
		m := Meta{ConfigHash: hashA, Shard: 0, N: 1, NFreq: nf, NTime: nt, Block: blockAll(nf, nt), Output: OutputNpy, Backend: "cpu", NpyMeta: npyMetaOf(full)}
		dir := t.TempDir()
		want, got := filepath.Join(dir, "whole"), filepath.Join(dir, "streamed")
		if err := Write(want, m, full); err != nil {
			t.Fatal(err)
		}
		w, err := Create(got, full.Shape, full.Precision)
		if err != nil {
			t.Fatal(err)
		}
		order := rng.Perm(nf * nt)
		if trial%4 == 0 {
			order = order[:0]
			for i := range nf * nt {
				order = append(order, i) // in file order: hashed as written
			}
		}
		for _, k := range order { // integration k of the file's (time, freq) order
			f, tt := k%nf, k/nf
			i := f*nt + tt // Result's (freq, time) order
			lo, hi := int64(i*np), int64((i+1)*np)
			var data any
			if full.Precision == 1 {
				data = full.Vis64[lo:hi]
			} else {
				data = full.Vis128[lo:hi]
			}
			if err := w.WriteAt(int64(k*np), data); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(m); err != nil {
			t.Fatal(err)
		}
		wm, wr := readBack(t, want)
		gm, gr := readBack(t, got)
		// The formats' data orders differ, and so their hashes (each
		// checked against its file by readBack).
		gm.DataSHA256, wm.DataSHA256 = "", ""
		if !reflect.DeepEqual(gm, wm) {
			t.Errorf("trial %d (%d×%d×%d, order %v): metadata %+v, want %+v", trial, nf, nt, np, order, gm, wm)
		}
		if !reflect.DeepEqual(gr.Vis64, wr.Vis64) || !reflect.DeepEqual(gr.Vis128, wr.Vis128) {
			t.Errorf("trial %d: data differ", trial)
		}
	}
}

// readBack opens, verifies and reads a part.
func readBack(t *testing.T, path string) (Meta, *matvis.Result) {
	t.Helper()
	m, err := Verify(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := f.Data(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return *m, res
}

// TestWriterRefuses: an incomplete part is not closed (and leaves no
// file), data of the wrong precision or outside the part are refused.
func TestWriterRefuses(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "p")
	full := grid(2, 2, 3)
	m := Meta{ConfigHash: hashA, N: 1, NFreq: 2, NTime: 2, Block: blockAll(2, 2), Output: OutputNpy, NpyMeta: npyMetaOf(full)}
	w, err := Create(p, full.Shape, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		off  int64
		data any
		want string
	}{
		{0, make([]complex64, 3), "precision 2"},
		{10, make([]complex128, 3), "outside the part's 12"},
		{-1, make([]complex128, 1), "outside"},
	} {
		if err := w.WriteAt(c.off, c.data); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("WriteAt(%d, %T): %v, want %q", c.off, c.data, err, c.want)
		}
	}
	if err := w.WriteAt(0, full.Vis128[:6]); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(m); err == nil || !strings.Contains(err.Error(), "6 of 12 visibilities written") {
		t.Errorf("Close of half a part: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("a refused part left %v", ents)
	}
}

// TestTruncatedPart2Refused: a format 2 part cut at any length, or with
// its trailer's length damaged, is refused with a message that says it is
// truncated or damaged.
func TestTruncatedPart2Refused(t *testing.T) {
	dir := t.TempDir()
	full := grid(2, 3, 2)
	p := filepath.Join(dir, "p")
	w, err := Create(p, full.Shape, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteAt(0, full.Vis128); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(Meta{ConfigHash: hashA, N: 1, NFreq: 2, NTime: 3, Block: blockAll(2, 3), Output: OutputNpy, NpyMeta: npyMetaOf(full)}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Read(bytes.NewReader(raw), int64(len(raw)), "p"); err != nil {
		t.Fatal(err)
	}
	for cut := len(Magic2); cut < len(raw); cut++ {
		_, err := Read(bytes.NewReader(raw[:cut]), int64(cut), "p")
		if err == nil || !strings.Contains(err.Error(), "truncated or damaged") || !strings.Contains(err.Error(), "part p:") {
			t.Fatalf("cut at %d of %d: %v", cut, len(raw), err)
		}
	}
	for _, delta := range []int{-1, 1, 1 << 20} {
		bad := append([]byte(nil), raw...)
		n := len(bad) - trailerLen
		bad[n] = byte(int(bad[n]) + delta)
		bad[n+2] += byte(delta >> 16)
		if _, err := Read(bytes.NewReader(bad), int64(len(bad)), "p"); err == nil {
			t.Errorf("metadata length %+d: read", delta)
		}
	}
}

// TestFormat1StillReads: a part of format 1, written by an earlier
// version (testdata/v1.gmvpart, from Write: 2 freqs × 3 times × 2 pairs
// of grid's values in precision 1), still reads, verifies and merges.
func TestFormat1StillReads(t *testing.T) {
	path := filepath.Join("testdata", "v1.gmvpart")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(raw), Magic) {
		t.Fatalf("%s is not of format 1", path)
	}
	_, res := readBack(t, path)
	want := single(grid(2, 3, 2))
	if !reflect.DeepEqual(res.Vis64, want.Vis64) {
		t.Fatalf("data %v, want %v", res.Vis64, want.Vis64)
	}
	s, err := OpenSet([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out := filepath.Join(t.TempDir(), "m.npy")
	if err := s.WriteNpy(context.Background(), out, out+".meta.json"); err != nil {
		t.Fatal(err)
	}
	a, err := npy.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Complex64, want.Vis64) {
		t.Errorf("merged %v, want %v", a.Complex64, want.Vis64)
	}
}
