package beam

import (
	"context"

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
	return blocks.RunContext(ctx, n, workers, 0, func(lo, hi int) {
		// Eval lays its components out with the stride of its own
		// length: evaluate the block apart, then scatter it.
		m := hi - lo
		tmp := make([]complex128, ncomp*m)
		rb.Eval(az[lo:hi], za[lo:hi], tmp)
		for c := range ncomp {
			copy(out[c*n+lo:c*n+hi], tmp[c*m:(c+1)*m])
		}
	})
}
