// Channel preparation on the device (matvis/gpu/beamprep.cu): the gridded
// beams' tables of each channel made on the GPU, on a stream of their own,
// while the previous channel integrates; the host prepares nothing per
// channel.

package gpu

import (
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/kernels"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// Device-memory terms of the device's channel preparation.
const (
	termBeamBases   = "gpu_beam_bases"   // every used beam channel, prepared once
	termBeamSlots   = "gpu_beam_slots"   // the second channel's tables (double buffering), the taps, every channel's descriptors
	termBeamStacked = "gpu_beam_stacked" // both slots of gram_fused's stacked layout
)

// threadsPrep is the block of the preparation kernels.
const threadsPrep = 256

// errHostPrep says why a run prepares its channels on the host.
var errHostPrep = errors.New("host preparation")

// beamPrep prepares each channel's beam tables on the device. At set-up
// it prepares every beam channel the run uses once ("bases": raw planes
// or power, azimuth extension, prefilter — beam.Source's steps before the
// frequency step) per distinct beam object; a channel is then one
// weighted sum of bases per beam (the frequency step: beam.FreqWeights),
// written into one of two table slots on the preparation stream. Slot
// fi % 2 holds channel fi: made once the run's stream has finished the
// chunks of channel fi − 2 (event free), and waited for by the run's
// stream (event ready) before the chunks of channel fi. It owns its
// buffers, stream and events; close releases them.
type beamPrep struct {
	c   *cuda.Context
	mem *devMem // the run's accounting, in which its buffers are tracked
	s   cuda.Stream
	mod *cuda.Module
	fn  struct{ planes, prefilter, pack, combine cuda.Function }
	prepLayout
	prepBeams
	prepBuffers
	prepSlots
	// win, when set, streams the bases (beamwindow.go): every used beam
	// channel did not fit, or tests asked for it; winValues is its
	// bases' complex values.
	win       *baseWindow
	winValues int64
}

// prepLayout is the shape of what beamPrep makes: channels, beams,
// components, the real type's size, the run's mode and the table layouts
// kept.
type prepLayout struct {
	nfreq, nbeam, nc, rsize int
	mode                    beam.Mode // the run's (az_za_simple bases are made on the host for it)
	// perBeam and stacked: the layouts kept up to date (beam_tau_z's,
	// gram_fused's stacked); nbp is the stacked layout's beam slots.
	perBeam, stacked bool
	nbp              int
	ncoef, ncoefS    int64 // complex values of one slot of each layout
}

// prepBeams are the distinct gridded beams, the beam channels the run
// uses and each channel's taps.
type prepBeams struct {
	uniq     []int           // distinct beam of each beam (-1: analytic)
	srcs     []*beam.Source  // per distinct beam
	objs     []*beam.Gridded // per distinct beam
	used     [][]int         // per distinct beam: its beam channels the run uses
	baseAt   []map[int]int64 // per distinct beam: beam channel → base offset (complex values)
	maxAbs   []map[int]float64
	taps     [][]tapSet // per channel, per distinct beam
	bound    []float64  // per channel: a bound on the tables' largest |re| or |im|
	tapStart []int32    // per channel: (nu+1) tap indices
	hostDesc []beamDesc // every channel's, channel-major
	geomN    int
}

// prepBuffers are beamPrep's device buffers (bufs: every one it made).
type prepBuffers struct {
	bufs                        []cuda.DevicePtr
	bases, descAll, geom        cuda.DevicePtr
	dUniq, dNVals, dTap0, dToff cuda.DevicePtr
	dTw, dRound, dOoff, dOoffS  cuda.DevicePtr
}

// prepSlots are the two table slots of each layout, their events and what
// each holds, and the preparation's times.
type prepSlots struct {
	slot, slotS         [2]cuda.DevicePtr
	ready, free, t0, t1 [2]cuda.Event
	queued              [2]int // channel made (or being made) in each slot, -1 none
	timed               [2]bool
	prepGPU             time.Duration
	preps               int
	basesBuilt          time.Duration
}

// tapSet is one distinct beam's taps at one channel: base offsets and
// weights.
type tapSet struct {
	j   []int // beam channels
	off []int64
	w   []float64
}

// newBeamPrep sets up the device's channel preparation of run r, or
// returns an error wrapping errHostPrep saying why the run prepares its
// channels on the host (a beam that is not a *beam.Gridded, bases that do
// not fit the device's free memory).
func newBeamPrep(r *run, t *beamTables) (*beamPrep, error) {
	sim := r.sim
	p := &beamPrep{c: r.c, mem: &r.devMem,
		prepLayout: prepLayout{nfreq: sim.NFreq(), nbeam: len(sim.Beams), nc: sim.Mode.Components(), rsize: int(r.rsize), mode: sim.Mode},
		prepBeams:  prepBeams{uniq: make([]int, len(sim.Beams))}, prepSlots: prepSlots{queued: [2]int{-1, -1}}}
	if p.nbeam > 65535 {
		return nil, fmt.Errorf("%w: %d beams exceed a launch's grid", errHostPrep, p.nbeam)
	}
	if err := p.distinct(sim); err != nil {
		return nil, err
	}
	if err := p.plan(sim); err != nil {
		return nil, err
	}
	p.perBeam, p.ncoef = true, t.ncoef
	if r.stacked {
		p.stacked, p.nbp = true, r.fgNBP
		p.ncoefS = int64(r.geomNodes(t)) * int64(p.nbp) * 4
	}
	if err := p.checkFit(r); err != nil {
		return nil, err
	}
	return p, nil
}

// distinct finds the distinct gridded beam objects (analytic beams have
// none) and their sources.
func (p *beamPrep) distinct(sim *matvis.Simulation) error {
	index := map[*beam.Gridded]int{}
	for b, bm := range sim.Beams {
		p.uniq[b] = -1
		if _, _, analytic, _ := analyticKind(bm, sim.Freqs[0]); analytic {
			continue
		}
		g, ok := bm.(*beam.Gridded)
		if !ok {
			return fmt.Errorf("%w: beam %d (%T) is not a *beam.Gridded", errHostPrep, b, bm)
		}
		u, ok := index[g]
		if !ok {
			src, err := g.Source(sim.Mode)
			if err != nil {
				return fmt.Errorf("gpu: beam %d (%v): %w", b, bm, err)
			}
			if len(src.Planes) != p.nc && !(src.PowerFromE && p.nc == 1) {
				return fmt.Errorf("gpu: beam %d (%v): %d planes, want %d", b, bm, len(src.Planes), p.nc)
			}
			u = len(p.srcs)
			index[g] = u
			p.srcs, p.objs = append(p.srcs, src), append(p.objs, g)
		}
		p.uniq[b] = u
	}
	return nil
}

// plan takes every channel's frequency weights of every distinct beam,
// the beam channels the run uses and where each one's base lies.
func (p *beamPrep) plan(sim *matvis.Simulation) error {
	nu := len(p.srcs)
	weights := make([][][]float64, p.nfreq)
	p.used = make([][]int, nu)
	p.baseAt = make([]map[int]int64, nu)
	for fi, f := range sim.Freqs {
		weights[fi] = make([][]float64, nu)
		for u, g := range p.objs {
			w, err := g.FreqWeights(f)
			if err != nil {
				return fmt.Errorf("gpu: channel %d: %w", fi, err)
			}
			weights[fi][u] = w
		}
	}
	var off int64
	for u, src := range p.srcs {
		p.baseAt[u] = map[int]int64{}
		for j := range src.FreqsHz {
			for fi := range weights {
				if weights[fi][u][j] != 0 {
					p.used[u] = append(p.used[u], j)
					p.baseAt[u][j] = off
					off += tableValues(src.Grid.NZa*src.Grid.NAz, p.nc)
					break
				}
			}
		}
	}
	p.taps = make([][]tapSet, p.nfreq)
	for fi := range weights {
		p.taps[fi] = make([]tapSet, nu)
		for u, w := range weights[fi] {
			for j, wj := range w {
				if wj != 0 {
					p.taps[fi][u].j = append(p.taps[fi][u].j, j)
					p.taps[fi][u].off = append(p.taps[fi][u].off, p.baseAt[u][j])
					p.taps[fi][u].w = append(p.taps[fi][u].w, wj)
				}
			}
		}
	}
	return nil
}

// baseValues is the complex values of the bases: every used beam
// channel's, or the window's when they are streamed.
func (p *beamPrep) baseValues() int64 {
	if p.win != nil {
		return p.winValues
	}
	return p.allBaseValues()
}

// allBaseValues is the complex values of every used beam channel's base.
func (p *beamPrep) allBaseValues() int64 {
	var n int64
	for u, src := range p.srcs {
		n += int64(len(p.used[u])) * tableValues(src.Grid.NZa*src.Grid.NAz, p.nc)
	}
	return n
}

// scratchBytes is the largest scratch one distinct beam's preparation
// uses per beam channel: its double planes.
func (p *beamPrep) scratchBytes(u int) int64 {
	src := p.srcs[u]
	parts := int64(len(src.Planes))
	if src.OutComplex {
		parts *= 2
	}
	return parts * int64(src.Grid.NZa) * int64(src.Grid.NAz) * 8
}

// checkFit refuses (errHostPrep) bases, slots and the build's scratch that
// would leave less than a quarter of the device's free memory, which the
// rest of the run's buffers (made later: Z or the fused partials) need.
func (p *beamPrep) checkFit(r *run) error {
	free, _, err := p.c.MemInfo()
	if err != nil {
		return fmt.Errorf("gpu: free device memory: %w", err)
	}
	avail := free - r.laterBytes() - free/4
	need := p.allBaseValues()*2*int64(p.rsize) + p.slotBytes()*2 + p.rawBytesMax()
	if need <= avail && !r.tune.streamBases {
		return nil
	}
	w, values, rawMax, scratchMax := p.windowPlan()
	needW := values*2*int64(p.rsize) + p.slotBytes()*2 + rawMax + scratchMax
	if needW > avail {
		return fmt.Errorf("%w: the bases of every used beam channel need %.3f GB and a window of them %.3f GB of the device's %.3f GB free",
			errHostPrep, float64(need)/1e9, float64(needW)/1e9, float64(free)/1e9)
	}
	p.win, p.winValues = w, values
	return nil
}

// rawBytesMax is the largest device copy of one distinct beam's raw grid
// and scratch during the build.
func (p *beamPrep) rawBytesMax() int64 {
	var m int64
	for u, src := range p.srcs {
		raw := int64(len(src.Raw32))*4 + int64(len(src.Raw64))*8 + int64(len(src.Basis))*8
		m = max(m, raw+p.scratchBytes(u)*int64(min(len(p.used[u]), p.batch(u))))
	}
	return m
}

// batch is how many beam channels of distinct beam u one build launch
// prepares: their scratch within 512 MB.
func (p *beamPrep) batch(u int) int {
	return int(max(1, min(int64(max(1, len(p.used[u]))), (512<<20)/max(1, p.scratchBytes(u)))))
}

// slotBytes is one slot of the layouts kept.
func (p *beamPrep) slotBytes() int64 {
	var n int64
	if p.perBeam {
		n += p.ncoef * 2 * int64(p.rsize)
	}
	if p.stacked {
		n += p.ncoefS * 8
	}
	return n
}

// laterBytes is what the run allocates after the channel preparation: Z
// or, on the fused path, its partials (and footprints).
func (r *run) laterBytes() int64 {
	if !r.fusedCand {
		return 0 // Z is already allocated
	}
	return max(r.zBytes(), r.partBytes()+int64(r.bufSrc)*fusedFootBytes)
}

// start loads the kernels (the backend keeps the module), makes the stream, events and buffers,
// prepares the bases and queues channels 0 and 1. desc is the run's
// per-beam layout (descriptors of channel 0, geometries, ncoef).
func (p *beamPrep) start(r *run, t *beamTables) (err error) {
	t0 := time.Now()
	if err = p.compile(r); err != nil {
		return err
	}
	if p.s, err = p.c.NewStream(); err != nil {
		return fmt.Errorf("gpu: channel preparation stream: %w", err)
	}
	for i := range 2 {
		for _, e := range []*cuda.Event{&p.ready[i], &p.free[i], &p.t0[i], &p.t1[i]} {
			if *e, err = p.c.NewEvent(); err != nil {
				return fmt.Errorf("gpu: channel preparation events: %w", err)
			}
		}
	}
	if err = p.uploadTables(r, t); err != nil {
		return err
	}
	if p.win != nil {
		err = p.startWindow()
	} else {
		err = p.buildBases()
	}
	if err != nil {
		return err
	}
	for fi := 0; fi < min(2, p.nfreq); fi++ {
		if err = p.queue(fi, false); err != nil {
			return err
		}
	}
	p.basesBuilt = time.Since(t0)
	return nil
}

// geomNodes is the nodes of the one grid geometry of the stacked path.
func (r *run) geomNodes(t *beamTables) int {
	return t.geom[0].nodes()
}

// prepModule is beamprep.cu compiled for the run's real type (kept by the
// backend).
func (r *run) prepModule() (*cuda.Module, error) {
	code, headers, err := kernels.Program(kernelFiles, "beamprep.cu")
	if err != nil {
		return nil, fmt.Errorf("gpu: %w", err)
	}
	rt := "double"
	if r.p1 {
		rt = "float"
	}
	m, err := r.keep.module(cuda.Source{Name: "beamprep.cu", Code: code, Headers: headers}, "-DR_T="+rt)
	if err != nil {
		return nil, fmt.Errorf("gpu: %w", err)
	}
	return m, nil
}

// compile looks up beamprep.cu's kernels.
func (p *beamPrep) compile(r *run) (err error) {
	if p.mod, err = r.prepModule(); err != nil {
		return err
	}
	for _, f := range []struct {
		dst  *cuda.Function
		name string
	}{{&p.fn.planes, "bp_planes"}, {&p.fn.prefilter, "bp_prefilter"}, {&p.fn.pack, "bp_pack"}, {&p.fn.combine, "bp_combine"}} {
		if *f.dst, err = p.mod.Function(f.name); err != nil {
			return fmt.Errorf("gpu: %w", err)
		}
	}
	return nil
}

// alloc allocates a buffer of p's, tracked in the run's accounting.
func (p *beamPrep) alloc(term string, n int64) (cuda.DevicePtr, error) {
	n = max(n, 8)
	d := p.mem.pool.deviceBuffer(n)
	if d == 0 {
		var err error
		if d, err = p.c.Alloc(n); err != nil {
			return 0, fmt.Errorf("gpu: %s: %w", term, err)
		}
	}
	p.bufs = append(p.bufs, d)
	p.mem.track(d, term, n)
	return d, nil
}

// free frees one of p's buffers.
func (p *beamPrep) freeBuf(d *cuda.DevicePtr) {
	for i, b := range p.bufs {
		if b == *d && b != 0 {
			p.bufs = append(p.bufs[:i:i], p.bufs[i+1:]...)
			p.mem.freeDev(d)
			return
		}
	}
}

// upload allocates a buffer for v and copies v into it (set-up only: it
// waits).
func uploadNew[T any](p *beamPrep, term string, v []T) (cuda.DevicePtr, error) {
	var zero T
	d, err := p.alloc(term, int64(len(v))*int64(unsafe.Sizeof(zero)))
	if err != nil {
		return 0, err
	}
	if err := cuda.Upload(p.c, d, v, p.s); err != nil {
		return 0, fmt.Errorf("gpu: channel preparation: upload %s: %w", term, err)
	}
	return d, nil
}

// uploadTables uploads every channel's descriptors, the geometries, the
// taps and the output offsets, and allocates the bases and slots.
func (p *beamPrep) uploadTables(r *run, t *beamTables) (err error) {
	sim := r.sim
	all := make([]beamDesc, 0, p.nfreq*p.nbeam)
	for fi := range p.nfreq {
		d, err := channelDesc(sim, fi, t.desc)
		if err != nil {
			return err
		}
		all = append(all, d...)
	}
	p.hostDesc = all
	if p.descAll, err = uploadNew(p, termBeamTables, all); err != nil {
		return err
	}
	if len(t.geom) > 0 {
		if p.geom, err = uploadNew(p, termBeamTables, t.geom); err != nil {
			return err
		}
	}
	nu := len(p.srcs)
	uniq := make([]int32, p.nbeam)
	ooff := make([]int64, p.nbeam)
	ooffS := make([]int64, p.nbeam)
	for b, u := range p.uniq {
		uniq[b] = int32(u) // -1: analytic, no table
		ooff[b] = t.desc[b].Off
		ooffS[b] = int64(b) * 4
	}
	nvals := make([]int64, max(nu, 1))
	round := make([]int32, max(nu, 1))
	for u, src := range p.srcs {
		nvals[u] = int64(src.Grid.NZa) * int64(src.Grid.NAz) * int64(p.nc)
		if src.Raw32 != nil && !r.p1 {
			round[u] = 1
		}
	}
	var toff []int64
	var tw []float64
	p.tapStart = make([]int32, 0, p.nfreq*(nu+1))
	p.bound = make([]float64, p.nfreq)
	for fi := range p.nfreq {
		for u := range nu {
			p.tapStart = append(p.tapStart, int32(len(toff)))
			toff = append(toff, p.taps[fi][u].off...)
			tw = append(tw, p.taps[fi][u].w...)
		}
		p.tapStart = append(p.tapStart, int32(len(toff)))
	}
	toff, tw = append(toff, 0), append(tw, 0) // never empty
	for _, up := range []struct {
		dst *cuda.DevicePtr
		f   func() (cuda.DevicePtr, error)
	}{
		{&p.dUniq, func() (cuda.DevicePtr, error) { return uploadNew(p, termBeamSlots, uniq) }},
		{&p.dOoff, func() (cuda.DevicePtr, error) { return uploadNew(p, termBeamSlots, ooff) }},
		{&p.dOoffS, func() (cuda.DevicePtr, error) { return uploadNew(p, termBeamSlots, ooffS) }},
		{&p.dNVals, func() (cuda.DevicePtr, error) { return uploadNew(p, termBeamSlots, nvals) }},
		{&p.dRound, func() (cuda.DevicePtr, error) { return uploadNew(p, termBeamSlots, round) }},
		{&p.dTap0, func() (cuda.DevicePtr, error) { return uploadNew(p, termBeamSlots, p.tapStart) }},
		{&p.dToff, func() (cuda.DevicePtr, error) { return uploadNew(p, termBeamSlots, toff) }},
		{&p.dTw, func() (cuda.DevicePtr, error) { return uploadNew(p, termBeamSlots, tw) }},
	} {
		if *up.dst, err = up.f(); err != nil {
			return err
		}
	}
	if p.bases, err = p.alloc(termBeamBases, p.baseValues()*2*int64(p.rsize)); err != nil {
		return err
	}
	return p.allocSlots()
}

// allocSlots allocates the two slots of each layout kept: the per-beam
// layout's first counts as the beam tables (matvis.TermBeamGrid), its
// second as the double buffering; the stacked layout's as their own term.
// Stacked slots start zeroed: their padding beams are never written.
func (p *beamPrep) allocSlots() (err error) {
	for i := range 2 {
		term := matvis.TermBeamGrid
		if i == 1 {
			term = termBeamSlots
		}
		if p.perBeam && p.ncoef > 0 {
			if p.slot[i], err = p.alloc(term, p.ncoef*2*int64(p.rsize)); err != nil {
				return err
			}
		}
		if p.stacked {
			if p.slotS[i], err = p.alloc(termBeamStacked, p.ncoefS*8); err != nil {
				return err
			}
			if err = p.c.Memset8(p.slotS[i], 0, p.ncoefS*8, p.s); err != nil {
				return fmt.Errorf("gpu: zero the stacked beam slots: %w", err)
			}
		}
	}
	return nil
}

// channelDesc is the beam descriptors of channel fi: the gridded beams'
// words of desc (the same at every channel) and the analytic beams'
// kinds and parameters at the channel's frequency.
func channelDesc(sim *matvis.Simulation, fi int, desc []beamDesc) ([]beamDesc, error) {
	d := append([]beamDesc(nil), desc...)
	for b, bm := range sim.Beams {
		kind, par, ok, err := analyticKind(bm, sim.Freqs[fi])
		if err != nil {
			return nil, fmt.Errorf("gpu: beam %d at channel %d: %w", b, fi, err)
		}
		if ok {
			d[b] = analyticDesc(kind, par)
		}
	}
	return d, nil
}

// queue makes channel fi's tables in slot fi % 2 on the preparation
// stream, after the run's stream has finished with the slot's previous
// channel (reused: the free event recorded by release).
func (p *beamPrep) queue(fi int, reused bool) error {
	sl := fi % 2
	p.collect(sl)
	if p.win != nil {
		if err := p.prepareWindow(fi); err != nil {
			return err
		}
	}
	if reused {
		if err := p.c.WaitEvent(p.s, p.free[sl]); err != nil {
			return fmt.Errorf("gpu: channel preparation: %w", err)
		}
	}
	if err := p.c.Record(p.t0[sl], p.s); err != nil {
		return fmt.Errorf("gpu: channel preparation: %w", err)
	}
	nu := len(p.srcs)
	if nu > 0 {
		var maxVals int64
		for _, src := range p.srcs {
			maxVals = max(maxVals, int64(src.Grid.NZa)*int64(src.Grid.NAz)*int64(p.nc))
		}
		grid := cuda.Dim3{X: uint32((maxVals + threadsPrep - 1) / threadsPrep), Y: uint32(p.nbeam), Z: 1}
		tap0 := p.dTap0.Offset(int64(fi*(nu+1)) * 4)
		for _, l := range []struct {
			on         bool
			out, ooff  cuda.DevicePtr
			nstride, c int
		}{{p.perBeam && p.ncoef > 0, p.slot[sl], p.dOoff, p.nc, p.nc}, {p.stacked, p.slotS[sl], p.dOoffS, p.nbp * 4, 4}} {
			if !l.on {
				continue
			}
			if err := p.fn.combine.Launch(grid, dim1(threadsPrep), 0, p.s, p.bases, p.dUniq, p.dNVals, tap0, p.dToff, p.dTw,
				p.dRound, l.ooff, int64(l.nstride), int32(l.c), l.out); err != nil {
				return fmt.Errorf("gpu: %w", err)
			}
		}
	}
	if p.win != nil {
		if err := p.windowSummed(fi); err != nil {
			return err
		}
	}
	if err := p.c.Record(p.t1[sl], p.s); err != nil {
		return fmt.Errorf("gpu: channel preparation: %w", err)
	}
	if err := p.c.Record(p.ready[sl], p.s); err != nil {
		return fmt.Errorf("gpu: channel preparation: %w", err)
	}
	p.queued[sl], p.timed[sl] = fi, true
	return nil
}

// collect adds slot sl's last preparation time to the total (its events
// have completed by the time the slot is reused: the run waited for them).
func (p *beamPrep) collect(sl int) {
	if !p.timed[sl] {
		return
	}
	p.timed[sl] = false
	if err := p.c.SyncEvent(p.t1[sl]); err != nil {
		return
	}
	if ms, err := p.c.Elapsed(p.t0[sl], p.t1[sl]); err == nil {
		p.prepGPU += time.Duration(float64(ms) * float64(time.Millisecond))
		p.preps++
	}
}

// bind makes channel fi's tables the ones the run's stream reads next: it
// waits (on the device) for their preparation and points the run at
// them; descriptors are copied into the run's descriptor buffer on its
// stream.
func (p *beamPrep) bind(r *run, fi int) error {
	sl := fi % 2
	if p.queued[sl] != fi {
		if err := p.queue(fi, p.queued[sl] >= 0); err != nil {
			return err
		}
	}
	if err := p.c.WaitEvent(r.s, p.ready[sl]); err != nil {
		return fmt.Errorf("gpu: wait for channel %d's tables: %w", fi, err)
	}
	n := int64(p.nbeam) * int64(unsafe.Sizeof(beamDesc{}))
	if err := p.c.CopyDtoD(r.dDesc, p.descAll.Offset(int64(fi)*n), n, r.s); err != nil {
		return fmt.Errorf("gpu: channel %d's beam descriptors: %w", fi, err)
	}
	r.dGeom, r.dCoef, r.dCoefS = p.geom, p.slot[sl], p.slotS[sl]
	bound, err := p.channelBound(fi)
	if err != nil {
		return err
	}
	r.beamMax = bound
	return nil
}

// channelBound is a bound on channel fi's tables' largest |re| or |im|
// (the FP16 scale's), once its preparation is queued.
func (p *beamPrep) channelBound(fi int) (float64, error) {
	if p.win != nil {
		b, err := p.windowBound(fi)
		if err != nil {
			return 0, err
		}
		p.bound[fi] = b
	}
	return p.bound[fi], nil
}

// release is called once the run's stream has every chunk of channel fi
// queued: the slot is free for channel fi + 2 once they ran, whose
// preparation it queues.
func (p *beamPrep) release(r *run, fi int) error {
	sl := fi % 2
	if err := p.c.Record(p.free[sl], r.s); err != nil {
		return fmt.Errorf("gpu: channel preparation: %w", err)
	}
	if fi+2 < p.nfreq {
		return p.queue(fi+2, true)
	}
	return nil
}

// keep drops the layout the run's path does not read (chooseFused: the
// fused stacked path reads only the stacked slots, the others only the
// per-beam ones).
func (p *beamPrep) keep(perBeam, stacked bool) {
	_ = p.c.SyncStream(p.s)
	if !perBeam {
		for i := range p.slot {
			p.freeBuf(&p.slot[i])
		}
		p.perBeam = false
	}
	if !stacked {
		for i := range p.slotS {
			p.freeBuf(&p.slotS[i])
		}
		p.stacked = false
	}
}

// close waits for the preparation stream and releases everything p made.
func (p *beamPrep) close() {
	if p == nil {
		return
	}
	if p.s != 0 {
		_ = p.c.SyncStream(p.s)
		p.collect(0)
		p.collect(1)
	}
	p.closeWindow()
	// The run's buffers go to the backend's pool for its next run.
	for _, d := range p.bufs {
		if a, ok := p.mem.live[d]; ok && p.mem.pool != nil {
			p.mem.untrack(d)
			p.mem.pool.keepDevice(d, a.n)
		} else {
			_ = p.c.Free(d)
		}
	}
	p.bufs = nil
	for i := range 2 {
		for _, e := range []cuda.Event{p.ready[i], p.free[i], p.t0[i], p.t1[i]} {
			if e != 0 {
				_ = p.c.DestroyEvent(e)
			}
		}
	}
	if p.s != 0 {
		_ = p.c.DestroyStream(p.s)
	}
}

// setupBeamPrep chooses where the run prepares its channels: on the device
// when every non-analytic beam is a *beam.Gridded and the bases fit, else
// on the host (Stats.ChannelPrep says which, and why).
func (r *run) setupBeamPrep() error {
	t, err := r.deviceLayout()
	if err == nil {
		r.bp, err = newBeamPrep(r, t)
	}
	if err == nil {
		err = r.bp.start(r, t)
	}
	if errors.Is(err, errHostPrep) {
		r.bp.close()
		r.bp = nil
		r.res.Stats.ChannelPrep = "host: " + err.Error()
		return nil
	}
	if err != nil {
		return err
	}
	r.res.Stats.ChannelPrep = "device"
	if w := r.bp.win; w != nil {
		r.res.Stats.ChannelPrep = fmt.Sprintf("device, bases streamed: %s", r.bp.windowSummary())
	}
	r.res.Stats.BeamBases = r.bp.basesBuilt
	r.bp.modelTerms(&r.res.Plan)
	return nil
}

// modelTerms adds the device memory of the channel preparation to the
// run's memory plan, beside matvis's terms (whose beam_grid term is the
// first per-beam slot): the bases (a window of them when streamed), the
// second slot with the taps and descriptors (and a streamed window's
// build buffers), and the stacked slots. The build's transient raw grid and
// scratch (one distinct beam at a time, at most 512 MB) are not in it.
func (p *beamPrep) modelTerms(plan *matvis.MemoryPlan) {
	small := int64(p.nfreq*p.nbeam)*int64(unsafe.Sizeof(beamDesc{})) + int64(len(p.tapStart))*4 + int64(p.nbeam)*(4+8+8) + int64(len(p.srcs))*(8+4)
	for _, t := range p.taps {
		for _, ts := range t {
			small += int64(len(ts.off)) * (8 + 8)
		}
	}
	if p.win != nil {
		small += p.win.bufBytes // one build's raw planes, basis and scratch; the bases' largest values
	}
	terms := []matvis.MemoryTerm{{Name: termBeamBases, Bytes: p.baseValues() * 2 * int64(p.rsize)},
		{Name: termBeamSlots, Bytes: p.ncoef*2*int64(p.rsize) + small}}
	if p.stacked {
		terms = append(terms, matvis.MemoryTerm{Name: termBeamStacked, Bytes: 2 * p.ncoefS * 8})
	}
	for _, t := range terms {
		plan.Terms = append(plan.Terms, t)
		plan.Total += t.Bytes
	}
}

// deviceLayout is the beam tables' layout without their planes: every
// beam's descriptor at the first channel, the grid geometries and the
// packed planes' size, from the gridded beams' sources (an error wrapping
// errHostPrep for a gridded beam of another type). Made once per run (the
// fused path's eligibility and the channel preparation both read it);
// read-only.
func (r *run) deviceLayout() (*beamTables, error) {
	if !r.layoutMade {
		r.layout, r.layoutErr = r.makeLayout()
		r.layoutMade = true
	}
	return r.layout, r.layoutErr
}

// makeLayout is deviceLayout's one computation.
func (r *run) makeLayout() (*beamTables, error) {
	sim := r.sim
	t := &beamTables{desc: make([]beamDesc, len(sim.Beams))}
	grids := make([]*beam.PlaneGrid, len(sim.Beams))
	nplanes := make([]int, len(sim.Beams))
	for b, bm := range sim.Beams {
		if _, _, analytic, _ := analyticKind(bm, sim.Freqs[0]); analytic {
			continue
		}
		g, ok := bm.(*beam.Gridded)
		if !ok {
			return nil, fmt.Errorf("%w: beam %d (%T) is not a *beam.Gridded", errHostPrep, b, bm)
		}
		src, err := g.Source(sim.Mode)
		if err != nil {
			return nil, fmt.Errorf("gpu: beam %d (%v): %w", b, bm, err)
		}
		grids[b], nplanes[b] = &src.Grid, len(src.Planes)
	}
	if _, err := t.layout(sim, grids, nplanes, sim.Mode.Components()); err != nil {
		return nil, err
	}
	return t, nil
}
