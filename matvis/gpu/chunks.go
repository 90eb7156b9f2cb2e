// The chunk stage: per integration, Z and its Gram product chunk by chunk
// (single stream or the sub-chunk pipeline), then the output pairs.

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
	size = min(r.bufSrc, (nvis+r.nchunk-1)/r.nchunk)
	return size, (nvis + size - 1) / size
}

// queueChunks queues the chunks of one integration and its output copy.
func (r *run) queueChunks(fi, sl, nvis int) error {
	ev := &r.ev[sl]
	c := r.c
	if err := c.Record(ev.s, r.s); err != nil {
		return err
	}
	if err := c.Memset8(r.dAcc, 0, int64(r.M)*int64(r.M)*r.zsize, r.s); err != nil {
		return err
	}
	size, count := r.chunkPlan(nvis)
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
	btz := func(n, p0 int, z cuda.DevicePtr, s cuda.Stream) error { return r.launchBTZ(fi, sl, n, p0, z, s) }
	if r.subPlan(size) > 1 {
		if err := r.queuePieces(ev, nvis, btz); err != nil {
			return err
		}
		return r.queueOutput(sl)
	}
	// Each chunk is two launches between three events: beam_tau_z, then
	// the Gram product (into the accumulator); or, fused, gram_fused, then
	// gram_reduce. The beam is evaluated inside the first: the beam
	// stage's event pair stays (it measures the gap before the launch, ~0).
	first := func(n, p0 int) error { return btz(n, p0, r.dZ, r.s) }
	second := func(n int) error {
		ldz := r.nf * n
		if err := r.g.Accumulate(r.st, r.dZ, ldz, r.M, ldz, r.dAcc, 1); err != nil {
			return fmt.Errorf("gpu: %w", err)
		}
		return nil
	}
	if r.fused {
		first = func(n, p0 int) error { return r.launchFused(fi, sl, n, p0) }
		second = func(int) error { return r.launchReduce() }
	}
	var p0 int
	if r.polSky {
		// The negative factors' Z and Gram come in the second stage.
		first = func(n, p0 int) error { return r.launchStokesZ(fi, sl, n, p0, false) }
		second = func(n int) error { return r.stokesChunk(fi, sl, n, p0) }
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
		if err := second(n); err != nil {
			return err
		}
		if err := c.Record(ev.chunk[ci][2], r.s); err != nil {
			return err
		}
	}
	return r.queueOutput(sl)
}

// subPlan is the number of sub-chunks each chunk of size sources is split
// into: min(run.sub, ⌈size/minSubChunk⌉), at least 1 (1: the
// single-stream path).
func (r *run) subPlan(size int) int {
	if r.sub <= 1 || size <= 0 {
		return 1
	}
	return max(1, min(r.sub, (size+r.tune.minSubChunk-1)/max(r.tune.minSubChunk, 1)))
}

// pieces lists the sub-chunks of an integration with nvis visible sources
// as (first source, sources, chunk index), chunk by chunk.
func (r *run) pieces(nvis int) [][3]int {
	size, count := r.chunkPlan(nvis)
	sub := r.subPlan(size)
	var out [][3]int
	for ci := 0; ci < count; ci++ {
		p0 := ci * size
		n := min(size, nvis-p0)
		ps := (n + sub - 1) / sub
		for q := 0; q < n; q += ps {
			out = append(out, [3]int{p0 + q, min(ps, n-q), ci})
		}
	}
	return out
}

// queuePieces queues the sub-chunk pipeline of one integration: the fused
// kernel of each sub-chunk on the side stream into Z buffer (index mod 2),
// the Gram product accumulated (beta 1) on the main stream after it; the
// fused kernel of sub-chunk i+2 waits for the Gram product of i, which read
// the same buffer. The side stream starts after ev.s (the slot's
// coordinates and every earlier use of the Z buffers are before it on the
// main stream); the main stream's last Gram product ends after every fused
// kernel, so what follows on the main stream needs no further wait.
func (r *run) queuePieces(ev *slotEvents, nvis int, btz func(n, p0 int, z cuda.DevicePtr, s cuda.Stream) error) error {
	c := r.c
	ps := r.pieces(nvis)
	for len(ev.piece) < len(ps) {
		var e [4]cuda.Event
		for k := range e {
			var err error
			if e[k], err = r.event(); err != nil {
				return err
			}
		}
		ev.piece = append(ev.piece, e)
	}
	if err := c.WaitEvent(r.s2, ev.s); err != nil {
		return fmt.Errorf("gpu: sub-chunk pipeline: %w", err)
	}
	bufBytes := int64(r.M) * int64(r.nf) * int64(r.zCap) * r.zsize
	for i, p := range ps {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		e := ev.piece[i]
		z := r.dZ.Offset(int64(i%2) * bufBytes)
		if i >= 2 {
			if err := c.WaitEvent(r.s2, ev.piece[i-2][3]); err != nil {
				return fmt.Errorf("gpu: sub-chunk pipeline: %w", err)
			}
		}
		if err := c.Record(e[0], r.s2); err != nil {
			return err
		}
		if err := btz(p[1], p[0], z, r.s2); err != nil {
			return err
		}
		if err := c.Record(e[1], r.s2); err != nil {
			return err
		}
		if err := c.WaitEvent(r.s, e[1]); err != nil {
			return fmt.Errorf("gpu: sub-chunk pipeline: %w", err)
		}
		if err := c.Record(e[2], r.s); err != nil {
			return err
		}
		ldz := r.nf * p[1]
		if err := r.g.Accumulate(r.st, z, ldz, r.M, ldz, r.dAcc, 1); err != nil {
			return fmt.Errorf("gpu: %w", err)
		}
		if err := c.Record(e[3], r.s); err != nil {
			return err
		}
	}
	return nil
}

// queueOutput queues the extraction of the requested pairs from the
// accumulator of slot sl's integration and its copy to the host.
func (r *run) queueOutput(sl int) error {
	ev := &r.ev[sl]
	c := r.c
	lower := int32(0)
	if r.fused || r.st.LowerOnly() {
		lower = 1
	}
	nout := r.npairs * r.nf * r.nf
	if err := r.k.extract(r.s, int32(r.npairs), r.dPairs, int32(r.nf), int32(r.M), r.dAcc, lower, r.dOut); err != nil {
		return err
	}
	if err := c.CopyDtoH(r.hOut[sl].Ptr(), r.dOut, int64(nout)*r.osize, r.s); err != nil {
		return err
	}
	return c.Record(ev.o, r.s)
}
