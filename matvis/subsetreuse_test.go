package matvis_test

import (
	"context"
	"math/cmplx"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
	"github.com/gomatvis/gomatvis/matvis/cpu"
)

// TestSubsetZeroed: a block run through SubsetZeroed puts its result in
// the first values of a zero buffer's storage, equal to the same block
// run through Subset; it clears nothing itself (its caller keeps the
// buffer zero): storage it was given poisoned stays so until the run
// writes it; a buffer too small, or of the other precision, gives the
// block storage of its own.
func TestSubsetZeroed(t *testing.T) {
	rng := backendtest.NewRNG(t, 6)
	for _, prec := range []int{1, 2} {
		c := backendtest.Random(t, rng, backendtest.Shape{NAnt: 5, NSrc: 30, NFreq: 4, NTime: 3},
			backendtest.SkyPrecomputed, backendtest.BeamsAnalytic, matvis.Options{Precision: prec, Polarized: rng.IntN(2) == 1})
		sim, err := matvis.New(c)
		if err != nil {
			t.Fatal(err)
		}
		b := matvis.Block{F0: 0, F1: 2, T0: 1, T1: 3}
		n := b.Size() * len(sim.Pairs) * sim.NFeed() * sim.NFeed()
		buf := &matvis.Result{Precision: prec, Vis64: make([]complex64, n+7), Vis128: make([]complex128, n+7)}
		sub, err := sim.SubsetZeroed(b, buf)
		if err != nil {
			t.Fatal(err)
		}
		got, err := cpu.New().Run(context.Background(), sub)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := sim.Subset(b)
		if err != nil {
			t.Fatal(err)
		}
		want, err := cpu.New().Run(context.Background(), plain)
		if err != nil {
			t.Fatal(err)
		}
		gv, wv := backendtest.Vis(got), backendtest.Vis(want)
		if len(gv) != len(wv) {
			t.Fatalf("fp%d: %d values, want %d", 32*prec, len(gv), len(wv))
		}
		for i := range wv {
			if gv[i] != wv[i] {
				t.Fatalf("fp%d: value %d: %v in the zeroed buffer, %v on its own", 32*prec, i, gv[i], wv[i])
			}
		}
		inBuf := (prec == 1 && &got.Vis64[0] == &buf.Vis64[0]) || (prec == 2 && &got.Vis128[0] == &buf.Vis128[0])
		if !inBuf || len(gv) != n {
			t.Errorf("fp%d: the result is not the buffer's first %d values", 32*prec, n)
		}
		buf.Vis64[0], buf.Vis128[0] = complex64(cmplx.NaN()), cmplx.NaN()
		again, err := sim.SubsetZeroed(b, buf)
		if err != nil {
			t.Fatal(err)
		}
		if v := backendtest.Vis(matvis.NewResult(again))[0]; !cmplx.IsNaN(v) {
			t.Errorf("fp%d: SubsetZeroed cleared its buffer (value 0 is %v, was NaN)", 32*prec, v)
		}
		for _, small := range []*matvis.Result{{Precision: prec, Vis64: make([]complex64, n-1), Vis128: make([]complex128, n-1)}, {Precision: 3 - prec}} {
			s, err := sim.SubsetZeroed(b, small)
			if err != nil {
				t.Fatal(err)
			}
			r := matvis.NewResult(s)
			if (prec == 1 && len(small.Vis64) > 0 && &r.Vis64[0] == &small.Vis64[0]) || (prec == 2 && len(small.Vis128) > 0 && &r.Vis128[0] == &small.Vis128[0]) {
				t.Errorf("fp%d: a buffer without room was used", 32*prec)
			}
		}
	}
}
