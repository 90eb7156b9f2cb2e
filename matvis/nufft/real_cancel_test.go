package nufft

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis/nufft/nufftest"
)

// TestExecuteRealContext: the real-strength transform stops inside its
// spreading as the complex one does (TestExecuteContext): a context done
// from its third look on stops 4·10⁵ points' spreading — most of the
// transform — within half the uncancelled time, with context.Canceled; a
// live context gives ExecuteReal's result.
func TestExecuteRealContext(t *testing.T) {
	rng := sharedtest.RNG(t, 40)
	x, cc, s := nufftest.Problem(rng, 2, 400000, 2000, 1, 300, 0, 0)
	c := make([]float64, len(cc))
	for i, v := range cc {
		c[i] = real(v)
	}
	pl, err := NewPlan(x, s, Options{Eps: 1e-12, Sign: 1, Workers: 2, Real: true})
	if err != nil {
		t.Fatal(err)
	}
	want := make([]complex128, len(s[0]))
	if err := pl.ExecuteReal(c, want); err != nil { // allocates the plan's buffers
		t.Fatal(err)
	}
	t0 := time.Now()
	if err := pl.ExecuteReal(c, want); err != nil {
		t.Fatal(err)
	}
	full := time.Since(t0)
	got := make([]complex128, len(want))
	if err := pl.ExecuteRealContext(context.Background(), c, got); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("a live context: target %d %v, want %v", i, got[i], want[i])
		}
	}
	ctx := &doneAfter{Context: context.Background(), looks: 3}
	t0 = time.Now()
	err = pl.ExecuteRealContext(ctx, c, got)
	took := time.Since(t0)
	t.Logf("uncancelled %v; done at the third look: returned after %v (%v)", full, took, err)
	if !errors.Is(err, context.Canceled) || took > full/2 {
		t.Errorf("done while spreading: returned after %v (the whole: %v) with %v", took, full, err)
	}
}
