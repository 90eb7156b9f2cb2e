// Device buffers of a run and the accounting of device memory
// (Stats.Device).

package gpu

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/cuda/gram"
	"github.com/gomatvis/gomatvis/matvis"
)

// Device memory terms of the backend's buffers that the memory model has
// no term for (the others use matvis.Term* names).
const (
	termBeamTables = "gpu_beam_tables" // beam descriptors and grid geometries
	termCompaction = "gpu_compaction"  // visible counts and the scan's block counts and offsets
	termSort       = "gpu_sort"        // the source ordering's scratch copies and bin counts
	termIO         = "gpu_io"          // antenna→beam map, pairs, extracted output
)

// allocRec is one live device allocation: its memory term and size.
type allocRec struct {
	term string
	n    int64
}

// devMem is a run's device memory: the buffers it allocates, freed
// together by freeAll, and the accounting of every live allocation (its
// own and those tracked for it) for Stats.Device: the peak with its
// breakdown by memory term, and the least free memory seen.
type devMem struct {
	dev *cuda.Context
	// pool keeps buffers between a backend's runs: alloc takes one of
	// the size asked for, freeAll and recycle give them back, and its idle
	// bytes count as free memory in the accounting.
	pool      *resident
	allocs    []cuda.DevicePtr
	mem       matvis.DeviceMemory
	live      map[cuda.DevicePtr]allocRec
	liveBytes int64
	liveTerm  map[string]int64
	termOrder []string
}

// newDevMem starts the accounting on c from its current free memory
// (with pool's idle buffers).
func newDevMem(c *cuda.Context, pool *resident) devMem {
	m := devMem{dev: c, pool: pool, live: map[cuda.DevicePtr]allocRec{}, liveTerm: map[string]int64{}}
	if free, total, err := c.MemInfo(); err == nil {
		free += m.idle()
		m.mem = matvis.DeviceMemory{TotalBytes: total, FreeBeforeBytes: free, MinFreeBytes: free}
	}
	return m
}

// idle is the pool's idle bytes and a kept transform's (free for this
// run's purposes until the run takes them).
func (m *devMem) idle() int64 {
	if m.pool == nil {
		return 0
	}
	return m.pool.device.idle + m.pool.transform.deviceBytes()
}

// alloc allocates n bytes (at least 8) for memory term term, freed by
// freeAll.
func (m *devMem) alloc(term string, n int64) (cuda.DevicePtr, error) {
	n = max(n, 8)
	p := m.pool.deviceBuffer(n)
	if p == 0 {
		var err error
		if p, err = m.dev.Alloc(n); err != nil {
			return 0, fmt.Errorf("gpu: %s: %w", term, err)
		}
	}
	m.allocs = append(m.allocs, p)
	m.track(p, term, n)
	return p, nil
}

// track records a live allocation for the memory accounting and updates
// the peak and its breakdown.
func (m *devMem) track(p cuda.DevicePtr, term string, n int64) {
	m.live[p] = allocRec{term, n}
	m.liveBytes += n
	if _, ok := m.liveTerm[term]; !ok {
		m.termOrder = append(m.termOrder, term)
	}
	m.liveTerm[term] += n
	if m.liveBytes > m.mem.AllocatedPeakBytes {
		// A new peak of the allocations is a candidate for the least
		// free memory too: sample it before a transient buffer goes.
		m.sampleFree()
		m.mem.AllocatedPeakBytes = m.liveBytes
		m.mem.AllocatedTerms = m.mem.AllocatedTerms[:0]
		for _, t := range m.termOrder {
			m.mem.AllocatedTerms = append(m.mem.AllocatedTerms, matvis.MemoryTerm{Name: t, Bytes: m.liveTerm[t]})
		}
	}
}

// untrack forgets a freed allocation.
func (m *devMem) untrack(p cuda.DevicePtr) {
	if a, ok := m.live[p]; ok {
		delete(m.live, p)
		m.liveBytes -= a.n
		m.liveTerm[a.term] -= a.n
	}
}

// freeDev frees and forgets one tracked device buffer (nothing when *p is 0).
func (m *devMem) freeDev(p *cuda.DevicePtr) {
	if *p != 0 {
		_ = m.dev.Free(*p)
		m.untrack(*p)
		*p = 0
	}
}

// sampleFree reads the device's free memory and keeps the least seen.
func (m *devMem) sampleFree() {
	if m.mem.TotalBytes == 0 {
		return
	}
	if free, _, err := m.dev.MemInfo(); err == nil && free+m.idle() < m.mem.MinFreeBytes {
		m.mem.MinFreeBytes = free + m.idle()
	}
}

// deviceMemory completes the run's device-memory record.
func (m *devMem) deviceMemory() *matvis.DeviceMemory {
	if m.mem.TotalBytes == 0 {
		return nil
	}
	m.sampleFree()
	d := m.mem
	d.UsedPeakBytes = d.FreeBeforeBytes - d.MinFreeBytes
	d.AllocatedTerms = append([]matvis.MemoryTerm(nil), d.AllocatedTerms...)
	return &d
}

// freeAll gives every live buffer alloc made to the pool (frees it
// without one).
func (m *devMem) freeAll() {
	for _, p := range m.allocs {
		if a, ok := m.live[p]; ok && m.pool != nil {
			m.untrack(p)
			m.pool.keepDevice(p, a.n)
			continue
		}
		if _, ok := m.live[p]; ok {
			_ = m.dev.Free(p)
		}
	}
	m.allocs = nil
}

// allocate makes the run's buffers (Z only when the fused path is out of
// the question: otherwise chooseFused makes Z or the fused kernel's
// partials once the path is settled), poisons the output buffers and
// uploads the static inputs.
func (r *run) allocate() error {
	if err := r.allocDevice(); err != nil {
		return err
	}
	if err := r.allocHost(); err != nil {
		return err
	}
	if err := r.poisonOutput(); err != nil {
		return err
	}
	// Zeroed words carry tag 0, which no look-back launch uses.
	if err := r.c.Memset8(r.lb.status, 0, int64(r.lb.words)*8, r.s); err != nil {
		return err
	}
	return r.uploadInputs()
}

// bufReq is one device buffer a stage asks for: where its pointer goes,
// its memory term and its size in bytes.
type bufReq struct {
	p    *cuda.DevicePtr
	term string
	n    int64
}

// allocDevice allocates the device buffers each stage asks for (its
// deviceBuffers, sized from the run's shape), each under its memory term.
func (r *run) allocDevice() error {
	tcPart := int64(0)
	if r.st.SplitZ() {
		tcPart = gram.TensorCoreScratch(r.M, r.c.Info().SMs)
	}
	var zBytes int64
	if !r.fusedCand {
		zBytes = r.zBytes()
	}
	var reqs []bufReq
	for _, stage := range [][]bufReq{
		r.inputs.deviceBuffers(&r.runShape),
		r.coordState.deviceBuffers(&r.runShape),
		r.chunkState.deviceBuffers(&r.runShape, zBytes, tcPart),
		r.beamState.deviceBuffers(&r.runShape),
		r.stokesState.deviceBuffers(&r.runShape),
	} {
		reqs = append(reqs, stage...)
	}
	for _, q := range reqs {
		var err error
		if *q.p, err = r.alloc(q.term, q.n); err != nil {
			return err
		}
	}
	if r.dTCPart != 0 {
		r.g.UsePartials(r.dTCPart, tcPart)
	}
	return nil
}

// deviceBuffers are the static inputs': antenna positions, the
// antenna→beam map, the pairs and one channel's fluxes.
func (in *inputs) deviceBuffers(sh *runShape) []bufReq {
	return []bufReq{
		{&in.dAnt, matvis.TermAntPos, int64(sh.nant) * 3 * 8}, {&in.dBeamOf, termIO, int64(sh.nant) * 4},
		{&in.dPairs, termIO, int64(sh.npairs) * 8}, {&in.dFlux, matvis.TermFlux, int64(sh.nsrc) * 8},
	}
}

// deviceBuffers are the coordinate stage's: every source's vectors (the
// ECI vectors of a BCRS step on the device, cached vectors or uploaded
// ENU, of every time when resident: the model's crd_eq), the visible counts and the scan's blocks,
// the sort's scratch (gridded beams), and the two compaction slots (the
// model's crd_top and flux chunk). Its look-back status words are sized
// here too.
func (cs *coordState) deviceBuffers(sh *runShape) []bufReq {
	ns := int64(sh.nsrc)
	times := int64(1) // the times dSrc holds
	if cs.enu.resident {
		times = int64(len(cs.enu.uploaded))
	}
	reqs := []bufReq{
		{&cs.dSrc[0], matvis.TermCrdEq, times * ns * 8}, {&cs.dSrc[1], matvis.TermCrdEq, times * ns * 8}, {&cs.dSrc[2], matvis.TermCrdEq, times * ns * 8},
		{&cs.dTotal[0], termCompaction, 4}, {&cs.dTotal[1], termCompaction, 4},
		{&cs.dBlkCnt, termCompaction, int64(cs.nblk) * 4}, {&cs.dBlkOff, termCompaction, int64(cs.nblk) * 4},
	}
	scanMax := int64(cs.nblk)
	if cs.order {
		nt := int64(cs.nblkSort) * int64(max(sortBands, sortAzBins)) * 4
		scanMax = max(scanMax, nt/4)
		reqs = append(reqs, bufReq{&cs.dTmpE, termSort, ns * sh.rsize}, bufReq{&cs.dTmpN, termSort, ns * sh.rsize}, bufReq{&cs.dTmpU, termSort, ns * sh.rsize},
			bufReq{&cs.dTmpA, termSort, ns * 8}, bufReq{&cs.dSortCnt, termSort, nt}, bufReq{&cs.dSortOff, termSort, nt}, bufReq{&cs.dSortTot, termSort, 4})
	}
	cs.lb.words = max(cs.nblk, int((scanMax+scanTile-1)/scanTile))
	reqs = append(reqs, bufReq{&cs.dScanTmp, termCompaction, scanScratch(scanMax)}, bufReq{&cs.lb.status, termCompaction, int64(cs.lb.words) * 8})
	for i := range 2 {
		reqs = append(reqs, bufReq{&cs.dCe[i], matvis.TermCrdTop, ns * sh.rsize}, bufReq{&cs.dCn[i], matvis.TermCrdTop, ns * sh.rsize},
			bufReq{&cs.dCu[i], matvis.TermCrdTop, ns * sh.rsize}, bufReq{&cs.dAmp[i], matvis.TermFluxChunk, ns * 8})
	}
	return reqs
}

// deviceBuffers are the chunk stage's: the accumulated Gram product,
// the extracted output, Z (zBytes; 0 when the fused path may still be
// chosen: chooseFused makes it then) and the tensor-core product's
// partial sums (tcPart; 0 without).
func (ch *chunkState) deviceBuffers(sh *runShape, zBytes, tcPart int64) []bufReq {
	reqs := []bufReq{
		{&ch.dAcc, matvis.TermVis, int64(sh.M) * int64(sh.M) * sh.zsize},
		{&ch.dOut, termIO, int64(sh.npairs) * int64(sh.nf*sh.nf) * sh.osize},
	}
	if zBytes > 0 {
		reqs = append(reqs, bufReq{&ch.dZ, matvis.TermZ, zBytes})
	}
	if tcPart > 0 {
		reqs = append(reqs, bufReq{&ch.dTCPart, termGramPartials, tcPart})
	}
	return reqs
}

// deviceBuffers are the beam tables' own: the descriptors (the
// geometries and planes are allocated with the tables, beams.go).
func (bs *beamState) deviceBuffers(sh *runShape) []bufReq {
	return []bufReq{{&bs.dDesc, termBeamTables, int64(sh.nbeam) * int64(unsafe.Sizeof(beamDesc{}))}}
}

// deviceBuffers are a full-Stokes sky's two factor slots (none for a
// Stokes-I sky).
func (st *stokesState) deviceBuffers(sh *runShape) []bufReq {
	if !st.polSky {
		return nil
	}
	n := 2 * int64(sh.nsrc) * stokesWords * 8
	return []bufReq{{&st.dW[0], matvis.TermStokes, n}, {&st.dW[1], matvis.TermStokes, n}}
}

// hostReq is one pinned host buffer a stage asks for.
type hostReq struct {
	p    **cuda.HostBuffer
	what string
	n    int64
}

// allocHost allocates the pinned host buffers each stage asks for (its
// hostBuffers).
func (r *run) allocHost() error {
	for _, q := range r.hostBuffers() {
		var err error
		if *q.p, err = r.keep.hostBuffer(max(q.n, 8)); err != nil {
			return fmt.Errorf("gpu: %s: %w", q.what, err)
		}
	}
	return nil
}

// hostBuffers is every stage's pinned host buffers.
func (r *run) hostBuffers() []hostReq {
	var reqs []hostReq
	for _, stage := range [][]hostReq{
		r.coordState.hostBuffers(&r.runShape), r.chunkState.hostBuffers(&r.runShape),
		r.inputs.hostBuffers(&r.runShape, r.polSky), r.stokesState.hostBuffers(&r.runShape),
	} {
		reqs = append(reqs, stage...)
	}
	return reqs
}

// pinned is the pinned host buffers the run's stages made (nil where
// one was not made: a failed set-up), given back to the backend by close.
func (r *run) pinned() []*cuda.HostBuffer {
	var out []*cuda.HostBuffer
	for _, q := range r.hostBuffers() {
		out = append(out, *q.p)
	}
	return out
}

// hostBuffers are the coordinate stage's: the ENU upload slots, or every
// time's vectors (without a cached rotation), and the visible count.
func (cs *coordState) hostBuffers(sh *runShape) []hostReq {
	reqs := []hostReq{{&cs.hCount, "visible-count buffer", 8}}
	switch {
	case cs.enu.perTime:
		reqs = append(reqs, hostReq{&cs.enu.h[0], "ENU vectors of every time", int64(len(cs.enu.made)) * 3 * int64(sh.nsrc) * 8})
	case cs.rot == nil:
		for i := range cs.enu.h {
			reqs = append(reqs, hostReq{&cs.enu.h[i], "ENU upload buffer", 3 * int64(sh.nsrc) * 8})
		}
	}
	return reqs
}

// hostBuffers are the chunk stage's two output slots.
func (ch *chunkState) hostBuffers(sh *runShape) []hostReq {
	n := int64(sh.npairs) * int64(sh.nf*sh.nf) * sh.osize
	return []hostReq{{&ch.hOut[0], "output buffer", n}, {&ch.hOut[1], "output buffer", n}}
}

// hostBuffers are the fluxes' two upload slots (a Stokes-I sky: a
// full-Stokes sky's go with its factors).
func (in *inputs) hostBuffers(sh *runShape, polSky bool) []hostReq {
	if polSky {
		return nil
	}
	n := int64(sh.nsrc) * 8
	return []hostReq{{&in.hFlux[0], "flux upload buffer", n}, {&in.hFlux[1], "flux upload buffer", n}}
}

// hostBuffers are a full-Stokes sky's two factor upload slots.
func (st *stokesState) hostBuffers(sh *runShape) []hostReq {
	if !st.polSky {
		return nil
	}
	n := 2 * int64(sh.nsrc) * stokesWords * 8
	return []hostReq{{&st.hW[0], "Stokes factor buffer", n}, {&st.hW[1], "Stokes factor buffer", n}}
}

// poisonOutput fills the output buffers with NaN (host) and 0xFF bytes
// (device), so that an entry the device fails to write shows as NaN
// instead of a plausible zero.
func (r *run) poisonOutput() error {
	for i := 0; i < 2; i++ {
		h := cuda.HostSlice[float64](r.hOut[i])
		for k := range h {
			h[k] = math.NaN()
		}
	}
	if err := r.c.Memset8(r.dOut, 0xFF, int64(r.npairs)*int64(r.nf*r.nf)*r.osize, r.s); err != nil {
		return fmt.Errorf("gpu: poison the device output: %w", err)
	}
	return nil
}

// uploadInputs uploads the static inputs: antenna positions, beam
// indices, pairs and, for a BCRS rotation, the ECI vectors.
func (r *run) uploadInputs() error {
	sim := r.sim
	ant := make([]float64, 0, 3*r.nant)
	for _, a := range sim.Antennas {
		ant = append(ant, a[0], a[1], a[2])
	}
	beamOf := make([]int32, r.nant)
	for i, b := range sim.BeamOf {
		beamOf[i] = int32(b)
	}
	pairs := make([]int32, 0, 2*r.npairs)
	for _, p := range sim.Pairs {
		pairs = append(pairs, int32(p[0]), int32(p[1]))
	}
	for _, up := range []error{
		cuda.Upload(r.c, r.dAnt, ant, r.s), cuda.Upload(r.c, r.dBeamOf, beamOf, r.s),
		cuda.Upload(r.c, r.dPairs, pairs, r.s),
	} {
		if up != nil {
			return fmt.Errorf("gpu: upload inputs: %w", up)
		}
	}
	if r.bcrs != nil {
		// The ECI vectors, once: every time's BCRS step starts from them.
		x, y, z := r.bcrs.ECI()
		if len(x) != r.nsrc || len(y) != r.nsrc || len(z) != r.nsrc {
			return fmt.Errorf("gpu: ECI vectors have %d sources, want %d", len(x), r.nsrc)
		}
		for k, v := range [][]float64{x, y, z} {
			if err := cuda.Upload(r.c, r.dSrc[k], v, r.s); err != nil {
				return fmt.Errorf("gpu: upload ECI vectors: %w", err)
			}
		}
	}
	return nil
}
