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

// idle is the pool's idle bytes (free for this run's purposes).
func (m *devMem) idle() int64 {
	if m.pool == nil {
		return 0
	}
	return m.pool.device.idle
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

// allocDevice allocates the run's device buffers, each under its memory
// term.
func (r *run) allocDevice() error {
	type req struct {
		p    *cuda.DevicePtr
		term string
		n    int64
	}
	ns := int64(r.nsrc)
	reqs := []req{
		{&r.dAnt, matvis.TermAntPos, int64(r.nant) * 3 * 8}, {&r.dBeamOf, termIO, int64(r.nant) * 4}, {&r.dPairs, termIO, int64(r.npairs) * 8},
		{&r.dFlux, matvis.TermFlux, ns * 8},
		// The ECI vectors (BCRS step on the device), cached vectors or
		// uploaded ENU of every source: the model's crd_eq; its crd_top
		// are the compaction slots' ENU.
		{&r.dSrc[0], matvis.TermCrdEq, ns * 8}, {&r.dSrc[1], matvis.TermCrdEq, ns * 8}, {&r.dSrc[2], matvis.TermCrdEq, ns * 8},
		{&r.dTotal[0], termCompaction, 4}, {&r.dTotal[1], termCompaction, 4},
		{&r.dBlkCnt, termCompaction, int64(r.nblk) * 4}, {&r.dBlkOff, termCompaction, int64(r.nblk) * 4},
		{&r.dAcc, matvis.TermVis, int64(r.M) * int64(r.M) * r.zsize},
		{&r.dOut, termIO, int64(r.npairs) * int64(r.nf*r.nf) * r.osize},
		{&r.dDesc, termBeamTables, int64(r.nbeam) * int64(unsafe.Sizeof(beamDesc{}))},
	}
	scanMax := int64(r.nblk)
	if r.order {
		nt := int64(r.nblkSort) * int64(max(sortBands, sortAzBins)) * 4
		scanMax = max(scanMax, nt/4)
		reqs = append(reqs, req{&r.dTmpE, termSort, ns * r.rsize}, req{&r.dTmpN, termSort, ns * r.rsize}, req{&r.dTmpU, termSort, ns * r.rsize},
			req{&r.dTmpA, termSort, ns * 8}, req{&r.dSortCnt, termSort, nt}, req{&r.dSortOff, termSort, nt}, req{&r.dSortTot, termSort, 4})
	}
	r.lb.words = max(r.nblk, int((scanMax+scanTile-1)/scanTile))
	reqs = append(reqs, req{&r.dScanTmp, termCompaction, scanScratch(scanMax)}, req{&r.lb.status, termCompaction, int64(r.lb.words) * 8})
	for i := 0; i < 2; i++ {
		reqs = append(reqs, req{&r.dCe[i], matvis.TermCrdTop, ns * r.rsize}, req{&r.dCn[i], matvis.TermCrdTop, ns * r.rsize},
			req{&r.dCu[i], matvis.TermCrdTop, ns * r.rsize}, req{&r.dAmp[i], matvis.TermFluxChunk, ns * 8})
	}
	if !r.fusedCand {
		reqs = append(reqs, req{&r.dZ, matvis.TermZ, r.zBytes()})
	}
	tcPart := int64(0)
	if r.st.SplitZ() {
		tcPart = gram.TensorCoreScratch(r.M, r.c.Info().SMs)
		reqs = append(reqs, req{&r.dTCPart, termGramPartials, tcPart})
	}
	if r.polSky {
		for i := range r.dW {
			reqs = append(reqs, req{&r.dW[i], matvis.TermStokes, 2 * ns * stokesWords * 8})
		}
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

// allocHost allocates the run's pinned host buffers: the ENU upload
// slots (without a cached rotation), the output slots, the visible
// count, the Stokes factors and the coordinate parameters.
func (r *run) allocHost() (err error) {
	ns := int64(r.nsrc)
	for i := 0; i < 2; i++ {
		if r.rot == nil {
			if r.hENU[i], err = r.keep.hostBuffer(3 * ns * 8); err != nil {
				return fmt.Errorf("gpu: ENU upload buffer: %w", err)
			}
		}
		if r.hOut[i], err = r.keep.hostBuffer(max(int64(r.npairs)*int64(r.nf*r.nf)*r.osize, 8)); err != nil {
			return fmt.Errorf("gpu: output buffer: %w", err)
		}
	}
	if !r.polSky {
		for i := range r.hFlux {
			if r.hFlux[i], err = r.keep.hostBuffer(max(ns*8, 8)); err != nil {
				return fmt.Errorf("gpu: flux upload buffer: %w", err)
			}
		}
	}
	if r.hCount, err = r.keep.hostBuffer(8); err != nil {
		return fmt.Errorf("gpu: visible-count buffer: %w", err)
	}
	if r.polSky {
		for i := range r.hW {
			if r.hW[i], err = r.keep.hostBuffer(2 * ns * stokesWords * 8); err != nil {
				return fmt.Errorf("gpu: Stokes factor buffer: %w", err)
			}
		}
	}
	return nil
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
