package gram

import (
	"fmt"
	"sort"

	"github.com/gomatvis/gomatvis/cuda"
)

// Time runs the product reps times after warm warm-up runs and returns the
// median milliseconds measured with CUDA events around each run (mirror
// included for LowerOnly strategies, since a simulation needs it once per
// integration anyway).
func (g *Gram) Time(st Strategy, z cuda.DevicePtr, ldz, m, k int, c cuda.DevicePtr, warm, reps int) (float64, error) {
	return TimeMs(g.c, g.s, warm, reps, func() error {
		if err := g.Accumulate(st, z, ldz, m, k, c, 0); err != nil {
			return err
		}
		if st.LowerOnly() {
			return g.Mirror(c, m, st.Double())
		}
		return nil
	})
}

// TimeMs runs f, which queues work on stream s, warm times, then reps
// times each between two CUDA events recorded on s, waiting for each, and
// returns the median of the reps event timings in milliseconds.
func TimeMs(c *cuda.Context, s cuda.Stream, warm, reps int, f func() error) (float64, error) {
	start, err := c.NewEvent()
	if err != nil {
		return 0, err
	}
	defer c.DestroyEvent(start)
	stop, err := c.NewEvent()
	if err != nil {
		return 0, err
	}
	defer c.DestroyEvent(stop)
	for range warm {
		if err := f(); err != nil {
			return 0, err
		}
	}
	ms := make([]float64, 0, reps)
	for range reps {
		if err := c.Record(start, s); err != nil {
			return 0, err
		}
		if err := f(); err != nil {
			return 0, err
		}
		if err := c.Record(stop, s); err != nil {
			return 0, err
		}
		if err := c.SyncEvent(stop); err != nil {
			return 0, err
		}
		t, err := c.Elapsed(start, stop)
		if err != nil {
			return 0, err
		}
		ms = append(ms, float64(t))
	}
	return Median(ms), nil
}

// Median of a non-empty slice (sorted in place).
func Median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	sort.Float64s(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// Candidates are the strategies worth measuring for a precision (1: single,
// 2: double). TF32 is never a candidate: it misses fp32 accuracy;
// TCF16WG fails to run, and so is never chosen, off sm_90 cards. In
// single precision the complex128 strategies qualify because they are more
// accurate, not less, and on some cards (H200) faster.
func Candidates(precision int) []Strategy {
	if precision == 2 {
		return []Strategy{Zherk, Zgemm, TriZgemm(2), TriZgemm(4)}
	}
	return []Strategy{TCF16WG, TCF16, Cherk, Cgemm, Cgemm3m, TriCgemm(2), TriCgemm(4), Zherk, TriZgemm(2)}
}

// Result is one strategy's measured time.
type Result struct {
	Strategy Strategy
	Ms       float64
	Err      error // the strategy failed to run (e.g. unsupported)
}

// Choose times each candidate at shape (m, k) on scratch buffers filled
// with a non-zero pattern and returns the fastest with all results. It
// allocates the scratch (Z of k×m in complex128 and C of m×m in
// complex128) itself and frees it before returning.
func (g *Gram) Choose(cands []Strategy, m, k int) (Strategy, []Result, error) {
	if len(cands) == 0 {
		return "", nil, fmt.Errorf("gram: no candidate strategies")
	}
	k = max(k, 1)
	zb := int64(k) * int64(m) * 16
	z, err := g.c.Alloc(zb)
	if err != nil {
		return "", nil, fmt.Errorf("gram: scratch for choosing a strategy: %w", err)
	}
	defer g.c.Free(z)
	cbuf, err := g.c.Alloc(int64(m) * int64(m) * 16)
	if err != nil {
		return "", nil, fmt.Errorf("gram: scratch for choosing a strategy: %w", err)
	}
	defer g.c.Free(cbuf)
	// 0x3C bytes make every float32 and float64 a moderate normal number
	// (about 0.0115 and 1.6e-18 respectively... both non-zero and finite):
	// zeros could hit faster paths than real data.
	if err := g.c.Memset8(z, 0x3C, zb, g.s); err != nil {
		return "", nil, err
	}
	var res []Result
	best := Strategy("")
	bestMs := 0.0
	for _, st := range cands {
		ms, err := g.Time(st, z, k, m, k, cbuf, 2, 5)
		res = append(res, Result{Strategy: st, Ms: ms, Err: err})
		if err == nil && (best == "" || ms < bestMs) {
			best, bestMs = st, ms
		}
	}
	if err := g.c.SyncStream(g.s); err != nil {
		return "", res, err
	}
	if best == "" {
		return "", res, fmt.Errorf("gram: every candidate strategy failed (first: %v)", res[0].Err)
	}
	return best, res, nil
}
