// The chunk stage: per integration, Z and its Gram product chunk by chunk
// on the run's stream, then the output pairs.

package gpu

import (
	"fmt"

	"github.com/gomatvis/gomatvis/cuda"
)

// chunkPlan splits nvis visible sources into chunks: the run's chunk count,
// each no larger than the buffers.
func (r *run) chunkPlan(nvis int) (size, count int) {
	if nvis == 0 {
		return 0, 0
	}
	if r.nu != nil && r.nu.used {
		return nvis, 1 // the transform takes every visible source at once
	}
	size = min(r.bufSrc, (nvis+r.nchunk-1)/r.nchunk)
	return size, (nvis + size - 1) / size
}

// queueIntegration queues one integration's products and output copy:
// the transform's (nufft.go) or the chunks'.
func (r *run) queueIntegration(fi, sl, nvis int) error {
	if r.nu != nil && r.nu.used {
		return r.queueNUFFT(fi, sl, nvis)
	}
	return r.queueChunks(fi, sl, nvis)
}

// queueChunks queues the chunks of one integration and its output copy.
func (r *run) queueChunks(fi, sl, nvis int) error {
	ev := &r.ev[sl]
	c := r.c
	if err := c.Record(ev.s, r.s); err != nil {
		return err
	}
	size, count := r.chunkPlan(nvis)
	// The first chunk's product overwrites the accumulator (beta 0); the
	// fused path's reduction only adds, and no chunk writes nothing.
	if r.fused || count == 0 {
		if err := c.Memset8(r.dAcc, 0, int64(r.M)*int64(r.M)*r.zsize, r.s); err != nil {
			return err
		}
	}
	if err := r.chunkEvents(ev, count); err != nil {
		return err
	}
	// Each chunk is two launches between three events: beam_tau_z, then
	// the Gram product (into the accumulator); or, fused, gram_fused, then
	// gram_reduce. The beam is evaluated inside the first: the beam
	// stage's event pair stays (it measures the gap before the launch, ~0).
	first := func(n, p0 int) error { return r.launchBTZ(fi, sl, n, p0, r.dZ, r.s) }
	second := func(n int, beta float64) error {
		if err := r.g.Accumulate(r.st, r.dZ, r.ldz(n), r.M, r.nf*n, r.dAcc, beta); err != nil {
			return fmt.Errorf("gpu: %w", err)
		}
		return nil
	}
	if r.fused {
		first = func(n, p0 int) error { return r.launchFused(fi, sl, n, p0) }
		second = func(int, float64) error { return r.launchReduce() }
	}
	var p0 int
	if r.polSky {
		// The negative factors' Z and Gram come in the second stage.
		first = func(n, p0 int) error { return r.launchStokesZ(fi, sl, n, p0, false) }
		second = func(n int, beta float64) error { return r.stokesChunk(fi, sl, n, p0, beta) }
	}
	for ci := 0; ci < count; ci++ {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		p0 = ci * size
		n := min(size, nvis-p0)
		if err := c.Record(ev.chunk[ci][0], r.s); err != nil {
			return err
		}
		if err := first(n, p0); err != nil {
			return err
		}
		if err := c.Record(ev.chunk[ci][1], r.s); err != nil {
			return err
		}
		beta := 1.0
		if ci == 0 {
			beta = 0
		}
		if err := second(n, beta); err != nil {
			return err
		}
		if err := c.Record(ev.chunk[ci][2], r.s); err != nil {
			return err
		}
	}
	return r.queueOutput(sl)
}

// chunkEvents gives slot ev the three events of each of count chunks,
// making those it lacks.
func (r *run) chunkEvents(ev *slotEvents, count int) error {
	for len(ev.chunk) < count {
		var e [3]cuda.Event
		for k := range e {
			var err error
			if e[k], err = r.event(); err != nil {
				return err
			}
		}
		ev.chunk = append(ev.chunk, e)
	}
	return nil
}

// queueOutput queues the extraction of the requested pairs from the
// accumulator of slot sl's integration and its copy to the host.
func (r *run) queueOutput(sl int) error {
	lower := int32(0)
	if r.fused || r.st.LowerOnly() {
		lower = 1
	}
	if err := r.k.extract(r.s, int32(r.npairs), r.dPairs, int32(r.nf), int32(r.M), r.dAcc, lower, r.dOut); err != nil {
		return err
	}
	return r.copyOutput(sl)
}
