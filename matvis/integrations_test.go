package matvis

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestIntegrations: every integration run is marked done at its index,
// timed and reported in order; an error stops the walk unrecorded; a
// cancelled context is refused before the work, naming the count done.
func TestIntegrations(t *testing.T) {
	sim := lateSim(t, 2, false)
	nt, total := sim.NTime(), sim.NFreq()*sim.NTime()
	var seen []Progress
	sim.Options.Progress = func(p Progress) { seen = append(seen, p) }
	res := &Result{Done: make([]bool, total)}
	it := NewIntegrations("test", sim, res)
	ctx, cancel := context.WithCancel(context.Background())
	ran := 0
	boom := errors.New("boom")
	for k := range total {
		fi, ti := k/nt, k%nt
		err := it.Run(ctx, fi, ti, func() error {
			ran++
			if k == 1 {
				return boom
			}
			return nil
		})
		switch {
		case k == 1 && !errors.Is(err, boom):
			t.Fatalf("integration 1: error %v, want the work's", err)
		case k != 1 && err != nil:
			t.Fatalf("integration %d: %v", k, err)
		}
	}
	for k, d := range res.Done {
		if d != (k != 1) {
			t.Errorf("Done[%d] = %v, want %v", k, d, k != 1)
		}
	}
	if len(res.Stats.Integrations) != total-1 || len(seen) != total-1 || seen[len(seen)-1] != (Progress{Done: total - 1, Total: total}) {
		t.Errorf("%d times, progress %v; want %d of each, the last {%d %d}", len(res.Stats.Integrations), seen, total-1, total-1, total)
	}
	cancel()
	err := it.Run(ctx, 0, 0, func() error { ran++; return nil })
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), fmt.Sprintf("test: cancelled after %d of %d integrations", total-1, total)) {
		t.Errorf("cancelled: %v", err)
	}
	if ran != total {
		t.Errorf("the work ran %d times, want %d (not after the cancellation)", ran, total)
	}
}
