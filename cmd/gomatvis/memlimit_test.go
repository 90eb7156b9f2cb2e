package main

import "testing"

// TestLimitFits: the soft memory limit is set only where what is live
// and what the run plans to add take at most 3/4 of it, so that the
// collector is never driven to run without pause (a limit under the live
// heap: 476–1017 cycles of one run).
func TestLimitFits(t *testing.T) {
	for _, c := range []struct {
		limit, live, planned int64
		want                 bool
	}{
		{2e9, 100e6, 256e6, true},   // a streamed run's two blocks
		{2e9, 100e6, 1.4e9, true},   // 1.5 GB of 1.5 GB allowed
		{2e9, 100e6, 1.41e9, false}, // just over 3/4
		{1e9, 50e6, 1.01e9, false},  // the whole output held: over the limit
		{2e9, 2.1e9, 0, false},      // already live above it
	} {
		if got := limitFits(c.limit, c.live, c.planned); got != c.want {
			t.Errorf("limit %g, live %g, planned %g: %v, want %v", float64(c.limit), float64(c.live), float64(c.planned), got, c.want)
		}
	}
}
