package blocks

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
)

func TestRunCoversEachIndexOnce(t *testing.T) {
	for _, c := range []struct{ n, workers, blocks int }{
		{0, 4, 1}, {1, 4, 1}, {10, 1, 1}, {10, 3, 3}, {10, 4, 4}, {7, 10, 7}, {1000, 7, 7},
	} {
		seen := make([]int, c.n)
		var mu sync.Mutex
		calls := 0
		Run(c.n, c.workers, func(lo, hi int) {
			mu.Lock()
			calls++
			mu.Unlock()
			for i := lo; i < hi; i++ {
				seen[i]++
			}
		})
		for i, s := range seen {
			if s != 1 {
				t.Fatalf("n=%d workers=%d: index %d visited %d times", c.n, c.workers, i, s)
			}
		}
		if calls != c.blocks {
			t.Errorf("n=%d workers=%d: %d blocks, want %d", c.n, c.workers, calls, c.blocks)
		}
	}
}

// TestRunContextCoversEachIndexOnce: uncancelled, RunContext visits every
// index once, in pieces of at most grain, and returns nil.
func TestRunContextCoversEachIndexOnce(t *testing.T) {
	for _, c := range []struct{ n, workers, grain int }{
		{0, 4, 3}, {1, 4, 3}, {10, 1, 3}, {10, 3, 1}, {1000, 7, 64}, {1000, 2, 0},
	} {
		seen := make([]int, c.n)
		var mu sync.Mutex
		err := RunContext(context.Background(), c.n, c.workers, c.grain, func(lo, hi int) {
			g := c.grain
			if g <= 0 {
				g = Grain
			}
			if hi-lo > g {
				t.Errorf("n=%d grain=%d: piece [%d, %d) longer than the grain", c.n, c.grain, lo, hi)
			}
			mu.Lock()
			defer mu.Unlock()
			for i := lo; i < hi; i++ {
				seen[i]++
			}
		})
		if err != nil {
			t.Fatalf("n=%d workers=%d: %v", c.n, c.workers, err)
		}
		for i, s := range seen {
			if s != 1 {
				t.Fatalf("n=%d workers=%d grain=%d: index %d visited %d times", c.n, c.workers, c.grain, i, s)
			}
		}
	}
}

// TestRunContextStops: a cancel inside a piece lets each worker finish at
// most the piece it is in (one check per piece), and RunContext returns
// the context's error; a context done before the call runs nothing.
func TestRunContextStops(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		ctx, cancel := context.WithCancel(context.Background())
		var mu sync.Mutex
		pieces, afterCancel := 0, 0
		cancelled := false
		err := RunContext(ctx, 1000, workers, 10, func(lo, hi int) {
			mu.Lock()
			defer mu.Unlock()
			pieces++
			if cancelled {
				afterCancel++
			}
			if pieces == 3 {
				cancel()
				cancelled = true
			}
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("workers=%d: error %v, want context.Canceled", workers, err)
		}
		// The canceller's own piece ends it; each other worker may have
		// passed its check just before the cancel.
		if afterCancel > workers-1 {
			t.Errorf("workers=%d: %d pieces began after the cancel, want at most %d (of %d pieces run)", workers, afterCancel, workers-1, pieces)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	if err := RunContext(ctx, 10, 2, 1, func(int, int) { ran = true }); !errors.Is(err, context.Canceled) || ran {
		t.Errorf("a done context: error %v, ran %v; want context.Canceled and nothing run", err, ran)
	}
}

// TestWorkers: one goroutine for every grain indices, at least one, at
// most GOMAXPROCS.
func TestWorkers(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	for _, c := range []struct{ n, grain, want int }{
		{0, 8, 1}, {7, 8, 1}, {8, 8, 1}, {16, 8, min(procs, 2)}, {23, 8, min(procs, 2)},
		{8 * procs, 8, procs}, {8*procs + 8, 8, procs}, {1 << 40, 1, procs},
	} {
		if got := Workers(c.n, c.grain); got != c.want {
			t.Errorf("Workers(%d, %d) = %d, want %d (GOMAXPROCS %d)", c.n, c.grain, got, c.want, procs)
		}
	}
}
