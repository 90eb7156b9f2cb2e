package main

import (
	"context"
	"fmt"
)

// untilCancelled runs step and returns its result, or ctx's error as soon
// as ctx is cancelled, whichever comes first. It is for the steps that do
// not check a context themselves — reading a catalog or a layout,
// building a simulation, hashing the inputs — which can take tens of
// seconds on a large input: an interrupt used to wait for them (13–20 s
// for a large catalog). An abandoned step runs on in its goroutine until
// the command returns and the process exits, so only steps that write no
// files may be passed (those that do check ctx: the run, the merge).
func untilCancelled[T any](ctx context.Context, what string, step func() (T, error)) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, fmt.Errorf("%s: %w", what, err)
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1) // buffered: an abandoned step's send does not block
	go func() {
		v, err := step()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		return zero, fmt.Errorf("%s: stopped: %w", what, ctx.Err())
	}
}
