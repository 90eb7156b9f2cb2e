package output

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gomatvis/gomatvis/matvis"
)

// Options adjust Run.
type Options struct {
	// BlockBytes bounds a block's visibilities (0: BlockBudget).
	BlockBytes int64
	// Progress, when set, is called after each finished integration with
	// the run's progress over all its blocks.
	Progress func(matvis.Progress)
	// Notice, when set, is told the block plan of a run of several blocks.
	Notice func(string)
}

// Summary is how a streamed run went.
type Summary struct {
	// Blocks is the number of blocks run; Largest the largest of them.
	Blocks  int
	Largest matvis.Block
	// Stats are the first block's, with every block's Integrations (in
	// grid order) and Chunks (labelled with the grid's frequency and
	// time), a sample of them for a run of many integrations (Sampled), and
	// the sums of their Setup, Prepare and Total; Plan is the first
	// block's chunk plan.
	Stats matvis.Stats
	Plan  matvis.MemoryPlan
	// Compute is the time spent in the backend's runs; WriteWait the time
	// the compute waited for the writer (a buffer to compute into, the
	// writer to take a finished block, or to finish the last); Close the time closing the file
	// took (for a complete run, or a cancelled one's partial file).
	Compute, WriteWait, Close time.Duration
	// Writing is the writer's own time in WriteBlock over every block
	// (overlapping the compute but for WriteWait), and Written the
	// visibility bytes it was given: their ratio is the format's write
	// rate on this disk.
	Writing time.Duration
	Written int64
	// Kept, for a cancelled run, is what its partial file holds.
	Kept *Kept
}

// Run computes sim on be block by block (Plan, time-major, of at most
// opt.BlockBytes) and streams each finished block into w on a goroutine
// of its own, holding at most two blocks: one computing, one being
// written. It finishes w: Close after the last block; on cancellation
// ClosePartial, the finished blocks and the integrations the cancelled
// block finished kept (Summary.Kept says what), returning ctx's error;
// on any other error Abort. The block buffers are reused from block to
// block (Simulation.SubsetZeroed), cleared by the writer once written,
// and sized before they are allocated:
// for a simulation built with Options.OutputStreamed, two blocks beside
// the run's other host memory must fit its budget.
func Run(ctx context.Context, be matvis.Backend, sim *matvis.Simulation, w BlockWriter, opt Options) (Summary, error) {
	per := IntegrationBytes(sim)
	blockBytes := opt.BlockBytes
	if blockBytes <= 0 {
		blockBytes = BlockBudget(sim)
	}
	blocks := Plan(sim.NFreq(), sim.NTime(), per, blockBytes)
	sum := Summary{Blocks: len(blocks)}
	for _, b := range blocks {
		if b.Size() > sum.Largest.Size() {
			sum.Largest = b
		}
	}
	if err := checkBuffers(sim, int64(sum.Largest.Size())*per); err != nil {
		w.Abort()
		return sum, err
	}
	if opt.Notice != nil && len(blocks) > 1 {
		opt.Notice(fmt.Sprintf("the output (%.3g GB) is computed and written in %d blocks of up to %d times × %d channels (%.3g MB), each written as the next computes",
			float64(per)*float64(sim.NFreq()*sim.NTime())/1e9, len(blocks), sum.Largest.NTime(), sum.Largest.NFreq(), float64(per)*float64(sum.Largest.Size())/1e6))
	}
	r := &runner{be: be, sim: sim, w: w, opt: opt, sum: &sum, values: sum.Largest.Size() * int(per/int64(8*sim.Options.Precision))}
	return sum, r.run(ctx, blocks)
}

// checkBuffers checks that two blocks of blockBytes fit beside the run's
// other host memory, for a simulation whose New counted no output.
func checkBuffers(sim *matvis.Simulation, blockBytes int64) error {
	if !sim.Options.OutputStreamed {
		return nil // New counted the whole output, more than two blocks
	}
	terms := append(sim.HostBytes(), matvis.MemoryTerm{Name: "output_blocks", Bytes: 2 * blockBytes})
	if err := matvis.CheckHostBudget(terms, sim.Options.MaxMemory, sim.Options.MemoryBuffer); err != nil {
		return fmt.Errorf("output: two blocks of %d bytes: %w", blockBytes, err)
	}
	return nil
}

// runner is the state of one Run.
type runner struct {
	be     matvis.Backend
	sim    *matvis.Simulation
	w      BlockWriter
	opt    Options
	sum    *Summary
	values int // complex values of the largest block
	// free holds the buffers the writer is done with (cleared); made
	// counts them. spare is the second, made and touched while the first
	// block computes (a run of more than one block).
	free  chan *matvis.Result
	spare chan *matvis.Result
	made  int
	// The writer's goroutine closes failed after setting werr (then
	// cancels the compute through cancel), and wdone when it returns.
	failed, wdone chan struct{}
	werr          error
	cancel        context.CancelFunc
}

// job is a finished block on its way to the writer.
type job struct {
	b   matvis.Block
	res *matvis.Result
	// buf is the buffer res's storage lies in, returned to free after.
	buf *matvis.Result
}

func (r *runner) run(parent context.Context, blocks []matvis.Block) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	r.cancel = cancel
	r.free = make(chan *matvis.Result, 2)
	r.failed, r.wdone = make(chan struct{}), make(chan struct{})
	jobs := make(chan job)
	go r.write(jobs)
	if len(blocks) > 1 {
		r.spare = make(chan *matvis.Result, 1)
		go func() { r.spare <- touched(r.newBuffer()) }()
	}
	done := 0
	for i, b := range blocks {
		buf, err := r.buffer(ctx)
		if err != nil {
			return r.stop(parent, jobs, err)
		}
		res, err := r.compute(ctx, blocks, i, buf, done)
		if res != nil && (err == nil || errors.Is(err, context.Canceled)) {
			if serr := r.send(jobs, job{b, res, buf}); serr != nil {
				return r.stop(parent, jobs, serr)
			}
		}
		if err != nil {
			return r.stop(parent, jobs, err)
		}
		done += b.Size()
	}
	close(jobs)
	// The last block is written after the compute: waiting for it is the
	// writer's time, not the compute's.
	t := time.Now()
	<-r.wdone
	r.sum.WriteWait += time.Since(t)
	if r.werr != nil {
		r.w.Abort()
		return r.werr
	}
	if s, ok := r.w.(Summarizer); ok {
		s.Summarize(*r.sum)
	}
	t = time.Now()
	err := r.w.Close()
	r.sum.Close = time.Since(t)
	return err
}

// write is the writer's goroutine: it writes each job's block, then
// frees its buffer; after an error it only frees them.
func (r *runner) write(jobs <-chan job) {
	defer close(r.wdone)
	per := IntegrationBytes(r.sim)
	for j := range jobs {
		if r.werr == nil {
			if o, ok := r.w.(*Opening); ok {
				_, _ = o.opened() // the open's time is not the writing's
			}
			t := time.Now()
			err := r.w.WriteBlock(j.b, j.res)
			r.sum.Writing += time.Since(t)
			r.sum.Written += int64(j.b.Size()) * per
			if err != nil {
				r.werr = err
				close(r.failed)
				r.cancel() // the block computing now is not wanted
			}
		}
		clearUsed(j.buf, j.res)
		r.free <- j.buf
	}
}

// clearUsed zeroes the part of buf that res, a block computed in it,
// used (nothing when res has storage of its own), so that a buffer
// handed out again is zero, as a new one is (Simulation.SubsetZeroed).
func clearUsed(buf, res *matvis.Result) {
	switch {
	case len(res.Vis64) > 0 && len(buf.Vis64) >= len(res.Vis64) && &res.Vis64[0] == &buf.Vis64[0]:
		clear(buf.Vis64[:len(res.Vis64)])
	case len(res.Vis128) > 0 && len(buf.Vis128) >= len(res.Vis128) && &res.Vis128[0] == &buf.Vis128[0]:
		clear(buf.Vis128[:len(res.Vis128)])
	}
}

// touched writes a zero into every page of buf's new storage (which is
// zero already) and returns buf: the kernel maps the pages now, on this
// goroutine, rather than in the block run that first writes them.
func touched(buf *matvis.Result) *matvis.Result {
	const perPage = 4096 / 8 // complex64 values a 4 KiB page (complex128: half a page)
	for i := 0; i < len(buf.Vis64); i += perPage {
		buf.Vis64[i] = 0
	}
	for i := 0; i < len(buf.Vis128); i += perPage / 2 {
		buf.Vis128[i] = 0
	}
	return buf
}

// buffer is a zero buffer to compute the next block into: a new one
// while fewer than two exist (the second made ahead: spare), else the
// next the writer frees.
func (r *runner) buffer(ctx context.Context) (*matvis.Result, error) {
	select {
	case b := <-r.free:
		return b, nil
	default:
	}
	if r.made < 2 {
		r.made++
		if r.made == 1 || r.spare == nil {
			return r.newBuffer(), nil
		}
		select {
		case b := <-r.spare:
			return b, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	t := time.Now()
	defer func() { r.sum.WriteWait += time.Since(t) }()
	select {
	case b := <-r.free:
		return b, nil
	case <-r.failed:
		return nil, r.werr
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// newBuffer is a new buffer of the largest block's values, zero.
func (r *runner) newBuffer() *matvis.Result {
	buf := &matvis.Result{Precision: r.sim.Options.Precision}
	if buf.Precision == 1 {
		buf.Vis64 = make([]complex64, r.values)
	} else {
		buf.Vis128 = make([]complex128, r.values)
	}
	return buf
}

// send hands a finished block to the writer, returning the writer's
// error if it failed meanwhile.
func (r *runner) send(jobs chan<- job, j job) error {
	t := time.Now()
	defer func() { r.sum.WriteWait += time.Since(t) }()
	select {
	case jobs <- j:
		return nil
	case <-r.failed:
		return r.werr
	}
}

// compute runs block i of blocks into buf, reporting progress from done
// integrations of the run's.
func (r *runner) compute(ctx context.Context, blocks []matvis.Block, i int, buf *matvis.Result, done int) (*matvis.Result, error) {
	b := blocks[i]
	sub, err := r.sim.SubsetZeroed(b, buf)
	if err != nil {
		return nil, err
	}
	total := r.sim.NFreq() * r.sim.NTime()
	p, ahead := r.opt.Progress, r.ahead(ctx, blocks, i)
	if p != nil || ahead != nil {
		sub.Options.Progress = func(q matvis.Progress) {
			if ahead != nil {
				ahead()
				ahead = nil
			}
			if p != nil {
				p(matvis.Progress{Done: done + q.Done, Total: total})
			}
		}
	}
	t := time.Now()
	res, err := r.be.Run(ctx, sub)
	r.sum.Compute += time.Since(t)
	if res != nil {
		r.addStats(res, b, i == 0)
	}
	return res, err
}

// CoordinatesAhead is a backend whose host is mostly idle while it
// computes (a GPU's: the device works, the host waits for it). Run then
// has the next block's source coordinates made meanwhile
// (matvis.PrefetchENU), once the block's first integration is done, so
// that the next block does not start by waiting for them: with astropy's
// method they cost 32 ms of 16 host cores a time at 10⁶ sources, against
// 118 ms of device time for a time's 64 channels on an H100
// (bench/RESULTS.md).
type CoordinatesAhead interface {
	CoordinatesAhead() bool
}

// WantsCoordinatesAhead says whether be asks for its coordinates made
// ahead (CoordinatesAhead).
func WantsCoordinatesAhead(be matvis.Backend) bool {
	ca, ok := be.(CoordinatesAhead)
	return ok && ca.CoordinatesAhead()
}

// maxAheadBytes bounds the coordinates made ahead: three float64 a
// source for each of the next block's times.
const maxAheadBytes = 512 << 20

// ahead is what starts making the coordinates of the times of the block
// after block i that block i does not hold, for a backend that asks for
// it (nil: nothing to do).
func (r *runner) ahead(ctx context.Context, blocks []matvis.Block, i int) func() {
	if !WantsCoordinatesAhead(r.be) || i+1 >= len(blocks) {
		return nil
	}
	b, next := blocks[i], blocks[i+1]
	if int64(next.NTime())*int64(r.sim.NSrc())*24 > maxAheadBytes {
		return nil
	}
	return func() {
		for t := next.T0; t < next.T1; t++ {
			if t < b.T0 || t >= b.T1 {
				matvis.PrefetchENU(ctx, r.sim.Coords, t)
			}
		}
	}
}

// maxSampled bounds the integrations whose times a run's Summary keeps
// (with their chunks' stage times: 88 B a chunk); a longer run keeps an
// even sample (matvis.Sampling). Keeping them all made a 2·10⁶-channel ×
// 3-time run die of out-of-memory in the statistics, not the output.
const maxSampled = 1 << 14

// addStats folds block b's statistics into the summary's: the integration
// times in grid order (frequency-major, as matvis/multi keeps them), the
// chunks labelled with the grid's frequency and time, those of every
// stride-th integration only when the run has more than maxSampled, and
// the sums of Setup, Prepare, Total and every chunk's time.
func (r *runner) addStats(res *matvis.Result, b matvis.Block, first bool) {
	s := &r.sum.Stats
	nt, total := r.sim.NTime(), r.sim.NFreq()*r.sim.NTime()
	stride := (total + maxSampled - 1) / maxSampled
	if first {
		*s = res.Stats
		s.Integrations = make([]time.Duration, (total+stride-1)/stride)
		s.Chunks, s.Setup, s.Prepare, s.Total = nil, 0, 0, 0
		if stride > 1 {
			s.Sampled = &matvis.Sampling{Stride: stride}
		}
		r.sum.Plan = res.Plan
	}
	s.Setup += res.Stats.Setup
	s.Prepare += res.Stats.Prepare
	s.Total += res.Stats.Total
	kept := func(f, t int) (int, bool) {
		g := (b.F0+f)*nt + b.T0 + t
		return g / stride, g%stride == 0
	}
	bnt := b.NTime()
	for j, w := range res.Stats.Integrations {
		if i, ok := kept(j/bnt, j%bnt); ok {
			s.Integrations[i] = w
		}
	}
	for _, c := range res.Stats.Chunks {
		if s.Sampled != nil {
			s.Sampled.ChunkTime += c.Stages.Total()
		}
		if _, ok := kept(c.Freq, c.Time); ok {
			c.Freq, c.Time = c.Freq+b.F0, c.Time+b.T0
			s.Chunks = append(s.Chunks, c)
		}
	}
}

// stop ends a run that failed or was cancelled with err: it lets the
// writer finish the blocks it was given, then, when the caller's context
// was cancelled, keeps them as a partial file, else discards the file.
func (r *runner) stop(parent context.Context, jobs chan job, err error) error {
	close(jobs)
	<-r.wdone
	if r.werr != nil {
		r.w.Abort()
		return r.werr
	}
	if parent.Err() == nil || !errors.Is(err, context.Canceled) {
		r.w.Abort()
		return err
	}
	// The backend's message counts the block's integrations; the run's
	// are in Kept.
	err = fmt.Errorf("run cancelled: %w", parent.Err())
	t := time.Now()
	kept, perr := r.w.ClosePartial()
	r.sum.Close = time.Since(t)
	if perr != nil {
		return fmt.Errorf("%w (and saving the finished integrations failed: %w)", err, perr)
	}
	r.sum.Kept = &kept
	return err
}
