package beam

import (
	"context"
	"sync/atomic"

	"github.com/gomatvis/gomatvis/internal/blocks"
)

// EvalContext is rb.Eval(az, za, out) over at most workers goroutines
// that stops within a block of blocks.Grain directions of ctx's cancel
// and then returns its error (out partly written). The interpolation of
// a gridded beam at 10⁶ directions takes most of a second on a loaded
// machine, longer than a cancel may wait. ncomp is the number of
// components Eval writes (out holds ncomp·len(az) values).
func EvalContext(ctx context.Context, rb Response, az, za []float64, out []complex128, ncomp, workers int) error {
	n := len(az)
	workers = max(1, min(workers, n/evalChunk))
	if g, ok := rb.(*GriddedResponse); ok {
		// Writes straight into out with Eval's stride.
		return blocks.RunContext(ctx, n, workers, 0, func(lo, hi int) { g.evalRange(az, za, out, n, lo, hi) })
	}
	if ncomp == 1 {
		return blocks.RunContext(ctx, n, workers, 0, func(lo, hi int) { rb.Eval(az[lo:hi], za[lo:hi], out[lo:hi]) })
	}
	// Eval lays its components out with the stride of its own length:
	// each worker evaluates a block at a time into its own scratch (one
	// allocation a worker, not a block), then scatters it.
	var stopped atomic.Bool
	blocks.Run(n, workers, func(lo, hi int) {
		tmp := make([]complex128, ncomp*min(blocks.Grain, hi-lo))
		for b := lo; b < hi; b += blocks.Grain {
			if stopped.Load() || ctx.Err() != nil {
				stopped.Store(true)
				return
			}
			e := min(b+blocks.Grain, hi)
			m := e - b
			rb.Eval(az[b:e], za[b:e], tmp[:ncomp*m])
			for c := range ncomp {
				copy(out[c*n+b:c*n+e], tmp[c*m:(c+1)*m])
			}
		}
	})
	if stopped.Load() {
		return ctx.Err()
	}
	return nil
}
