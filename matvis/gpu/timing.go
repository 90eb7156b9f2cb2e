// Timing: CUDA events per integration and chunk, read back into Stats.

package gpu

import (
	"fmt"
	"time"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/matvis"
)

// slotEvents time one integration: coords (c0 → u upload → c1), chunks
// (s, then beam/tauz/matprod per chunk), output (o).
type slotEvents struct {
	c0, u, c1, s, o cuda.Event
	chunk           [][3]cuda.Event
}

func (r *run) event() (cuda.Event, error) {
	e, err := r.c.NewEvent()
	if err == nil {
		r.events = append(r.events, e)
	}
	return e, err
}

// makeEvents creates the integration slots' coordinate and output events.
func (r *run) makeEvents() error {
	for i := range r.ev {
		for _, p := range []*cuda.Event{&r.ev[i].c0, &r.ev[i].u, &r.ev[i].c1, &r.ev[i].s, &r.ev[i].o} {
			var err error
			if *p, err = r.event(); err != nil {
				return fmt.Errorf("gpu: events: %w", err)
			}
		}
	}
	return nil
}

// elapsed is the time between two completed events (0 if unreadable: a
// timing gap must not fail a correct run).
func (r *run) elapsed(a, b cuda.Event) time.Duration {
	ms, err := r.c.Elapsed(a, b)
	if err != nil {
		return 0
	}
	return time.Duration(float64(ms) * 1e6)
}

// finish waits for integration (fi, ti) in slot sl, stores its
// visibilities and its stage times.
func (r *run) finish(fi, ti, sl, nvis int) error {
	ev := &r.ev[sl]
	c := r.c
	if err := c.SyncEvent(ev.o); err != nil {
		return fmt.Errorf("gpu: integration (freq %d, time %d): %w", fi, ti, err)
	}
	nout := r.npairs * r.nf * r.nf
	var err error
	if r.p1 {
		err = r.late.Put64(fi, ti, cuda.HostSlice[complex64](r.hOut[sl])[:nout])
	} else {
		err = r.late.Put128(fi, ti, cuda.HostSlice[complex128](r.hOut[sl])[:nout])
	}
	if err != nil {
		return fmt.Errorf("gpu: %g Hz: %w", r.sim.Freqs[fi], err)
	}
	var pre matvis.StageTimes
	pre[matvis.StageTransfer] = r.coordT[sl][0]
	pre[matvis.StageCoords] = r.coordT[sl][1]
	r.finishChunks(fi, ti, ev, nvis, pre)
	r.res.Done[fi*r.sim.NTime()+ti] = true
	return nil
}

// finishChunks stores the stage times of an integration queued by
// queueChunks, one sample per chunk (one with the
// coordinates and output only when nothing was visible); pre, the
// coordinate stages, go to the first.
func (r *run) finishChunks(fi, ti int, ev *slotEvents, nvis int, pre matvis.StageTimes) {
	d := r.elapsed
	size, count := r.chunkPlan(nvis)
	prev := ev.s
	for ci := 0; ci < count; ci++ {
		var st matvis.StageTimes
		if ci == 0 {
			st = pre
		}
		e := ev.chunk[ci]
		st[matvis.StageBeam] += d(prev, e[0])
		if r.fused {
			// One kernel does beam, τ, Z and the product: all of it is
			// the matprod stage (with the partial-sum reduction).
			st[matvis.StageMatProd] += d(e[0], e[2])
		} else {
			st[matvis.StageTauZ] += d(e[0], e[1])
			st[matvis.StageMatProd] += d(e[1], e[2])
		}
		prev = e[2]
		n := min(size, nvis-ci*size)
		if ci == count-1 {
			st[matvis.StageTransfer] += d(prev, ev.o)
		}
		r.res.Stats.Chunks = append(r.res.Stats.Chunks, r.chunkSample(fi, ti, ci, n, nvis, st))
	}
	if count == 0 {
		pre[matvis.StageTransfer] += d(ev.s, ev.o)
		r.res.Stats.Chunks = append(r.res.Stats.Chunks, r.chunkSample(fi, ti, 0, 0, 0, pre))
	}
}

// chunkSample is the sample of chunk ci of integration (fi, ti), which
// holds n of its nvis visible sources. Chunks are cut from the visible
// sources only; the others went through the coordinate stage, which is
// timed with chunk 0, so chunk 0 counts them among its NSources and the
// samples of an integration add up to the sky, as on the CPU.
func (r *run) chunkSample(fi, ti, ci, n, nvis int, st matvis.StageTimes) matvis.ChunkSample {
	ns := n
	if ci == 0 {
		ns += r.nsrc - nvis
	}
	return matvis.ChunkSample{Freq: fi, Time: ti, Chunk: ci, NSources: ns, NVisible: n, Stages: st}
}

func (r *run) tick(done *int, total int, last *time.Time) {
	*done++
	now := time.Now()
	r.res.Stats.Integrations = append(r.res.Stats.Integrations, now.Sub(*last))
	*last = now
	if p := r.sim.Options.Progress; p != nil {
		p(matvis.Progress{Done: *done, Total: total})
	}
}
