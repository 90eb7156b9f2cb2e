package matvis

import (
	"context"
	"fmt"
	"time"
)

// Tally is a backend's account of the integrations of one run that it has
// finished: each is marked in Result.Done, its wall time appended to
// Stats.Integrations and the run's progress reported to
// Options.Progress, in that order and once, as the backend suite
// (backendtest's Progress, Stats and cancellation checks) expects of every
// backend.
type Tally struct {
	backend string
	sim     *Simulation
	res     *Result
	done    int
}

// NewTally starts the account of sim's run into res by the named backend
// (the name begins its cancellation errors).
func NewTally(backend string, sim *Simulation, res *Result) *Tally {
	return &Tally{backend: backend, sim: sim, res: res}
}

// Done is how many integrations have finished.
func (t *Tally) Done() int { return t.done }

// Record records integration (f, ti) as finished after took.
func (t *Tally) Record(f, ti int, took time.Duration) {
	t.res.Done[f*t.sim.NTime()+ti] = true
	t.res.Stats.Integrations = append(t.res.Stats.Integrations, took)
	t.done++
	if p := t.sim.Options.Progress; p != nil {
		p(Progress{Done: t.done, Total: t.sim.NFreq() * t.sim.NTime()})
	}
}

// Cancelled is the error of a run stopped by its context's err: it says
// how far the run got and wraps err.
func (t *Tally) Cancelled(err error) error {
	return fmt.Errorf("%s: cancelled after %d of %d integrations: %w", t.backend, t.done, t.sim.NFreq()*t.sim.NTime(), err)
}

// Times runs integrate over channel f's times in order and records each
// that returns nil; it checks ctx before each, returning Cancelled once
// ctx is done, and returns integrate's first error as it is.
func (t *Tally) Times(ctx context.Context, f int, integrate func(ti int) error) error {
	for ti := range t.sim.NTime() {
		if err := ctx.Err(); err != nil {
			return t.Cancelled(err)
		}
		t0 := time.Now()
		if err := integrate(ti); err != nil {
			return err
		}
		t.Record(f, ti, time.Since(t0))
	}
	return nil
}
