// Package blocks splits an index range into contiguous blocks run on
// goroutines: the one fork-join loop behind the CPU code's parallel stages.
package blocks

import "sync"

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
