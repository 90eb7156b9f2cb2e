package gpu

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/cuda/gram"
	"github.com/gomatvis/gomatvis/internal/choicecache"
	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
)

// TestChoiceWaitBounded: a run that finds another process holding a
// choice's lock past ChoiceWait is told so (ok false, after the wait, not
// before) and takes the fixed strategy, cuBLAS's herk.
func TestChoiceWaitBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "choices.json")
	held, ok := choicecache.Lock(path, "k", time.Second)
	if !ok {
		t.Fatal("could not take the lock on an empty cache")
	}
	defer held()
	r := &run{opt: Options{ChoiceWait: 80 * time.Millisecond}}
	t0 := time.Now()
	unlock, ok := r.lockChoice(path, "k")
	waited := time.Since(t0)
	unlock()
	if ok {
		t.Skip("SKIPPED, not checked: this file system takes no flock, so there is nothing to wait for")
	}
	if waited < 80*time.Millisecond {
		t.Errorf("gave up after %v, before ChoiceWait (80 ms)", waited)
	}
	if why := r.waitedTooLong(path); !strings.Contains(why, "80ms") || !strings.Contains(why, path) {
		t.Errorf("reason %q names neither the wait nor the cache", why)
	}
	for prec, want := range map[int]gram.Strategy{1: gram.Cherk, 2: gram.Zherk} {
		if got := fixedStrategy(prec); got != want {
			t.Errorf("fixed strategy at precision %d: %s, want %s", prec, got, want)
		}
	}
	if (&run{}).choiceWait() != DefaultChoiceWait {
		t.Errorf("zero ChoiceWait is not DefaultChoiceWait")
	}
}

// TestConcurrentFirstChoices: three backends started together on an empty
// choice cache measure the Gram strategy (and the transform or fused
// decision) once and all take the first's, so their visibilities are
// bit for bit the same (issue 41: first runs on an empty cache differed
// by 5e-13 of the peak).
func TestConcurrentFirstChoices(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	rng := sharedtest.RNG(t, 23)
	sim := buildSim(t, rng, caseSpec{p1: true, chunks: 1, nant: 9, nsrc: 3000 + rng.IntN(1000)})
	const n = 3
	bs := make([]*Backend, n)
	for i := range bs {
		bs[i] = openGPU(t)
	}
	res := make([]*matvis.Result, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, b := range bs {
		wg.Go(func() { res[i], errs[i] = b.Run(context.Background(), sim) })
	}
	wg.Wait()
	measured := 0
	for i, err := range errs {
		if err != nil {
			t.Fatalf("backend %d: %v", i, err)
		}
		why := res[i].Stats.MatProdImpl.Why
		t.Logf("backend %d: %s (%s)", i, res[i].Stats.MatProdImpl.Strategy, why)
		// Why describes the last decision the run took (the Gram
		// strategy, or the fused or transform path it chose after):
		// a run that took it from the cache says so.
		if !strings.Contains(why, "(cached choice") {
			measured++
		}
	}
	if measured != 1 {
		t.Errorf("%d of %d runs started together measured their choice, want 1 (the others take it from the cache)", measured, n)
	}
	v0 := backendtest.Vis(res[0])
	for i, r := range res[1:] {
		if e := backendtest.RelErr(backendtest.Vis(r), v0); e != 0 {
			t.Errorf("backend %d's visibilities differ from backend 0's by %.3g: want the same bits", i+1, e)
		}
	}
}
