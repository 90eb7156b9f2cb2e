package nufftcpu

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/internal/choicecache"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
)

// TestConcurrentFirstTrials (issue 41 item 4): backends (separate
// processes' choosers) started together on one empty trial cache measure
// a close call once: the first measures, the others wait for its
// measurement and take the path it gives, so all give the same bits.
// Here each backend's injected measurement would pick another path (the
// first the transform, the rest the direct product): without the lock
// every backend measures and the paths differ.
func TestConcurrentFirstTrials(t *testing.T) {
	rng := backendtest.NewRNG(t, 44)
	cache := filepath.Join(t.TempDir(), "choices.json")
	const n = 3
	var trials atomic.Int32
	backends := make([]*Backend, n)
	var sim *matvis.Simulation
	for i := range backends {
		b, err := New(0, 1)
		if err != nil {
			t.Fatal(err)
		}
		b.TrialCache = cache
		b.measure = func(ctx context.Context, r *run) (measured, error) {
			first := trials.Add(1) == 1
			time.Sleep(200 * time.Millisecond) // long enough for the others to arrive
			if err := r.loop(ctx, 1); err != nil {
				return measured{}, err
			}
			if first {
				return measured{nufft: 1e-3, direct: 2e-3}, nil
			}
			return measured{nufft: 2e-3, direct: 1e-3}, nil
		}
		if sim == nil {
			sim = backendtest.NewSim(t, closeConfig(t, rng, b))
		}
		backends[i] = b
	}
	res := make([]*matvis.Result, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, b := range backends {
		wg.Go(func() { res[i], errs[i] = b.Run(context.Background(), sim) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("backend %d: %v", i, err)
		}
	}
	if got := trials.Load(); got != 1 {
		t.Errorf("%d trials for %d runs of one shape started together, want 1", got, n)
	}
	v0 := backendtest.Vis(res[0])
	for i, r := range res {
		why := r.Stats.MatProdImpl.Why
		if strings.HasPrefix(why, "direct product: ") {
			t.Errorf("backend %d took the direct product (%q): not the first measurement's path", i, why)
		}
		if v := backendtest.Vis(r); len(v) != len(v0) || backendtest.RelErr(v, v0) != 0 {
			t.Errorf("backend %d's visibilities differ from backend 0's by %.3g: want the same bits", i, backendtest.RelErr(v, v0))
		}
	}
}

// TestTrialWaitBounded: a run that finds another measuring its shape for
// longer than TrialWait decides by the cost model (a rule of the shape,
// not of timing), says so, and measures nothing.
func TestTrialWaitBounded(t *testing.T) {
	rng := backendtest.NewRNG(t, 45)
	cache := filepath.Join(t.TempDir(), "choices.json")
	holder, err := New(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	holder.TrialCache = cache
	sim := backendtest.NewSim(t, closeConfig(t, rng, holder))
	r, err := newRun(holder, sim)
	if err != nil {
		t.Fatal(err)
	}
	unlock, _ := lockForTest(holder, r)
	defer unlock()
	b, err := New(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	b.TrialCache, b.TrialWait = cache, 100*time.Millisecond
	b.measure = func(context.Context, *run) (measured, error) {
		t.Error("measured while another held the shape's lock")
		return measured{nufft: 1, direct: 1}, nil
	}
	got := backendtest.MustRun(t, b, sim)
	if why := got.Stats.MatProdImpl.Why; !strings.Contains(why, "another process has been measuring this shape for over 100ms") {
		t.Errorf("why %q", why)
	}
}

// lockForTest takes r's shape's trial-cache lock, as a measuring process
// holds it.
func lockForTest(b *Backend, r *run) (func(), bool) {
	return choicecache.Lock(b.TrialCache, b.trialKey(r.shapeOf()), time.Second)
}
