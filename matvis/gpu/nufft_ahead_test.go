package gpu

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/matvis/nufftgpu"
)

// TestTargetsAhead: asked for in order (the pipeline's walk), from any
// first channel, one made before (the measured choice's) given back and
// not made again, every channel's targets are its own, the channels up to
// its depth ahead are made while one is in use, each made once,
// never more at once than the workers; a channel's error reaches its
// get; a channel asked for out of order is made then; close waits for
// what is being made and starts nothing more. Runs without a device.
func TestTargetsAhead(t *testing.T) {
	for _, tc := range []struct {
		name   string
		nfreq  int
		first  int
		asks   []int
		failAt int  // -1: none
		made   bool // channel first made before (channelBound's)
	}{
		{"in order", 12, 1, seq(1, 12), -1, false},
		{"one channel after the first", 2, 1, []int{1}, -1, false},
		{"out of order", 8, 1, []int{1, 2, 6, 7, 3}, -1, false},
		{"an error", 6, 1, seq(1, 6), 4, false},
		{"the first made before", 6, 1, seq(1, 6), -1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			made := map[int]*nufftgpu.Targets{}
			count := map[int]int{}
			var busy, peak atomic.Int32
			var started sync.Map
			mk := func(fi int) (*nufftgpu.Targets, error) {
				started.Store(fi, true)
				n := busy.Add(1)
				defer busy.Add(-1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				time.Sleep(2 * time.Millisecond)
				mu.Lock()
				defer mu.Unlock()
				count[fi]++
				if fi == tc.failAt {
					return nil, fmt.Errorf("channel %d: %w", fi, errPlan)
				}
				made[fi] = new(nufftgpu.Targets)
				return made[fi], nil
			}
			var before map[int]*nufftgpu.Targets
			if tc.made {
				made[tc.first] = new(nufftgpu.Targets)
				before = map[int]*nufftgpu.Targets{tc.first: made[tc.first]}
			}
			a := newTargetsAhead(mk, tc.nfreq, tc.first, before)
			for i, fi := range tc.asks {
				if next := tc.asks[0] + a.depth; i == 1 && next < tc.nfreq {
					// The first get started the channel a depth past it
					// (newTargetsAhead started those before).
					deadline := time.Now().Add(time.Second)
					for _, ok := started.Load(next); !ok && time.Now().Before(deadline); _, ok = started.Load(next) {
						time.Sleep(time.Millisecond)
					}
					if _, ok := started.Load(next); !ok {
						t.Errorf("channel %d not made ahead after channel %d was asked for (depth %d)", next, tc.asks[0], a.depth)
					}
				}
				tg, err := a.get(fi)
				mu.Lock()
				want := made[fi]
				mu.Unlock()
				if fi == tc.failAt {
					if !errors.Is(err, errPlan) {
						t.Fatalf("channel %d: error %v, want the maker's", fi, err)
					}
					continue
				}
				if err != nil || tg == nil || tg != want {
					t.Fatalf("channel %d: got %p (%v), want its own targets %p", fi, tg, err, want)
				}
			}
			a.close()
			if n := busy.Load(); n != 0 {
				t.Errorf("close returned with %d makers running", n)
			}
			mu.Lock()
			defer mu.Unlock()
			for fi, n := range count {
				if n != 1 {
					t.Errorf("channel %d made %d times", fi, n)
				}
			}
			if n := count[tc.first]; tc.made && n != 0 {
				t.Errorf("channel %d, made before, made again %d times", tc.first, n)
			}
			if p := int(peak.Load()); p > aheadWorkers() {
				t.Errorf("%d channels made at once, over the %d workers", p, aheadWorkers())
			}
			a.start(tc.nfreq - 1)
			if n := count[tc.nfreq-1]; n > 1 {
				t.Errorf("a closed targetsAhead made channel %d again", tc.nfreq-1)
			}
		})
	}
}

var errPlan = errors.New("plan failed")

// seq is from, from+1, …, to−1.
func seq(from, to int) []int {
	var s []int
	for i := from; i < to; i++ {
		s = append(s, i)
	}
	return s
}
