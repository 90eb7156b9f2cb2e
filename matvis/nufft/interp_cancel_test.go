package nufft

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis/nufft/nufftest"
)

// TestCancelInsideInterpolation: a transform whose context's deadline
// falls an eighth of the way into its interpolation (the stages' times
// from a second uncancelled run, its buffers allocated: 10⁶ targets from 2000 points, one worker, so
// that the interpolation is most of the time) returns
// context.DeadlineExceeded well before the uncancelled time (under 0.6 of
// it; about 0.15 when the interpolation stops at its next chunk): the
// interpolation stops inside, rather than running to its end before the
// stage's last check.
func TestCancelInsideInterpolation(t *testing.T) {
	rng := sharedtest.RNG(t, 39)
	const m = 1_000_000
	x, c, s := nufftest.Problem(rng, 2, 2000, m, 1, 300, 0, 0)
	pl, err := NewPlan(x, s, Options{Eps: 1e-12, Sign: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	f := make([]complex128, m)
	if err := pl.Execute(c, f); err != nil { // allocates the plan's buffers
		t.Fatal(err)
	}
	before := pl.Stats()
	t0 := time.Now()
	if err := pl.Execute(c, f); err != nil {
		t.Fatal(err)
	}
	full := time.Since(t0)
	st := pl.Stats()
	st.Spread, st.FFT, st.Interp = st.Spread-before.Spread, st.FFT-before.FFT, st.Interp-before.Interp
	if st.Interp < full/2 {
		t.Fatalf("the interpolation took %v of %v: not most of the transform; pick another shape", st.Interp, full)
	}
	ctx, cancel := context.WithTimeout(context.Background(), st.Spread+st.FFT+st.Interp/8)
	defer cancel()
	t0 = time.Now()
	err = pl.ExecuteContext(ctx, c, f)
	took := time.Since(t0)
	t.Logf("uncancelled %v (stages %+v); deadline an eighth into the interpolation: returned after %v (%v)", full, st, took, err)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("deadline inside the interpolation: error %v, want context.DeadlineExceeded", err)
	}
	if took > full*6/10 {
		t.Errorf("deadline an eighth into the interpolation: returned after %v, the uncancelled transform took %v", took, full)
	}
}
