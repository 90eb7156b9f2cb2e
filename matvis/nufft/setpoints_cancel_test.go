package nufft

import (
	"context"
	"errors"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis/nufft/nufftest"
)

// TestSetPointsContextCancelled: a cancelled SetPointsContext returns the
// context's error and leaves the plan without points, so that executing
// it with the new points' strengths fails instead of transforming
// half-placed points; the next SetPoints makes it whole again (checked
// against the direct sum).
func TestSetPointsContextCancelled(t *testing.T) {
	rng := sharedtest.RNG(t, 21)
	box := [][]float64{{-1, 1}, {-1, 1}}
	_, _, s := nufftest.Problem(rng, 2, 0, 200, 0, 25, 0, 0)
	pl, err := NewPlan(box, s, Options{Eps: 1e-10, Sign: 1})
	if err != nil {
		t.Fatal(err)
	}
	x, c, _ := nufftest.Problem(rng, 2, 5000, 0, 1, 0, 0, 0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := pl.SetPointsContext(ctx, x); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled SetPointsContext: error %v, want context.Canceled", err)
	}
	f := make([]complex128, len(s[0]))
	if err := pl.Execute(c, f); err == nil {
		t.Fatal("Execute after a cancelled SetPointsContext: no error")
	}
	if err := pl.SetPointsContext(context.Background(), x); err != nil {
		t.Fatal(err)
	}
	want, _ := Direct(x, c, s, 1)
	if err := pl.Execute(c, f); err != nil {
		t.Fatal(err)
	}
	if e := nufftest.RelErr(f, want); e > errFactor*1e-10 {
		t.Errorf("after a cancelled SetPointsContext: rel l2 err %.3g", e)
	}
}
