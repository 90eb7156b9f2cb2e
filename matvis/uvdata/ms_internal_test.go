package uvdata

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
	"github.com/gomatvis/gomatvis/ms"
)

// msPiece is rows [k0, k1) × channels [f0, f1) of time t.
type msPiece struct{ t, k0, k1, f0, f1 int }

// randomPieces cuts every time's rows into random runs, half of them
// split into random channel ranges, in time order with random nearby
// pieces swapped: some go straight to the MS, others are gathered.
func randomPieces(rng *rand.Rand, nt, nbl, nf int) []msPiece {
	var ps []msPiece
	for t := range nt {
		for k0 := 0; k0 < nbl; {
			k1 := min(nbl, k0+1+rng.IntN(nbl/2))
			if rng.IntN(2) == 0 {
				ps = append(ps, msPiece{t, k0, k1, 0, nf})
			} else {
				for f0 := 0; f0 < nf; {
					f1 := min(nf, f0+1+rng.IntN(nf))
					ps = append(ps, msPiece{t, k0, k1, f0, f1})
					f0 = f1
				}
			}
			k0 = k1
		}
	}
	for i := range ps {
		if j := i + 1 + rng.IntN(3); j < len(ps) && rng.IntN(3) == 0 {
			ps[i], ps[j] = ps[j], ps[i]
		}
	}
	return ps
}

// TestMSRowsPiecesEqualWholeTimes: rows handed to CreateMS's writer in
// random pieces — whole rows in order (written as they come), channel
// ranges and rows out of order (gathered), with random flags and sample
// counts — make the main table that ms.Drift makes of whole times, byte
// for byte.
func TestMSRowsPiecesEqualWholeTimes(t *testing.T) {
	rng := backendtest.NewRNG(t, 8)
	c := backendtest.Random(t, rng, backendtest.Shape{NAnt: 7, NSrc: 3, NFreq: 5, NTime: 3},
		backendtest.SkyPrecomputed, backendtest.BeamsAnalytic, matvis.Options{Precision: 2})
	c.Times = []float64{2459845.25, 2459845.26, 2459845.27}
	obs := matvis.DefaultObservation(7, c.Options)
	obs.UseConventions(&c)
	sim, err := matvis.New(c)
	if err != nil {
		t.Fatal(err)
	}
	l, err := NewLayout(sim, obs)
	if err != nil {
		t.Fatal(err)
	}
	h, err := l.Header()
	if err != nil {
		t.Fatal(err)
	}
	nt, nbl, nf, np := len(l.Times), len(l.Baselines), len(l.Freqs), len(l.Pols)
	v := nf * np
	vis := make([]complex128, nt*nbl*v)
	flags := make([]bool, len(vis))
	nsamples := make([]float32, len(vis))
	for i := range vis {
		vis[i] = complex(rng.NormFloat64(), rng.NormFloat64())
		flags[i] = rng.IntN(4) == 0
		nsamples[i] = float32(rng.IntN(3))
	}
	dir := t.TempDir()
	want := filepath.Join(dir, "whole.ms")
	d, err := ms.NewDrift(want, h, ms.Phasing{EOP: l.eopAt})
	if err != nil {
		t.Fatal(err)
	}
	for ti := range nt {
		lo, hi := ti*nbl*v, (ti+1)*nbl*v
		b := ms.DriftBlock{JD: l.Times[ti], LST: h.LSTs[ti*nbl], Vis: vis[lo:hi], Flags: flags[lo:hi], Nsamples: nsamples[lo:hi]}
		for _, bl := range l.Baselines {
			b.Ant1, b.Ant2 = append(b.Ant1, l.AntNums[bl[0]]), append(b.Ant2, l.AntNums[bl[1]])
		}
		if err := d.WriteTime(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}

	for trial := range 5 {
		got := filepath.Join(dir, "pieces.ms")
		w, err := CreateMS(got, sim, obs, nil)
		if err != nil {
			t.Fatal(err)
		}
		rows := w.w.(*msRows)
		for _, p := range randomPieces(rng, nt, nbl, nf) {
			var pv []complex128
			var pf []bool
			var pn []float32
			for k := p.k0; k < p.k1; k++ {
				lo := ((p.t*nbl+k)*nf + p.f0) * np
				hi := lo + (p.f1-p.f0)*np
				pv, pf, pn = append(pv, vis[lo:hi]...), append(pf, flags[lo:hi]...), append(pn, nsamples[lo:hi]...)
			}
			if err := rows.WriteChannels(p.t*nbl+p.k0, p.k1-p.k0, p.f0, p.f1, pv, pf, pn); err != nil {
				t.Fatalf("trial %d: piece %+v: %v", trial, p, err)
			}
		}
		if err := rows.Close(); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		for _, file := range []string{"table.dat", "table.f0"} {
			a, _ := os.ReadFile(filepath.Join(want, file))
			b, err := os.ReadFile(filepath.Join(got, file))
			if err != nil || !bytes.Equal(a, b) {
				t.Fatalf("trial %d: %s: %d bytes from whole times, %d from pieces, not equal (%v)", trial, file, len(a), len(b), err)
			}
		}
		os.RemoveAll(got)
	}
}
