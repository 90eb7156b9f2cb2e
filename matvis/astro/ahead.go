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
	copy(east, j.e)
	copy(north, j.n)
	copy(up, j.u)
	return true, nil
}
