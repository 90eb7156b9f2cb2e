package blocks

import (
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
