package gpu

import (
	"context"
	"fmt"
	"time"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/cuda/gram"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/astro"
)

// run is one Backend.Run: the simulation, the device set-up it chose and
// the state of each part of the pipeline, each part its own embedded
// type with one job.
type run struct {
	ctx  context.Context
	c    *cuda.Context
	keep *resident // the backend's, kept between runs
	sim  *matvis.Simulation
	res  *matvis.Result // late's, its visibilities complete after late.Wait
	late *matvis.LateResult
	opt  Options
	tune tuning

	handles
	runShape
	inputs
	beamState
	coordState
	chunkState
	fusedState
	stokesState
	// bp prepares each channel's beam tables on the device (nil: on the
	// host, beams.go).
	bp *beamPrep
	// nu is the transform path's (nufft.go; nil: the run is not eligible
	// or does not use it, nufftWhy then saying why).
	nu       *nufftStage
	nufftWhy string
	// scaleFreq is the channel whose FP16 scale is set (-1: none).
	scaleFreq int
	timingState
	// devMem holds the run's device buffers and their accounting.
	devMem
}

// queue is what a stage queues its work with: the device context, the
// run's stream and vis.cu's kernels (the stage's buffers are its own).
type queue struct {
	c *cuda.Context
	s cuda.Stream
	k *visKernels
}

// queue is the run's.
func (r *run) queue() queue { return queue{r.c, r.s, r.k} }

// handles are the run's stream, cuBLAS, Gram product and strategy, and
// compiled kernels (the backend's, kept between runs: resident.go).
type handles struct {
	s    cuda.Stream
	blas *cuda.Blas
	g    *gram.Gram
	st   gram.Strategy
	mod  *cuda.Module
	k    *visKernels
}

// runShape are the run's sizes: precision (p1: float32), the real, Z and
// output element sizes, antennas, sources, feeds, the Gram product's
// rows M, pairs, beams, the source buffer and the chunks.
type runShape struct {
	p1                  bool
	rsize, zsize, osize int64
	nant, nsrc, nf, M   int
	npairs, nbeam       int
	bufSrc, nchunk      int
}

// inputs are the run's static inputs on the device and the current
// channel's fluxes.
type inputs struct {
	// flux is every source's Stokes-I flux at the channel being simulated.
	flux []float64
	// skyL is the largest coherency eigenvalue of the sky loaded for
	// channel fi at fi % 2 (skyLambda; its FP16 scale's part).
	skyL   [2]float64
	hFlux  [2]*cuda.HostBuffer // pinned: channels' fluxes, uploaded asynchronously
	fluxes fluxPrefetch        // the next channel's, evaluated on the host meanwhile
	// fluxTable holds every channel's fluxes on the device (0: one
	// channel at a time in dFlux), fluxTableMax each channel's largest.
	fluxTable    cuda.DevicePtr
	fluxTableMax []float64
	// law is the sky's Stokes-I power law when isLaw (settleKeptFlux).
	law                          skyPowerLaw
	isLaw                        bool
	dAnt, dBeamOf, dPairs, dFlux cuda.DevicePtr
	skyFreq                      int // frequency whose sky is loaded (-1: none)
}

// beamState are the beam tables on the device.
type beamState struct {
	beamsFreq int // frequency whose beam tables are on the device (-1: none)
	// beam tables of the current frequency (buildBeamTables)
	dDesc, dGeom, dCoef cuda.DevicePtr
	// dCoefS: the gridded beams restacked by node for gram_fused's stacked
	// path (run.stacked).
	dCoefS cuda.DevicePtr
	// layout is deviceLayout's, made once (layoutMade).
	layout     *beamTables
	layoutErr  error
	layoutMade bool
}

// coordState is the coordinate stage's (coords.go): the source vectors,
// the horizon compaction into two slots (one time's chunks run while the
// next time's coordinates are made) and the sky ordering.
type coordState struct {
	rot     astro.MatrixRotation // ENU = M(ti)·P with cached P
	bcrs    astro.BCRSRotation   // ECI vectors on the device, BCRS step there too
	lastVec *float64
	nblk    int

	dSrc                [3]cuda.DevicePtr
	dTotal              [2]cuda.DevicePtr
	dBlkCnt, dBlkOff    cuda.DevicePtr
	dCe, dCn, dCu, dAmp [2]cuda.DevicePtr
	enu                 enuUpload
	hCount              *cuda.HostBuffer
	// order sorts the visible sources by (zenith band, azimuth bin) for
	// the gridded beams' gathers (any gridded beam)
	order                                                    bool
	nblkSort                                                 int
	dTmpE, dTmpN, dTmpU, dTmpA, dSortCnt, dSortOff, dSortTot cuda.DevicePtr
	// dScanTmp is the scans' scratch (tile sums and their scan); lb the
	// look-back kernels' status words.
	dScanTmp cuda.DevicePtr
	lb       lookback
}

// enuUpload are the host's ENU vectors for the upload (without a matrix
// rotation): two slots, or with perTime one buffer holding every time's,
// each made once (made) — the host's astrometry is per time, and remaking
// it per channel cost 0.44 s of CPU an integration at 10⁶ sources.
type enuUpload struct {
	h       [2]*cuda.HostBuffer
	perTime bool
	made    []bool
	// resident: dSrc holds every time's vectors (time ti's at ti·nsrc),
	// each uploaded once (uploaded); the integrations run channel by
	// channel with the time changing at each, so one time's slot was
	// uploaded again at every integration: 24 MB at 10⁶ sources, a third
	// of an H100's time an integration (2026-12-07).
	resident bool
	uploaded []bool
	// onDevice is 1 + the time whose ENU vectors dSrc holds (0: none),
	// without resident: one time's many channels upload them once.
	onDevice int
}

// chunkState is the chunk stage's (chunks.go): Z, the accumulated Gram
// product and the extracted output.
type chunkState struct {
	dZ, dAcc, dOut cuda.DevicePtr
	dTCPart        cuda.DevicePtr // the tensor-core product's partial sums (lent to r.g)
	// The tensor-core product's tiles: computed (those holding output
	// pairs) of the triangle's total.
	tilesComputed, tilesTotal int
	hOut                      [2]*cuda.HostBuffer
}

// fusedState is the fused beam+τ+Z+Gram path's (fused.go).
type fusedState struct {
	// fusedCand: the run can use the fused beam+τ+Z+Gram kernel
	// (gram_fused, compiled with FG_MT = fgMT); fused: it does. fgBlocks is
	// gram_fused's grid (one partial triangle per block in dPart).
	fusedCand, fused bool
	// stacked: gram_fused reads the beams restacked by node (all beams
	// gridded on one geometry, polarized; fgNBP beams with padding);
	// fusedChosen: chooseFused has settled the path; layoutsSettled:
	// settleLayouts has kept the beam layout the path reads.
	stacked, fusedChosen, layoutsSettled bool
	fgNBP, fgTS                          int
	fgMT, fgBlocks                       int
	fgLast                               int     // grid of the last gram_fused launch
	zscale                               float64 // the FP16 scale at the current frequency (gram_fused, tensor-core product)
	beamMax                              float64 // the loaded beam tables' largest |re| or |im|
	dPart, dFoot                         cuda.DevicePtr
}

// timingState is the timing's (timing.go): the events of the two
// integration slots and what was read from them early.
type timingState struct {
	ev     [2]slotEvents
	events []cuda.Event
	coordT [2][2]time.Duration // per slot: upload, compaction
}

// newRun sets a run up: its stream, cuBLAS, the memory plan, the Gram
// strategy and path, the compiled kernels and the buffers. A failed
// set-up releases what it made.
func newRun(ctx context.Context, b *Backend, sim *matvis.Simulation) (r *run, err error) {
	start := time.Now()
	r = &run{ctx: ctx, c: b.c, keep: b.keep, sim: sim, opt: b.opts, tune: b.tune, devMem: newDevMem(b.c, b.keep), beamState: beamState{beamsFreq: -1},
		inputs: inputs{skyFreq: -1, fluxes: fluxPrefetch{fi: -1}}, scaleFreq: -1}
	// A failed set-up releases what it made: "return nil, err" has set r
	// to nil by the time this runs, so it closes its own copy.
	made := r
	defer func() {
		if err != nil {
			made.close()
		}
	}()
	if err = r.newResult(); err != nil {
		return nil, err
	}
	r.res.Stats.SetupSteps = append(r.res.Stats.SetupSteps, matvis.TimedStep{Name: "result", Time: time.Since(start)})
	for _, step := range []struct {
		name string
		do   func() error
	}{
		{"shape", r.shape}, {"nufft eligibility", r.nufftEligibility}, {"handles", r.openHandles}, {"kept flux table", r.settleKeptFlux}, {"memory plan", r.planMemory}, {"strategy", r.chooseStrategy},
		{"tiles", r.restrictTiles}, {"fused eligibility", r.fusedEligibility}, {"compile", r.compile},
		{"allocate", func() error { r.res.Stats.ZBytes = int(r.zsize); return r.allocate() }}, {"events", r.makeEvents}, {"stokes", r.setupStokes},
		{"flux table", r.setupFluxTable}, {"channel preparation", r.setupBeamPrep}, {"fused choice", r.chooseFused},
		{"nufft choice", r.chooseNUFFT}, {"beam layouts", r.settleLayouts},
	} {
		t := time.Now()
		if err = step.do(); err != nil {
			return nil, err
		}
		r.sampleFree() // a step's transient buffers count too
		r.res.Stats.SetupSteps = append(r.res.Stats.SetupSteps, matvis.TimedStep{Name: step.name, Time: time.Since(t)})
	}
	t := time.Now()
	r.keep.trimPinned() // kept buffers this run did not take
	r.keep.trimDevice()
	r.describeMatProd(&r.res.Stats.MatProdImpl)
	r.sampleFree()
	r.res.Stats.SetupSteps = append(r.res.Stats.SetupSteps, matvis.TimedStep{Name: "trim", Time: time.Since(t)})
	r.res.Stats.Setup = time.Since(start)
	return r, nil
}

// newResult checks that the host holds the result and the two pinned
// output slots, before any is made, and makes the result.
func (r *run) newResult() error {
	sim := r.sim
	slots := 2 * int64(len(sim.Pairs)) * int64(sim.NFeed()*sim.NFeed()) * int64(8*sim.Options.Precision)
	if err := sim.CheckHostMemory(matvis.MemoryTerm{Name: "gpu_host_output_slots", Bytes: slots}); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	r.late = matvis.NewLateResult(sim, sim.OutputBytes() >= r.tune.backgroundResult)
	r.res = r.late.Result()
	r.res.Stats.Backend = "gpu"
	r.res.Stats.BeamInTauZ = true
	return nil
}

// shape takes the run's sizes, its coordinate method, whether the sky is
// full-Stokes (two Z and Gram launches per chunk, stokes.go) and whether
// the visible sources are ordered for gridded beams' gathers; a beam that
// is neither analytic nor gridded is an error.
func (r *run) shape() error {
	sim := r.sim
	r.p1 = sim.Options.Precision == 1
	r.nant, r.nsrc, r.nf = sim.NAnt(), sim.NSrc(), sim.NFeed()
	r.M = r.nf * r.nant
	r.npairs = len(sim.Pairs)
	r.nbeam = len(sim.Beams)
	r.nblk = (r.nsrc + threadsCoords - 1) / threadsCoords
	r.nblkSort = (r.nsrc + sortItems - 1) / sortItems
	if rot, ok := sim.Coords.(astro.MatrixRotation); ok {
		r.rot = rot
	}
	if r.rot == nil && matvis.CacheAllENU(sim.NTime(), r.nsrc) {
		r.enu.perTime, r.enu.made = true, make([]bool, sim.NTime())
	}
	if br, ok := sim.Coords.(astro.BCRSRotation); ok {
		r.bcrs = br
	}
	r.polSky = sim.SkyPolarized()
	for i, bm := range sim.Beams {
		if _, _, analytic, _ := analyticKind(bm, sim.Freqs[0]); analytic {
			continue
		}
		if _, err := asGridBeam(i, bm); err != nil {
			return err
		}
		r.order = true
	}
	return nil
}

// openHandles takes the backend's stream, cuBLAS handle and Gram
// product (made by its first run).
func (r *run) openHandles() (err error) {
	r.s, r.blas, r.g, err = r.keep.handles()
	return err
}

// planMemory plans the chunks against Options.MaxMemory or, by default,
// the device's free memory, and sizes the source buffers.
func (r *run) planMemory() error {
	budget := r.sim.Options.MaxMemory
	if budget == 0 {
		free, _, err := r.c.MemInfo()
		if err != nil {
			return fmt.Errorf("gpu: free device memory for the plan: %w", err)
		}
		budget = free
	}
	plan := r.sim.PlanMemory(r.settleResidentENU(budget))
	r.res.Plan = plan
	r.nchunk = max(plan.NChunks, 1)
	r.bufSrc = plan.BufferSources
	if plan.SourcesPerChunk <= 1000 || r.bufSrc < 1 {
		r.bufSrc = plan.SourcesPerChunk
	}
	r.bufSrc = max(r.bufSrc, 1)
	return nil
}

// residentENUShare bounds the device memory that every time's ENU
// vectors may take when resident (enuUpload.resident): a part of the
// budget small enough that the plan's chunks keep their room.
const residentENUShare = 16

// settleResidentENU keeps every time's host-made ENU vectors on the device
// (enuUpload.resident) when the run makes them once per time (perTime)
// and the times beyond the one slot the memory model counts fit in a
// 1/residentENUShare part of budget, and returns the budget left for the
// plan.
func (r *run) settleResidentENU(budget int64) int64 {
	nt := int64(len(r.enu.made))
	extra := (nt - 1) * 3 * int64(r.nsrc) * 8
	r.enu.resident = r.enu.perTime && nt > 1 && extra <= budget/residentENUShare
	if !r.enu.resident {
		return budget
	}
	r.enu.uploaded = make([]bool, nt)
	return budget - extra
}

// close waits for the run's stream and releases everything it made
// (what it took from the backend's resident state stays there).
func (r *run) close() {
	if r.s != 0 {
		_ = r.c.SyncStream(r.s)
	}
	r.fluxes.wait() // it writes into a pinned buffer freed below
	for _, e := range r.events {
		_ = r.c.DestroyEvent(e)
	}
	if r.bp != nil {
		// The tables and geometries are the preparation's own.
		r.dGeom, r.dCoef, r.dCoefS = 0, 0, 0
		r.bp.close()
	}
	r.nu.close(r)
	r.freeBeamTables()
	r.freeAll()
	for _, h := range r.pinned() {
		r.keep.keepHost(h) // for the backend's next run
	}
	// The stream, cuBLAS, the Gram product and the modules are the
	// backend's (resident), kept for its next run.
	r.keep.endRun()
}

// run simulates every integration, channel by channel, as one pipeline:
// the coordinates of the next integration, in this channel or the next,
// are queued before the chunks of this one, and an integration's
// output is collected once the next one's chunks are queued, so that the
// device always has queued work, across channel changes too. With the
// device's channel preparation (beamPrep) the next channel's tables are
// made on their own stream meanwhile. On an error or cancellation it
// returns the result with the integrations finished so far.
func (r *run) run() (*matvis.Result, error) {
	t0 := time.Now()
	nt := r.sim.NTime()
	p := &pipeline{r: r, nt: nt, total: r.sim.NFreq() * nt, pending: -1, last: time.Now(), counts: cuda.HostSlice[int32](r.hCount)}
	err := p.runAll()
	if err != nil {
		_ = r.c.SyncStream(r.s)
	}
	r.endStats(t0)
	return r.late.Wait(), err
}

// pipeline is run's walk over the integrations (k = channel·ntimes +
// time): the integration whose output is queued but not yet collected,
// and the progress reported.
type pipeline struct {
	r                   *run
	nt, total, done     int
	pending, pendingVis int // queued integration (-1: none) and its visible sources
	last                time.Time
	counts              []int32 // the visible counts, per compaction slot
}

// runAll queues the first integration's coordinates, then steps through
// every integration and collects the last.
func (p *pipeline) runAll() error {
	if err := p.r.loadSky(0); err != nil {
		return err
	}
	if err := p.r.queueCoords(0, 0, 0); err != nil {
		return err
	}
	for k := range p.total {
		if err := p.step(k); err != nil {
			return err
		}
	}
	return p.collect()
}

// step waits for integration k's coordinates, queues the next
// integration's, then k's chunks, and collects the integration before
// k, whose chunks were queued one step earlier.
func (p *pipeline) step(k int) error {
	r := p.r
	fi, ti, sl := k/p.nt, k%p.nt, k%2
	if err := r.c.SyncEvent(r.ev[sl].c1); err != nil {
		return fmt.Errorf("gpu: coordinates at time %d: %w", ti, err)
	}
	nvis := int(p.counts[sl])
	// Read the coordinate stage times now: the slot's coordinate events
	// are recorded again two integrations on, before finish.
	r.coordT[sl] = [2]time.Duration{r.elapsed(r.ev[sl].c0, r.ev[sl].u), r.elapsed(r.ev[sl].u, r.ev[sl].c1)}
	if err := p.queueNext(k); err != nil {
		return err
	}
	if err := r.bindChannel(fi); err != nil {
		return err
	}
	if err := r.queueIntegration(fi, sl, nvis); err != nil {
		// Cancelled between launches: keep the integration queued
		// before this one.
		if r.ctx.Err() != nil {
			_ = p.collect()
		}
		return err
	}
	if ti+1 == p.nt {
		if err := r.channelQueued(fi); err != nil {
			return err
		}
	}
	if err := p.collect(); err != nil {
		return err
	}
	p.pending, p.pendingVis = k, nvis
	if err := r.ctx.Err(); err != nil {
		_ = p.collect()
		return err
	}
	return nil
}

// queueNext queues the coordinates of the integration after k, before
// k's chunks (so that its count is read while they run): at a channel's
// end, after loading the next channel's sky, whose upload is ordered
// after this channel's coordinates on the stream.
func (p *pipeline) queueNext(k int) error {
	if k+1 >= p.total {
		return nil
	}
	if (k+1)%p.nt == 0 {
		if err := p.r.loadSky(k/p.nt + 1); err != nil {
			return err
		}
	}
	return p.r.queueCoords((k+1)/p.nt, (k+1)%p.nt, 1-k%2)
}

// collect finishes the queued integration, if any: its output into the
// result, and the progress.
func (p *pipeline) collect() error {
	if p.pending < 0 {
		return nil
	}
	if err := p.r.finish(p.pending/p.nt, p.pending%p.nt, p.pending%2, p.pendingVis); err != nil {
		return err
	}
	p.r.tick(&p.done, p.total, &p.last)
	p.pending = -1
	return nil
}

// loadSky loads channel fi's sky (fluxes, or a full-Stokes sky's Stokes
// parameters) for its coordinates, timing it as channel preparation.
func (r *run) loadSky(fi int) error {
	tp := time.Now()
	err := r.channelSky(fi)
	r.res.Stats.Prepare += time.Since(tp)
	return err
}

// bindChannel points the chunks queued next at channel fi's beam tables
// and FP16 scale (nothing when they already are).
func (r *run) bindChannel(fi int) error {
	if fi == r.beamsFreq && fi == r.scaleFreq {
		return nil
	}
	tp := time.Now()
	if err := r.prepareBeams(fi); err != nil {
		return err
	}
	if err := r.nufftChannel(fi); err != nil {
		return err
	}
	r.setZScale(fi)
	r.scaleFreq = fi
	r.res.Stats.Prepare += time.Since(tp)
	r.sampleFree()
	return nil
}

// channelQueued is called once every chunk of channel fi is queued: the
// device's preparation may reuse its tables' slot.
func (r *run) channelQueued(fi int) error {
	if r.bp == nil {
		return nil
	}
	// Queueing channel fi + 2's preparation is host time of a channel
	// change (a streamed window's uploads of raw planes are most of it).
	tp := time.Now()
	err := r.bp.release(r, fi)
	r.res.Stats.Prepare += time.Since(tp)
	return err
}

// endStats completes the run's statistics.
func (r *run) endStats(t0 time.Time) {
	if r.bp != nil {
		_ = r.c.SyncStream(r.bp.s)
		r.bp.collect(0)
		r.bp.collect(1)
		r.res.Stats.ChannelPrepGPU, r.res.Stats.ChannelPreps = r.bp.prepGPU, r.bp.preps
	}
	r.res.Stats.Device = r.deviceMemory()
	r.res.Stats.Total = time.Since(t0) + r.res.Stats.Setup
}
