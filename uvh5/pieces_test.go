package uvh5

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// TestPiecesInParallelEqualSerial: spans of several pieces written on
// several goroutines (writePieces) give the bytes of the same blocks
// written one piece after another, for both visibility precisions of the
// file, both precisions of the caller's values (WriteBlock,
// WriteBlock64), explicit or default flags and nsamples, and random row
// ranges (a block of one row up to most of the file); the file reads
// back as written.
func TestPiecesInParallelEqualSerial(t *testing.T) {
	rng := sharedtest.RNG(t, 1)
	h := testHeader(rng, 20, 2, 256) // 420 rows of 1024 values: 6.6 pieces
	nb, row := h.Nblts(), h.Nfreqs()*h.Npols()
	vis, flags, ns := randomData(rng, nb*row)
	vis64 := make([]complex64, len(vis))
	for i, v := range vis {
		vis64[i] = complex64(v)
	}
	var cuts []int // row ranges, the same for both writers
	for r := 0; r < nb; {
		r1 := min(nb, r+1+rng.IntN(nb/2))
		cuts = append(cuts, r1)
		r = r1
	}
	for _, single := range []bool{false, true} {
		for _, wide := range []bool{false, true} {
			for _, explicit := range []bool{false, true} {
				name := fmt.Sprintf("single=%v complex128 values=%v explicit=%v", single, wide, explicit)
				hh := *h
				hh.SinglePrecision = single
				dir := t.TempDir()
				var files [2][]byte
				for k, workers := range []int{1, maxPieceWorkers} {
					path := filepath.Join(dir, fmt.Sprintf("w%d.uvh5", workers))
					w, err := Create(path, &hh)
					if err != nil {
						t.Fatal(err)
					}
					w.pieceWorkers = workers
					r0 := 0
					for _, r1 := range cuts {
						a, b := r0*row, r1*row
						var fl []bool
						var n []float32
						if explicit {
							fl, n = flags[a:b], ns[a:b]
						}
						if wide {
							err = w.WriteBlock(r0, vis[a:b], fl, n)
						} else {
							err = w.WriteBlock64(r0, vis64[a:b], fl, n)
						}
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						r0 = r1
					}
					if err := w.Close(); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if files[k], err = os.ReadFile(path); err != nil {
						t.Fatal(err)
					}
				}
				if !bytes.Equal(files[0], files[1]) {
					t.Errorf("%s: written on %d goroutines, the file differs from the one written piece after piece", name, maxPieceWorkers)
				}
				// And what the file holds is what was written.
				f, err := ReadFile(filepath.Join(dir, fmt.Sprintf("w%d.uvh5", maxPieceWorkers)))
				if err != nil {
					t.Fatal(err)
				}
				for i := range vis {
					want, wantF, wantN := vis[i], false, float32(1)
					if single || !wide {
						want = complex128(vis64[i])
					}
					if explicit {
						wantF, wantN = flags[i], ns[i]
					}
					if f.Vis[i] != want || f.Flags[i] != wantF || f.Nsamples[i] != wantN {
						t.Fatalf("%s: value %d reads %v, %v, %v; written %v, %v, %v", name, i, f.Vis[i], f.Flags[i], f.Nsamples[i], want, wantF, wantN)
					}
				}
			}
		}
	}
}

// TestPiecesReportWriteErrors: a span whose pieces fail to write (the
// file closed under the writer) returns the error, on several goroutines
// as on one.
func TestPiecesReportWriteErrors(t *testing.T) {
	rng := sharedtest.RNG(t, 2)
	h := testHeader(rng, 20, 2, 256)
	vis, _, _ := randomData(rng, h.Nblts()*h.Nfreqs()*h.Npols())
	for _, workers := range []int{1, maxPieceWorkers} {
		w, err := Create(filepath.Join(t.TempDir(), "closed.uvh5"), h)
		if err != nil {
			t.Fatal(err)
		}
		w.pieceWorkers = workers
		if err := w.out.File().Close(); err != nil {
			t.Fatal(err)
		}
		if err := w.WriteBlock(0, vis, nil, nil); err == nil {
			t.Errorf("%d goroutines: a block written to a closed file gave no error", workers)
		}
		w.Abort()
	}
}
