package backendtest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// Progress checks that Options.Progress is called once per finished
// integration, counting up to the total.
func Progress(t *testing.T, be matvis.Backend) {
	rng := NewRNG(t, 3)
	c := Random(t, rng, Shape{NAnt: 4, NSrc: 300, NFreq: 2, NTime: 3}, SkyPrecomputed, BeamsAnalytic, matvis.Options{MinChunks: 2})
	var got []matvis.Progress
	c.Options.Progress = func(p matvis.Progress) { got = append(got, p) }
	MustRun(t, be, NewSim(t, c))
	if len(got) != 6 {
		t.Fatalf("%d progress calls for 6 integrations: %v", len(got), got)
	}
	for i, p := range got {
		if p.Done != i+1 || p.Total != 6 {
			t.Fatalf("progress call %d: %+v, want {Done:%d Total:6}", i, p, i+1)
		}
	}
}

// CancelKeepsFinishedWork cancels a run from its progress callback: the
// run must report the cancellation with a result whose Done marks at
// least the integrations reported finished, not all of them, and whose
// finished integrations equal the plain-loop twin.
func CancelKeepsFinishedWork(t *testing.T, be matvis.Backend) {
	rng := NewRNG(t, 4)
	c := Random(t, rng, Shape{NAnt: 5, NSrc: 800, NFreq: 3, NTime: 3}, SkyPrecomputed, BeamsGridded, matvis.Options{Polarized: true, MinChunks: 2})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const stopAt = 2
	c.Options.Progress = func(p matvis.Progress) {
		if p.Done == stopAt {
			cancel()
		}
	}
	sim := NewSim(t, c)
	res, err := be.Run(ctx, sim)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if res == nil {
		t.Fatal("no result after cancellation")
	}
	want, got := Plain(t, sim), Vis(res)
	per := len(want) / len(res.Done)
	done := 0
	for i, d := range res.Done {
		if !d {
			continue
		}
		done++
		if e := RelErr(got[i*per:(i+1)*per], want[i*per:(i+1)*per]); !(e <= Tolerance(sim.Options.Precision)) {
			t.Errorf("finished integration %d: max|ΔV|/max|V| = %g vs the plain loop", i, e)
		}
	}
	if done < stopAt || done == len(res.Done) {
		t.Fatalf("%d of %d integrations marked done after cancelling at %d", done, len(res.Done), stopAt)
	}
	t.Logf("%s: cancelled after %d of %d integrations; the finished ones are right", be.Name(), done, len(res.Done))
}

// CancelBeforeStart runs with a context cancelled before the run: it must
// return the context's error and mark nothing done.
func CancelBeforeStart(t *testing.T, be matvis.Backend) {
	rng := NewRNG(t, 5)
	sim := NewSim(t, Random(t, rng, Shape{NAnt: 5, NSrc: 4000, NFreq: 1, NTime: 2}, SkyPrecomputed, BeamsAnalytic, matvis.Options{MinChunks: 8}))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := be.Run(ctx, sim)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if res == nil {
		t.Fatal("no result after cancellation")
	}
	for i, d := range res.Done {
		if d {
			t.Fatalf("integration %d marked done in a run cancelled before it started", i)
		}
	}
}

// NonFiniteOutput gives every source the largest finite flux: the sums
// overflow, and the run must fail with matvis.ErrNonFinite instead of
// returning Inf visibilities, and not mark that integration done.
func NonFiniteOutput(t *testing.T, be matvis.Backend) {
	rng := NewRNG(t, 6)
	c := Random(t, rng, Shape{NAnt: 3, NSrc: 200, NFreq: 2, NTime: 1}, SkyPrecomputed, BeamsAnalytic, matvis.Options{})
	// A uniform beam, so that the autocorrelations, I/2 summed over the
	// hundred or so visible sources, overflow whatever the draw.
	c.Beams, c.BeamIdx = []beam.Beam{beam.Uniform{}}, nil
	for i := range c.Flux {
		c.Flux[i] = 1.7e308
	}
	res, err := be.Run(context.Background(), NewSim(t, c))
	if !errors.Is(err, matvis.ErrNonFinite) {
		t.Fatalf("error %v, want matvis.ErrNonFinite", err)
	}
	if res != nil && res.Done[0] {
		t.Fatal("the non-finite integration is marked done")
	}
}

// CancelInStage runs run (a backend's Run) and cancels it delay after
// stage begins, as the backend's stage hook (*hook, set for the run and
// cleared after) reports its stages; then checks what a cancel inside a
// stage must give: the context's error within bar of the cancel, and
// the interrupted integration not marked done. A stage that ended before
// the cancel came is skipped, loudly (nothing was cancelled inside it).
func CancelInStage(t *testing.T, name string, hook *func(matvis.Stage), run func(context.Context) (*matvis.Result, error),
	stage matvis.Stage, delay, bar time.Duration) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var began, cancelled, next time.Time
	*hook = func(s matvis.Stage) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case s == stage && began.IsZero():
			began = time.Now()
			time.AfterFunc(delay, func() {
				mu.Lock()
				cancelled = time.Now()
				mu.Unlock()
				cancel()
			})
		case s > stage && !began.IsZero() && next.IsZero():
			next = time.Now()
		}
	}
	res, err := run(ctx)
	returned := time.Now()
	*hook = nil
	mu.Lock()
	defer mu.Unlock()
	if began.IsZero() {
		t.Fatalf("the %s stage never began: %v", name, err)
	}
	if cancelled.IsZero() || (!next.IsZero() && next.Before(cancelled)) {
		t.Skipf("SKIPPED, not checked: the %s stage ended (%v after it began) before the cancel at %v", name, next.Sub(began), delay)
	}
	after := returned.Sub(cancelled)
	t.Logf("cancelled %v into the %s stage; returned %v after the cancel: %v", cancelled.Sub(began), name, after, err)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if after > bar {
		t.Errorf("returned %v after a cancel inside the %s stage, want under %v", after, name, bar)
	}
	if res != nil && slices.Contains(res.Done, true) {
		t.Errorf("the interrupted integration is marked done")
	}
}
