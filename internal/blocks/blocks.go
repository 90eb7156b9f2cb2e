// Package blocks splits an index range into contiguous blocks run on
// goroutines: the one fork-join loop behind the CPU code's parallel stages.
package blocks

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// Workers is how many goroutines to split n indices between when a
// goroutine pays for its start from grain indices on: one for every grain
// indices, at least one, at most one a core (GOMAXPROCS).
func Workers(n, grain int) int {
	return min(runtime.GOMAXPROCS(0), max(1, n/grain))
}

// Run calls fn(lo, hi) for the contiguous blocks of [0, n) of size
// ⌈n/workers⌉, each on its own goroutine, and waits for all of them. With
// workers ≤ 1 it calls fn(0, n) on the calling goroutine. Callers choose
// workers, since how much work pays for a goroutine differs between them.
func Run(n, workers int, fn func(lo, hi int)) {
	if workers <= 1 || n <= 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	step := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += step {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			fn(lo, hi)
		}(lo, min(lo+step, n))
	}
	wg.Wait()
}

// Grain is the number of indices a worker of RunContext handles between
// two looks at the context: 2^16 sources of the cheapest per-source stage
// (a copy) take ~0.1 ms, of the dearest (a beam's interpolation, the
// astropy rotation) a few ms, so a cancelled stage ends within a few
// blocks' time even on a loaded machine, while one ctx.Err() per block
// costs nothing measurable.
const Grain = 1 << 16

// RunContext is Run that stops early when ctx is done: each worker's
// block is cut into pieces of at most grain indices (grain ≤ 0: Grain),
// ctx is checked before each piece, and a worker that finds it done
// skips the rest of its block. It returns ctx's error when the context
// was done before the last piece ran (some indices then were not
// visited), else nil.
func RunContext(ctx context.Context, n, workers, grain int, fn func(lo, hi int)) error {
	if grain <= 0 {
		grain = Grain
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	var stopped atomic.Bool
	Run(n, workers, func(lo, hi int) {
		for p := lo; p < hi; p += grain {
			if stopped.Load() {
				return
			}
			if ctx.Err() != nil {
				stopped.Store(true)
				return
			}
			fn(p, min(p+grain, hi))
		}
	})
	if stopped.Load() {
		return ctx.Err()
	}
	return nil
}
