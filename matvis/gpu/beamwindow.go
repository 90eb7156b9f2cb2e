// Streamed bases: the device's channel preparation for a run whose every
// used beam channel does not fit the device (350 distinct beams × 100
// beam channels at 181 × 366 nodes would take ~75 GB): per distinct beam
// a window of bases that holds the beam channels the channels being
// prepared need, each built from its raw planes, uploaded on a stream of
// its own, just before the weighted sum that reads it.

package gpu

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// baseWindow holds, per distinct beam, a ring of bases: twice the most
// beam channels one simulation channel's frequency step reads (at most
// the beam channels the run uses), so that the beam channels of a
// preparation and of the one before it can be held while a third is
// built. A preparation (queue number q) builds the beam
// channels it lacks into bases last read by preparation q − 2 or earlier,
// on the build stream after that preparation's weighted sum ran (event
// summed[q % 2]); its weighted sum waits for the builds (event built).
// The build stream never waits for the run's stream, so the uploads of
// raw planes proceed while the run integrates. It owns its stream,
// events and pinned buffers; its device buffers are beamPrep's.
type baseWindow struct {
	start   []int // per distinct beam: its first ring base
	length  []int // per distinct beam: its ring's bases
	holds   []int // per ring base: the beam channel it holds (-1 none)
	lastQ   []int // per ring base: the last preparation that read it
	offset  []int64
	queued  int // preparations queued so far (the next one's number)
	builds  int
	uploadB int64 // raw bytes uploaded, all builds

	s              cuda.Stream
	built          cuda.Event
	summed         [2]cuda.Event
	maxReady       [2]cuda.Event
	hostMax        [2]*cuda.HostBuffer // the ring's largest values after preparation q's builds, slot q % 2
	chanRing       [2][]int            // per table slot: the ring bases its channel's taps read, in tap order
	chanQ          [2]int              // per table slot: the preparation that made it
	raw, basis     cuda.DevicePtr      // one beam channel's raw planes; a beam's basis vectors
	plane0, zero   cuda.DevicePtr      // per distinct beam: its compact plane indices; one int32 0
	scratch, maxes cuda.DevicePtr      // one build's scratch; per ring base its largest value
	plane0At       []int               // per distinct beam: its first entry in plane0
	// bufBytes is the device memory of the buffers above.
	bufBytes int64
}

// windowPlan sizes the window of p's distinct beams; it returns the bases'
// complex values and the largest raw upload and scratch of one build.
func (p *beamPrep) windowPlan() (w *baseWindow, values, rawMax, scratchMax int64) {
	w = &baseWindow{}
	for u, src := range p.srcs {
		most := 1
		for fi := range p.taps {
			most = max(most, len(p.taps[fi][u].j))
		}
		// A global kind (scipy's quadratic and cubic splines weigh every
		// beam channel) needs them all: the window then holds every used
		// one, built as first needed.
		n := min(2*most, max(len(p.used[u]), 1))
		w.start = append(w.start, len(w.holds))
		w.length = append(w.length, n)
		size := tableValues(src.Grid.NZa*src.Grid.NAz, p.nc)
		for range n {
			w.holds = append(w.holds, -1)
			w.lastQ = append(w.lastQ, math.MinInt/2)
			w.offset = append(w.offset, values)
			values += size
		}
		rawMax = max(rawMax, channelRawBytes(src)+int64(len(src.Basis))*8)
		scratchMax = max(scratchMax, p.scratchBytes(u))
	}
	return w, values, rawMax, scratchMax
}

// channelRawBytes is the size of one beam channel's raw planes (every
// basis-vector axis and feed).
func channelRawBytes(src *beam.Source) int64 {
	per := int64(src.RawNZa) * int64(src.RawNAz) * int64(src.NVec*src.NComp)
	if src.Complex {
		per *= 2
	}
	if src.Raw32 != nil {
		return per * 4
	}
	return per * 8
}

// startWindow makes the window's stream, events and buffers (the bases
// themselves are p.bases, allocated by uploadTables).
func (p *beamPrep) startWindow() (err error) {
	w := p.win
	if w.s, err = p.c.NewStream(); err != nil {
		return fmt.Errorf("gpu: beam build stream: %w", err)
	}
	for _, e := range []*cuda.Event{&w.built, &w.summed[0], &w.summed[1], &w.maxReady[0], &w.maxReady[1]} {
		if *e, err = p.c.NewEvent(); err != nil {
			return fmt.Errorf("gpu: beam build events: %w", err)
		}
	}
	for i := range w.hostMax {
		if w.hostMax[i], err = p.c.AllocHost(int64(len(w.holds)) * 8); err != nil {
			return fmt.Errorf("gpu: beam build: %w", err)
		}
	}
	var rawMax, scratchMax int64
	var p0 []int32
	for u, src := range p.srcs {
		rawMax = max(rawMax, channelRawBytes(src))
		scratchMax = max(scratchMax, p.scratchBytes(u))
		w.plane0At = append(w.plane0At, len(p0))
		for _, pl := range src.Planes {
			p0 = append(p0, int32(pl.Vec*src.NComp+pl.Comp)) // one beam channel: nfreq 1
		}
	}
	var basisMax int64
	for _, src := range p.srcs {
		basisMax = max(basisMax, int64(len(src.Basis))*8)
	}
	for _, b := range []struct {
		dst *cuda.DevicePtr
		n   int64
	}{{&w.raw, rawMax}, {&w.scratch, scratchMax}, {&w.maxes, int64(len(w.holds)) * 8}, {&w.basis, basisMax}} {
		if *b.dst, err = p.alloc(termBeamSlots, b.n); err != nil {
			return err
		}
		w.bufBytes += max(b.n, 8)
	}
	w.bufBytes += max(int64(len(p0))*4, 8) + 8
	if w.plane0, err = uploadNew(p, termBeamSlots, p0); err != nil {
		return err
	}
	w.zero, err = uploadNew(p, termBeamSlots, []int32{0})
	return err
}

// prepare builds the beam channels channel fi's taps read that the window
// lacks, writes the taps' base offsets for fi and makes the preparation
// stream wait for the builds; called by queue before the weighted sum.
func (p *beamPrep) prepareWindow(fi int) error {
	w := p.win
	q := w.queued
	w.queued++
	sl := fi % 2
	if q >= 2 {
		// Bases last read by preparation q − 2 may be rebuilt once its
		// weighted sum has run.
		if err := p.c.WaitEvent(w.s, w.summed[q%2]); err != nil {
			return fmt.Errorf("gpu: beam build: %w", err)
		}
	}
	var offs []int64
	w.chanRing[sl] = w.chanRing[sl][:0]
	for u := range p.srcs {
		need := p.taps[fi][u].j
		for _, j := range need {
			k, err := p.windowBase(u, j, need, q)
			if err != nil {
				return err
			}
			w.lastQ[k] = q
			offs = append(offs, w.offset[k])
			w.chanRing[sl] = append(w.chanRing[sl], k)
		}
	}
	if len(offs) > 0 {
		// From pageable memory the driver copies offs before returning.
		if err := p.c.CopyHtoD(p.dToff.Offset(int64(p.tapStart[fi*(len(p.srcs)+1)])*8), unsafe.Pointer(&offs[0]), int64(len(offs))*8, w.s); err != nil {
			return fmt.Errorf("gpu: channel %d's tap offsets: %w", fi, err)
		}
	}
	if err := p.c.CopyDtoH(w.hostMax[q%2].Ptr(), w.maxes, int64(len(w.holds))*8, w.s); err != nil {
		return fmt.Errorf("gpu: beam build: %w", err)
	}
	w.chanQ[sl] = q
	for _, e := range []cuda.Event{w.maxReady[q%2], w.built} {
		if err := p.c.Record(e, w.s); err != nil {
			return fmt.Errorf("gpu: beam build: %w", err)
		}
	}
	if err := p.c.WaitEvent(p.s, w.built); err != nil {
		return fmt.Errorf("gpu: beam build: %w", err)
	}
	return nil
}

// windowBase is the ring base of distinct beam u holding beam channel j,
// built now (on the build stream) into a base that none of need holds
// and no preparation after q − 2 read, if no base holds it.
func (p *beamPrep) windowBase(u, j int, need []int, q int) (int, error) {
	w := p.win
	lo, hi := w.start[u], w.start[u]+w.length[u]
	for k := lo; k < hi; k++ {
		if w.holds[k] == j {
			return k, nil
		}
	}
	victim := -1
	for k := lo; k < hi; k++ {
		if w.lastQ[k] > q-2 || contains(need, w.holds[k]) {
			continue
		}
		if victim < 0 || w.lastQ[k] < w.lastQ[victim] {
			victim = k
		}
	}
	if victim < 0 {
		return 0, fmt.Errorf("gpu: beam build: no free base in beam %d's window of %d for beam channel %d", u, w.length[u], j)
	}
	w.holds[victim] = -1
	if err := p.buildWindowBase(u, j, victim); err != nil {
		return 0, err
	}
	w.holds[victim] = j
	return victim, nil
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// buildWindowBase uploads beam channel j's raw planes (and the basis
// vectors) of distinct beam u and prepares them into ring base k, on the
// build stream.
func (p *beamPrep) buildWindowBase(u, j, k int) error {
	w := p.win
	src := p.srcs[u]
	per := int64(src.RawNZa) * int64(src.RawNAz)
	if src.Complex {
		per *= 2
	}
	esize, f32 := int64(8), int32(0)
	if src.Raw32 != nil {
		esize, f32 = 4, 1
	}
	for vec := range src.NVec {
		for comp := range src.NComp {
			at := int64(src.PlaneStart(vec, comp, j)) // complex samples
			if src.Complex {
				at *= 2
			}
			var ptr unsafe.Pointer
			if f32 == 1 {
				ptr = unsafe.Pointer(&src.Raw32[at])
			} else {
				ptr = unsafe.Pointer(&src.Raw64[at])
			}
			dst := w.raw.Offset(int64(vec*src.NComp+comp) * per * esize)
			if err := p.c.CopyHtoD(dst, ptr, per*esize, w.s); err != nil {
				return fmt.Errorf("gpu: beam %d, beam channel %d: upload raw planes: %w", u, j, err)
			}
			w.uploadB += per * esize
		}
	}
	basis := cuda.DevicePtr(0)
	if src.Basis != nil {
		basis = w.basis
		if err := p.c.CopyHtoD(basis, unsafe.Pointer(&src.Basis[0]), int64(len(src.Basis))*8, w.s); err != nil {
			return fmt.Errorf("gpu: beam %d: upload basis vectors: %w", u, err)
		}
	}
	if err := p.c.Memset8(w.maxes.Offset(int64(k)*8), 0, 8, w.s); err != nil {
		return fmt.Errorf("gpu: beam build: %w", err)
	}
	w.builds++
	return p.buildBatch(u, buildArgs{raw: w.raw, f32: f32, basis: basis, plane0: w.plane0.Offset(int64(w.plane0At[u]) * 4),
		nfreq: 1, chans: w.zero, js: []int{j}, scratch: w.scratch, off: w.offset[k], maxBits: w.maxes.Offset(int64(k) * 8), s: w.s})
}

// windowSummed records, on the preparation stream after channel fi's
// weighted sum, that the bases its preparation read may be rebuilt.
func (p *beamPrep) windowSummed(fi int) error {
	w := p.win
	if err := p.c.Record(w.summed[w.chanQ[fi%2]%2], p.s); err != nil {
		return fmt.Errorf("gpu: beam build: %w", err)
	}
	return nil
}

// windowBound is channel fi's bound on its tables' largest value, from
// its bases' largest values once their builds ran (the host waits for the
// build stream only, which never waits for the run's).
func (p *beamPrep) windowBound(fi int) (float64, error) {
	w := p.win
	sl := fi % 2
	q := w.chanQ[sl]
	if err := p.c.SyncEvent(w.maxReady[q%2]); err != nil {
		return 0, fmt.Errorf("gpu: beam build: %w", err)
	}
	bits := cuda.HostSlice[uint64](w.hostMax[q%2])
	var bound float64
	t := 0
	for u := range p.srcs {
		var s float64
		for i, wt := range p.taps[fi][u].w {
			s += math.Abs(wt) * math.Float64frombits(bits[w.chanRing[sl][t+i]])
		}
		t += len(p.taps[fi][u].w)
		bound = max(bound, s)
	}
	return bound, nil
}

// closeWindow releases the window's stream, events and pinned buffers.
func (p *beamPrep) closeWindow() {
	w := p.win
	if w == nil {
		return
	}
	if w.s != 0 {
		_ = p.c.SyncStream(w.s)
		_ = p.c.DestroyStream(w.s)
	}
	for _, e := range []cuda.Event{w.built, w.summed[0], w.summed[1], w.maxReady[0], w.maxReady[1]} {
		if e != 0 {
			_ = p.c.DestroyEvent(e)
		}
	}
	for _, h := range w.hostMax {
		_ = p.c.FreeHost(h)
	}
}

// windowSummary says how the window holds the run's bases, for
// Stats.ChannelPrep: its bases against the used beam channels' and the
// builds so far.
func (p *beamPrep) windowSummary() string {
	used := 0
	for u := range p.srcs {
		used += len(p.used[u])
	}
	return fmt.Sprintf("a window of %d bases (%.3f GB) for %d used beam channels of %d distinct beams (%.3f GB if all were held), each built on its own stream before the channel that needs it",
		len(p.win.holds), float64(p.winValues*2*int64(p.rsize))/1e9, used, len(p.srcs), float64(p.allBaseValues()*2*int64(p.rsize))/1e9)
}
