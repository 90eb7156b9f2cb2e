package cpu

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gomatvis/gomatvis/matvis/beam"
)

// distinctBeams returns rep: rep[i] is the first j ≤ i with beams[j] the
// same object as beams[i] (rep[i] = i for the first of each).
func distinctBeams(beams []beam.Beam) []int {
	reps, group := beam.Groups(beams, nil)
	rep := make([]int, len(beams))
	for i, g := range group {
		rep[i] = reps[g]
	}
	return rep
}

// prepare returns every beam's response at freq: each distinct beam object
// prepared once (At: frequency interpolation, spline prefilter), the
// distinct ones in parallel over the workers, and the list entries of the
// same object sharing its response (a Response is read only by Eval,
// which may run concurrently). The memory model still counts every entry.
// An error names the first failing beam of the list, as a serial loop
// would; a cancelled ctx's error is returned as it is.
func (r *run) prepare(ctx context.Context, freq float64) ([]beam.Response, error) {
	sim := r.sim
	resp := make([]beam.Response, len(sim.Beams))
	var todo []int
	for i, j := range r.rep {
		if i == j {
			todo = append(todo, i)
		}
	}
	errs := make([]error, len(sim.Beams))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(r.b.workers, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				n := int(next.Add(1) - 1)
				if n >= len(todo) || ctx.Err() != nil {
					return
				}
				i := todo[n]
				resp[i], errs[i] = sim.Beams[i].At(freq, sim.Mode)
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, j := range r.rep {
		if err := errs[j]; err != nil {
			return nil, fmt.Errorf("cpu: beam %d (%v) at %g Hz: %w", i, sim.Beams[i], freq, err)
		}
		resp[i] = resp[j]
	}
	return resp, nil
}
