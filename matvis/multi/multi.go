// Package multi runs one simulation on several backends at once — the GPUs
// of a node, each with its own CUDA context and stream — and assembles
// their results into one matvis.Result.
//
// The (frequency, time) grid is cut into blocks (matvis/shard's split:
// time blocks first), which go into one queue; each backend runs on its
// own goroutine, takes the next block, runs the block's sub-simulation
// (Simulation.Subset) with its own chunking and Gram strategy, and copies
// the block's visibilities into the shared result. A block's integrations
// get exactly the inputs they get in the whole run, so with the same
// chunk plan the result is bit for bit that of one backend.
//
// The first backend error cancels the others and is returned naming the
// backend and the block; cancelling the context stops every backend at its
// next check, and the result's Done marks what finished.
package multi

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/shard"
)

// BlocksPerBackend is the default number of queued blocks per backend.
// One: each block pays its set-up again (the host prepares every gridded
// beam of every channel, ~1 s at prodslice), and on two H200s 64 prodslice
// integrations ran 0.84× one GPU's speed in 4 blocks per device against
// 1.65× in one (bench/RESULTS.md); more blocks only pay for devices of
// unequal speed.
const BlocksPerBackend = 1

// Backend is a matvis.Backend that runs every simulation over several
// backends.
type Backend struct {
	backends []matvis.Backend
	names    []string
	// Blocks is the number of blocks a run is cut into (0:
	// BlocksPerBackend per backend), capped by the grid's integrations.
	Blocks int
}

// New returns a Backend over bs; names, when given (one per backend),
// name them in errors and in Name (e.g. "gpu 0"). It takes ownership:
// Close closes every backend.
func New(bs []matvis.Backend, names []string) (*Backend, error) {
	if len(bs) == 0 {
		return nil, errors.New("multi: no backends")
	}
	for i, b := range bs {
		if b == nil {
			return nil, fmt.Errorf("multi: backend %d is nil", i)
		}
	}
	if names == nil {
		for i, b := range bs {
			names = append(names, fmt.Sprintf("%s %d", b.Name(), i))
		}
	}
	if len(names) != len(bs) {
		return nil, fmt.Errorf("multi: %d names for %d backends", len(names), len(bs))
	}
	return &Backend{backends: bs, names: names}, nil
}

// Name is the first backend's name with the count, e.g. "gpu×2".
func (m *Backend) Name() string {
	if len(m.backends) == 1 {
		return m.backends[0].Name()
	}
	return fmt.Sprintf("%s×%d", m.backends[0].Name(), len(m.backends))
}

// Names are the backends' names, e.g. "gpu 0", "gpu 1".
func (m *Backend) Names() []string { return append([]string(nil), m.names...) }

// Close closes every backend.
func (m *Backend) Close() error {
	var errs []error
	for i, b := range m.backends {
		if err := b.Close(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", m.names[i], err))
		}
	}
	return errors.Join(errs...)
}

// Run simulates sim over the backends. On an error of one backend the
// others are stopped and the error names the backend and its block; on
// cancellation ctx's error is returned. In both cases the Result's Done
// marks the finished integrations, which are complete and correct.
func (m *Backend) Run(ctx context.Context, sim *matvis.Simulation) (*matvis.Result, error) {
	start := time.Now()
	if err := sim.CheckHostMemory(); err != nil {
		return nil, fmt.Errorf("multi: %w", err)
	}
	nb := m.Blocks
	if nb <= 0 {
		nb = BlocksPerBackend * len(m.backends)
	}
	nb = min(nb, sim.NFreq()*sim.NTime())
	blocks, err := shard.Split(sim.NFreq(), sim.NTime(), nb)
	if err != nil {
		return nil, fmt.Errorf("multi: %w", err)
	}
	r := &run{m: m, sim: sim, res: matvis.NewResult(sim), blocks: blocks, total: sim.NFreq() * sim.NTime(), start: start}
	st := &r.res.Stats
	st.Backend = m.Name()
	st.Integrations = make([]time.Duration, r.total)
	st.Backends = make([]matvis.BackendStats, len(m.backends))
	for i, n := range m.names {
		st.Backends[i].Name = n
	}
	err = r.do(ctx)
	r.res.Stats.Total = time.Since(start)
	return r.res, err
}

// run is one multi-backend run.
type run struct {
	m      *Backend
	sim    *matvis.Simulation
	blocks []matvis.Block
	total  int
	start  time.Time

	mu       sync.Mutex // guards what follows
	res      *matvis.Result
	done     int
	firstErr error
	planSet  bool
}

// do runs the queue on one goroutine per backend.
func (r *run) do(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	queue := make(chan int, len(r.blocks))
	for i := range r.blocks {
		queue <- i
	}
	close(queue)
	var wg sync.WaitGroup
	for d := range r.m.backends {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := r.worker(ctx, d, queue); err != nil {
				r.fail(err)
				cancel()
			}
		}()
	}
	wg.Wait()
	if r.firstErr != nil {
		return r.firstErr
	}
	return ctx.Err()
}

// fail keeps the first backend error.
func (r *run) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.firstErr == nil {
		r.firstErr = err
	}
}

// worker runs blocks from queue on backend d until the queue is empty or
// the run is stopped.
func (r *run) worker(ctx context.Context, d int, queue <-chan int) error {
	name := r.m.names[d]
	for bi := range queue {
		if ctx.Err() != nil {
			return nil
		}
		b := r.blocks[bi]
		// The block's result lies in the run's own where it is contiguous
		// there (time blocks of one channel), so the output is held once.
		sub, err := r.sim.SubsetInto(b, r.res)
		if err != nil {
			return fmt.Errorf("%s: %v: %w", name, b, err)
		}
		last := 0
		sub.Options.Progress = func(p matvis.Progress) { r.progress(p.Done - last); last = p.Done }
		t0 := time.Now()
		res, err := r.m.backends[d].Run(ctx, sub)
		if perr := r.put(d, b, res, t0); perr != nil && err == nil {
			err = perr
		}
		if err != nil {
			if errors.Is(err, context.Canceled) && ctx.Err() != nil {
				return nil // stopped by the caller or by another backend
			}
			return fmt.Errorf("%s: %v: %w", name, b, err)
		}
	}
	return nil
}

// progress adds n finished integrations and reports the total.
func (r *run) progress(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done += n
	if f := r.sim.Options.Progress; f != nil {
		f(matvis.Progress{Done: r.done, Total: r.total})
	}
}

// put copies a block's result (finished integrations only), run by
// backend d from t0 until now, into the run's result and merges its
// statistics.
func (r *run) put(d int, b matvis.Block, sub *matvis.Result, t0 time.Time) error {
	if sub == nil {
		return nil
	}
	end := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.res.PutBlock(b, sub); err != nil {
		return err
	}
	st := &r.res.Stats
	if !r.planSet {
		r.res.Plan, r.planSet = sub.Plan, true
		st.MatProdImpl, st.BeamInTauZ, st.ZBytes = sub.Stats.MatProdImpl, sub.Stats.BeamInTauZ, sub.Stats.ZBytes
		st.Device = sub.Stats.Device
	} else {
		st.MatProdImpl.Merge(sub.Stats.MatProdImpl)
	}
	st.Setup = max(st.Setup, sub.Stats.Setup)
	// The block's integrations ran frequency-major: put each at its place
	// in the grid.
	nt := r.sim.NTime()
	for i, w := range sub.Stats.Integrations {
		f, t := b.F0+i/b.NTime(), b.T0+i%b.NTime()
		st.Integrations[f*nt+t] = w
	}
	bs := &st.Backends[d]
	bs.Blocks++
	bs.Integrations += len(sub.Stats.Integrations)
	if bs.Blocks == 1 {
		bs.Start = t0.Sub(r.start)
	}
	bs.End = end.Sub(r.start)
	bs.Busy += end.Sub(t0)
	bs.Setup += sub.Stats.Setup
	bs.Prepare += sub.Stats.Prepare
	if dm := sub.Stats.Device; dm != nil && (bs.Device == nil || dm.UsedPeakBytes > bs.Device.UsedPeakBytes) {
		bs.Device = dm
	}
	for _, c := range sub.Stats.Chunks {
		c.Freq += b.F0
		c.Time += b.T0
		st.Chunks = append(st.Chunks, c)
		bs.ChunkTime += c.Stages.Total()
	}
	return nil
}

// Parts are the backends the Backend runs over, in order.
func (m *Backend) Parts() []matvis.Backend { return append([]matvis.Backend(nil), m.backends...) }

// RunEach runs sim once on every backend at the same time (e.g. a
// warm-up that compiles each device's kernels and fills its strategy
// cache) and returns the errors, each naming its backend.
func (m *Backend) RunEach(ctx context.Context, sim *matvis.Simulation) error {
	errs := make([]error, len(m.backends))
	var wg sync.WaitGroup
	for i, b := range m.backends {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := b.Run(ctx, sim); err != nil {
				errs[i] = fmt.Errorf("%s: %w", m.names[i], err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
