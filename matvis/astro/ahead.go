package astro

import (
	"context"
	"sync"
)

// enuAhead holds the times whose vectors PrefetchENU is making or has
// made, until the ENU call that asks for them takes them.
type enuAhead struct {
	mu   sync.Mutex
	jobs map[int]*enuJob
}

// enuJob is one time's vectors, made once done is closed.
type enuJob struct {
	done    chan struct{}
	e, n, u []float64
	err     error
}

// start makes time ti's vectors of n sources with fill on a goroutine,
// unless they are being made already.
func (a *enuAhead) start(ti, n int, fill func(e, n, u []float64) error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.jobs[ti]; ok {
		return
	}
	if a.jobs == nil {
		a.jobs = map[int]*enuJob{}
	}
	j := &enuJob{done: make(chan struct{}), e: make([]float64, n), n: make([]float64, n), u: make([]float64, n)}
	a.jobs[ti] = j
	go func() {
		defer close(j.done)
		j.err = fill(j.e, j.n, j.u)
	}()
}

// take copies time ti's prefetched vectors into east, north and up and
// reports true, or reports false when there are none (or their making
// stopped: the caller makes them); it waits for vectors being made, or
// for ctx.
func (a *enuAhead) take(ctx context.Context, ti int, east, north, up []float64) (bool, error) {
	a.mu.Lock()
	j := a.jobs[ti]
	delete(a.jobs, ti)
	a.mu.Unlock()
	if j == nil {
		return false, nil
	}
	select {
	case <-j.done:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	if j.err != nil {
		return false, nil
	}
	// On every core: a GPU run waits for this copy (3 × 8 MB at 10⁶
	// sources took 3.7 ms on one core of an H100's host, 2026-12-07).
	parallelFor(len(j.e), func(lo, hi int) {
		copy(east[lo:hi], j.e[lo:hi])
		copy(north[lo:hi], j.n[lo:hi])
		copy(up[lo:hi], j.u[lo:hi])
	})
	return true, nil
}
