package matvis

import (
	"context"
	"fmt"
	"time"
)

// Integrations walks a host backend's integrations one at a time: it
// checks for cancellation before each, and after each marks it done in
// the result, records its time in the statistics and reports progress —
// what every backend that computes an integration on the calling
// goroutine does the same way.
type Integrations struct {
	backend     string
	sim         *Simulation
	res         *Result
	done, total int
}

// NewIntegrations starts the walk of sim's integrations into res for the
// backend named backend (the prefix of its errors).
func NewIntegrations(backend string, sim *Simulation, res *Result) *Integrations {
	return &Integrations{backend: backend, sim: sim, res: res, total: sim.NFreq() * sim.NTime()}
}

// Cancelled is ctx's error, if it is cancelled, as the backend's "cancelled
// after N of M integrations".
func (it *Integrations) Cancelled(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: cancelled after %d of %d integrations: %w", it.backend, it.done, it.total, err)
	}
	return nil
}

// Run computes integration (fi, ti) by do, unless ctx is cancelled, and
// records it: Result.Done, Stats.Integrations and Options.Progress.
func (it *Integrations) Run(ctx context.Context, fi, ti int, do func() error) error {
	if err := it.Cancelled(ctx); err != nil {
		return err
	}
	t0 := time.Now()
	if err := do(); err != nil {
		return err
	}
	it.res.Done[fi*it.sim.NTime()+ti] = true
	it.res.Stats.Integrations = append(it.res.Stats.Integrations, time.Since(t0))
	it.done++
	if p := it.sim.Options.Progress; p != nil {
		p(Progress{Done: it.done, Total: it.total})
	}
	return nil
}
