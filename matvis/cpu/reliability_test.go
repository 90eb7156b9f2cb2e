package cpu

import (
	"context"
	"errors"
	"math/cmplx"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
	"github.com/gomatvis/gomatvis/matvis/cblas"
)

// slowHerk is gonum's herk made to take perColumn per column of Z, as a
// large chunk's Gram product does on a real array.
type slowHerk struct {
	cblas.Gonum
	perColumn time.Duration
	calls     int
}

func (h *slowHerk) Zherk(n, k int, alpha float64, a []complex128, lda int, beta float64, c []complex128, ldc int) {
	h.calls++
	time.Sleep(time.Duration(k) * h.perColumn)
	h.Gonum.Zherk(n, k, alpha, a, lda, beta, c, ldc)
}

func (h *slowHerk) Cherk(n, k int, alpha float32, a []complex64, lda int, beta float32, c []complex64, ldc int) {
	h.calls++
	time.Sleep(time.Duration(k) * h.perColumn)
	h.Gonum.Cherk(n, k, alpha, a, lda, beta, c, ldc)
}

// TestCancelInsideChunk cancels a run of one integration of one chunk
// whose Gram product takes about 2 s: the run must stop within a fraction
// of a second with the context's error, not finish and report success.
func TestCancelInsideChunk(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	sim, err := matvis.New(backendtest.Random(t, rng, backendtest.Shape{NAnt: 8, NSrc: 8000, NFreq: 1, NTime: 1}, backendtest.SkyPrecomputed, backendtest.BeamsAnalytic, matvis.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	h := &slowHerk{perColumn: 500 * time.Microsecond} // ~4000 visible columns: ~2 s in one call
	b := NewWith(h, 2)
	b.blockWork = 36 * 256 // 8×8 accumulator: 256 columns a call
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(300*time.Millisecond, cancel)
	t0 := time.Now()
	res, err := b.Run(ctx, sim)
	took := time.Since(t0)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v after %v, want context.Canceled", err, took)
	}
	if took > time.Second {
		t.Fatalf("cancelled at 300 ms, returned after %v", took)
	}
	if res == nil || res.Done[0] {
		t.Fatalf("the cancelled integration is marked done")
	}
	t.Logf("returned %v after start (%d Gram calls)", took, h.calls)
}

// TestBlockedGramAgrees checks that the Gram product in column blocks
// (herk and pairs) equals the one-call result to rounding.
func TestBlockedGramAgrees(t *testing.T) {
	for _, mp := range []matvis.MatProd{matvis.MatProdHerk, matvis.MatProdPairs} {
		for _, pol := range []bool{false, true} {
			rng := rand.New(rand.NewPCG(3, 4))
			c := backendtest.Random(t, rng, backendtest.Shape{NAnt: 5, NSrc: 3000, NFreq: 1, NTime: 2}, backendtest.SkyPrecomputed, backendtest.BeamsAnalytic, matvis.Options{MatProd: mp, Polarized: pol})
			whole := mustRun(t, c, NewWith(cblas.Gonum{}, 2))
			b := NewWith(cblas.Gonum{}, 2)
			b.blockWork = 1000 // a few dozen columns a call
			blocked := mustRun(t, c, b)
			w, g := backendtest.Vis(whole), backendtest.Vis(blocked)
			for i := range w {
				if cmplx.Abs(w[i]-g[i]) > 1e-12*(1+cmplx.Abs(w[i])) {
					t.Fatalf("%s polarized %v: vis[%d] = %v blocked, %v whole", mp, pol, i, g[i], w[i])
				}
			}
		}
	}
}
