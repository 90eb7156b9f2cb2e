package gpu

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unsafe"

	"github.com/gomatvis/gomatvis/internal/atomicfile"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/cuda/gram"
	"github.com/gomatvis/gomatvis/kernels"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/astro"
)

// slotEvents time one integration: coords (c0 → u upload → c1), chunks
// (s, then beam/tauz/matprod per chunk), output (o). With sub-chunks
// (run.sub > 1) piece holds per sub-chunk the fused kernel's start and end
// on the side stream and the Gram product's start and end on the main one.
type slotEvents struct {
	c0, u, c1, s, o cuda.Event
	chunk           [][3]cuda.Event
	piece           [][4]cuda.Event
}

type run struct {
	// flux is every source's Stokes-I flux at the channel being simulated.
	flux []float64
	ctx  context.Context
	c    *cuda.Context
	sim  *matvis.Simulation
	res  *matvis.Result
	opt  Options
	tune tuning

	s    cuda.Stream
	s2   cuda.Stream // fused kernel's stream when sub > 1
	blas *cuda.Blas
	g    *gram.Gram
	st   gram.Strategy
	mod  *cuda.Module

	k *visKernels

	// fusedCand: the run can use the fused beam+τ+Z+Gram kernel
	// (gram_fused, compiled with FG_MT = fgMT); fused: it does. fgBlocks is
	// gram_fused's grid (one partial triangle per block in dPart).
	fusedCand, fused bool
	// stacked: gram_fused reads the beams restacked by node (all beams
	// gridded on one geometry, polarized; fgNBP beams with padding);
	// fusedChosen: chooseFused has settled the path.
	stacked, fusedChosen bool
	fgNBP, fgTS          int
	fgMT, fgBlocks       int
	fgLast               int     // grid of the last gram_fused launch
	zscale               float64 // gram_fused's FP16 scale at the current frequency
	dPart, dFoot         cuda.DevicePtr
	beamsFreq            int // frequency whose beam tables are on the device (-1: none)

	p1                   bool
	rsize, zsize, osize  int64
	nant, nsrc, nf, M    int
	npairs, nbeam        int
	nblk, bufSrc, nchunk int
	sub, zCap            int // sub-chunks per chunk; sources per Z buffer (sub > 1)
	fusedRaw             []float64
	rot                  astro.MatrixRotation // ENU = M(ti)·P with cached P
	bcrs                 astro.BCRSRotation   // ECI vectors on the device, BCRS step there too
	lastVec              *float64

	allocs                       []cuda.DevicePtr
	dAnt, dBeamOf, dPairs, dFlux cuda.DevicePtr
	dSrc                         [3]cuda.DevicePtr
	dMat, dTotal                 [2]cuda.DevicePtr
	dBlkCnt, dBlkOff             cuda.DevicePtr
	dCe, dCn, dCu, dAmp          [2]cuda.DevicePtr
	dZ, dAcc, dOut               cuda.DevicePtr
	hENU, hOut                   [2]*cuda.HostBuffer
	hCount, hMat                 *cuda.HostBuffer
	ev                           [2]slotEvents
	events                       []cuda.Event
	// beam tables of the current frequency (buildBeamTables)
	dDesc, dGeom, dCoef cuda.DevicePtr
	// dCoefS: the gridded beams restacked by node for gram_fused's stacked
	// path (run.stacked); tables0 holds frequency 0's tables, built early
	// to decide that path, until prepareBeams(0) uploads them.
	dCoefS  cuda.DevicePtr
	tables0 *beamTables
	// order sorts the visible sources by (zenith band, azimuth bin) for
	// the gridded beams' gathers (any gridded beam, unless tune.sortSources is
	// off)
	order                                                    bool
	nblkSort                                                 int
	dTmpE, dTmpN, dTmpU, dTmpA, dSortCnt, dSortOff, dSortTot cuda.DevicePtr
	coordT                                                   [2][2]time.Duration // per slot: upload, compaction

	// Device memory accounting (Stats.Device): live allocations by
	// pointer, their sum per term (in first-allocation order) and the
	// free-memory samples.
	mem       matvis.DeviceMemory
	live      map[cuda.DevicePtr]allocRec
	liveBytes int64
	liveTerm  map[string]int64
	termOrder []string
}

// allocRec is one live device allocation: its memory term and size.
type allocRec struct {
	term string
	n    int64
}

// Device memory terms of the backend's buffers that the memory model has
// no term for (the others use matvis.Term* names).
const (
	termBeamTables = "gpu_beam_tables" // beam descriptors and grid geometries
	termCompaction = "gpu_compaction"  // visible counts and the scan's block counts and offsets
	termSort       = "gpu_sort"        // the source ordering's scratch copies and bin counts
	termIO         = "gpu_io"          // antenna→beam map, pairs, rotation matrices, extracted output
)

// tuning holds the backend's knobs that only tests and benchmarks turn
// (through Backend.tune); a run copies them when it starts.
type tuning struct {
	// sortSources switches the (zenith band, azimuth bin) ordering of the
	// visible sources, to measure what it brings.
	sortSources bool
	// sortBands and sortAzBins are the ordering's zenith-angle bands over
	// [0, π/2] and azimuth bins over [0, 2π) (NBAND, NAZBIN in vis.cu).
	// 90 × 360 (1° × 1°, the HERA beam grid's spacing) measured fastest of
	// 23×180 … 128×256 … 64×512 for the fused beam kernel at dev and
	// prodslice (bench/gpu-notes.md).
	sortBands, sortAzBins int
	// antennasPerBlock is the antenna group of one block of the fused
	// beam_tau_z kernel (its grid's y dimension is the number of groups).
	antennasPerBlock int
	// minSubChunk is the least number of sources of a sub-chunk: a chunk of
	// n sources is split into min(S, ⌈n/minSubChunk⌉) sub-chunks (tests
	// lower it to split their small chunks).
	minSubChunk int
	// streamPriority orders the two streams of the sub-chunk pipeline for
	// the block scheduler: 0 both at the default priority, 1 the fused
	// kernel's stream high, 2 the Gram product's (main) stream high.
	streamPriority int
	// extraCompileOptions are added to the NVRTC options of vis.cu (to try
	// register limits).
	extraCompileOptions []string
	// fusedBlocksPerSM sizes gram_fused's grid in blocks per
	// multiprocessor (0: as many as fit at once); fusedProducerWarps,
	// fusedBuffers and fusedSliceSources are its FG_NP producer warps,
	// FG_NBUF Z buffers and FG_TS sources per slice.
	fusedBlocksPerSM, fusedProducerWarps, fusedBuffers, fusedSliceSources int
	// fusedConsumerWarps is its FG_NC tensor-core warps and
	// fusedStackedSlice its FG_TS on the stacked path.
	fusedConsumerWarps, fusedStackedSlice int
	// fusedStacked allows gram_fused's stacked-beam path (off: its
	// per-thread gathers, to measure against).
	fusedStacked bool
	// fusedF16 makes gram_fused's products FP16 splits (FG_F16) instead
	// of TF32 splits: measured faster at dev (0.47–0.48 vs 0.60 ms per
	// chunk) and as accurate (precision gate 5.0e-7 vs 8.4e-7).
	fusedF16 bool
}

// defaultTuning is what Open sets.
func defaultTuning() tuning {
	return tuning{sortSources: true, sortBands: 90, sortAzBins: 360, antennasPerBlock: 8, minSubChunk: 2048, fusedProducerWarps: 16, fusedBuffers: 2, fusedSliceSources: 32, fusedStacked: true,
		fusedConsumerWarps: 4, fusedStackedSlice: 16, fusedF16: true}
}

func newRun(ctx context.Context, b *Backend, sim *matvis.Simulation) (r *run, err error) {
	start := time.Now()
	r = &run{ctx: ctx, c: b.c, sim: sim, opt: b.opts, tune: b.tune, live: map[cuda.DevicePtr]allocRec{}, liveTerm: map[string]int64{}, beamsFreq: -1}
	if free, total, err := r.c.MemInfo(); err == nil {
		r.mem = matvis.DeviceMemory{TotalBytes: total, FreeBeforeBytes: free, MinFreeBytes: free}
	}
	// A failed set-up releases what it made: "return nil, err" has set r
	// to nil by the time this runs, so it closes its own copy.
	made := r
	defer func() {
		if err != nil {
			made.close()
		}
	}()
	// The host result and the two pinned output slots, before any is made.
	slots := 2 * int64(len(sim.Pairs)) * int64(sim.NFeed()*sim.NFeed()) * int64(8*sim.Options.Precision)
	if err := sim.CheckHostMemory(matvis.MemoryTerm{Name: "gpu_host_output_slots", Bytes: slots}); err != nil {
		return nil, fmt.Errorf("gpu: %w", err)
	}
	r.res = matvis.NewResult(sim)
	r.res.Stats.Backend = "gpu"
	r.res.Stats.BeamInTauZ = true
	r.p1 = sim.Options.Precision == 1
	r.nant, r.nsrc, r.nf = sim.NAnt(), sim.NSrc(), sim.NFeed()
	r.M = r.nf * r.nant
	r.npairs = len(sim.Pairs)
	r.nbeam = len(sim.Beams)
	r.nblk = (r.nsrc + 255) / 256
	r.nblkSort = (r.nsrc + sortItems - 1) / sortItems
	if rot, ok := sim.Coords.(astro.MatrixRotation); ok {
		r.rot = rot
	}
	if br, ok := sim.Coords.(astro.BCRSRotation); ok {
		r.bcrs = br
	}
	for i, bm := range sim.Beams {
		if _, _, analytic, _ := analyticKind(bm, sim.Freqs[0]); analytic {
			continue
		}
		if _, err := asGridBeam(i, bm); err != nil {
			return nil, err
		}
		r.order = r.tune.sortSources
	}

	r.sub = r.opt.SubChunks
	if r.sub <= 0 {
		r.sub = DefaultSubChunks
	}
	if r.sub > 1 && r.tune.streamPriority == 2 {
		r.s, err = r.c.NewStreamPriority(true)
	} else {
		r.s, err = r.c.NewStream()
	}
	if err != nil {
		return nil, fmt.Errorf("gpu: main stream: %w", err)
	}
	if r.sub > 1 {
		if r.s2, err = r.c.NewStreamPriority(r.tune.streamPriority == 1); err != nil {
			return nil, fmt.Errorf("gpu: fused-kernel stream: %w", err)
		}
	}
	if r.blas, err = r.c.NewBlas(r.s); err != nil {
		return nil, fmt.Errorf("gpu: cuBLAS handle: %w", err)
	}
	if err = r.blas.SetMathMode(cuda.DefaultMath); err != nil {
		return nil, fmt.Errorf("gpu: cuBLAS math mode: %w", err)
	}
	if r.g, err = gram.New(r.c, r.blas, r.s); err != nil {
		return nil, fmt.Errorf("gpu: %w", err)
	}

	// Memory plan against the device's free memory.
	budget := sim.Options.MaxMemory
	if budget == 0 {
		free, _, err := r.c.MemInfo()
		if err != nil {
			return nil, fmt.Errorf("gpu: free device memory for the plan: %w", err)
		}
		budget = free
	}
	plan := sim.PlanMemory(budget)
	r.res.Plan = plan
	r.nchunk = max(plan.NChunks, 1)
	r.bufSrc = plan.BufferSources
	if plan.SourcesPerChunk <= 1000 || r.bufSrc < 1 {
		r.bufSrc = plan.SourcesPerChunk
	}
	r.bufSrc = max(r.bufSrc, 1)

	if err = r.chooseStrategy(); err != nil {
		return nil, err
	}
	if err = r.fusedEligibility(); err != nil {
		return nil, err
	}
	if r.sub > 1 {
		r.zCap = (r.bufSrc + 1) / 2
		r.res.Stats.MatProdImpl += fmt.Sprintf("; overlapped with the fused kernel in up to %d sub-chunks per chunk (two streams)", r.sub)
	}
	if err = r.compile(); err != nil {
		return nil, err
	}
	r.res.Stats.ZBytes = int(r.zsize)
	if err = r.allocate(); err != nil {
		return nil, err
	}
	if err = r.makeEvents(); err != nil {
		return nil, err
	}
	if err = r.chooseFused(); err != nil {
		return nil, err
	}
	r.res.Stats.MatProdImpl = matProdImpl(sim, r.res.Stats.MatProdImpl)
	r.sampleFree()
	r.res.Stats.Setup = time.Since(start)
	return r, nil
}

// matProdImpl names the matrix product as the run does it. The device has
// no per-pair product: it always forms the whole M×M Gram product (cuBLAS
// or the fused kernel) and vis_out extracts the output pairs, so
// Options.MatProd pairs gives the pairs' visibilities computed that way,
// which is said here rather than ignored silently.
func matProdImpl(sim *matvis.Simulation, impl string) string {
	if sim.Options.MatProd == matvis.MatProdPairs {
		return fmt.Sprintf("pairs (%d) extracted from the full Gram product, %s", len(sim.Pairs), impl)
	}
	return "herk via " + impl
}

func (r *run) chooseStrategy() error {
	prec := r.sim.Options.Precision
	if r.opt.Strategy != "" {
		r.st = r.opt.Strategy
		if prec == 2 && !r.st.Double() {
			return fmt.Errorf("gpu: strategy %s is single precision; precision 2 needs a complex128 one", r.st)
		}
		r.res.Stats.MatProdImpl = fmt.Sprintf("cuBLAS %s (forced)", r.st)
		return nil
	}
	// Expected K per chunk: about half the sky is above the horizon.
	k := r.nf * max(1, (r.nsrc/2+r.nchunk-1)/r.nchunk)
	info := r.c.Info()
	ver, _ := r.blas.Version()
	bucket := (k + 4095) / 4096 * 4096
	key := fmt.Sprintf("%s|drv%d|cublas%d|p%d|M%d|K%d", info.Name, info.DriverVersion, ver, prec, r.M, bucket)
	cache := strategyCachePath()
	if !r.opt.NoStrategyCache {
		if st, ok := readStrategyCache(cache, key); ok {
			r.st = st
			r.res.Stats.MatProdImpl = fmt.Sprintf("cuBLAS %s (cached choice for M=%d K≈%d)", st, r.M, bucket)
			return nil
		}
	}
	r.mem.ScratchBytes = int64(bucket)*int64(r.M)*16 + int64(r.M)*int64(r.M)*16 // gram.Choose's Z and C
	st, res, err := r.g.Choose(gram.Candidates(prec), r.M, bucket)
	if err != nil {
		return fmt.Errorf("gpu: choosing the Gram strategy: %w", err)
	}
	r.st = st
	var parts []string
	for _, x := range res {
		if x.Err != nil {
			parts = append(parts, fmt.Sprintf("%s failed", x.Strategy))
		} else {
			parts = append(parts, fmt.Sprintf("%s %.3f ms", x.Strategy, x.Ms))
		}
	}
	r.res.Stats.MatProdImpl = fmt.Sprintf("cuBLAS %s (measured at M=%d K=%d: %s)", st, r.M, bucket, strings.Join(parts, ", "))
	if !r.opt.NoStrategyCache {
		writeStrategyCache(cache, key, st)
	}
	return nil
}

func strategyCachePath() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "gomatvis", "gram-strategies.json")
}

func readStrategyCache(path, key string) (gram.Strategy, bool) {
	if path == "" {
		return "", false
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	m := map[string]string{}
	if json.Unmarshal(b, &m) != nil {
		return "", false
	}
	st, ok := m[key]
	return gram.Strategy(st), ok && st != ""
}

// writeStrategyCache records a choice; a failure only means measuring again
// next time, so it is not reported.
func writeStrategyCache(path, key string, st gram.Strategy) {
	if path == "" {
		return
	}
	m := map[string]string{}
	if b, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(b, &m)
	}
	m[key] = string(st)
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return
	}
	_ = os.MkdirAll(filepath.Dir(path), 0o755)
	_ = atomicfile.WriteBytes(path, b)
}

func (r *run) compile() error {
	code, headers, err := kernels.Program("vis.cu")
	if err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	rt, out := "double", "double2"
	r.rsize, r.osize = 8, 16
	if r.p1 {
		rt, out = "float", "float2"
		r.rsize, r.osize = 4, 8
	}
	zt := "float2"
	r.zsize = 8
	if r.st.Double() {
		zt, r.zsize = "double2", 16
	}
	opts := append([]string{"-DR_T=" + rt, "-DZ_T=" + zt, "-DACC_T=" + zt, "-DOUT_T=" + out,
		fmt.Sprintf("-DNBAND=%d", r.tune.sortBands), fmt.Sprintf("-DNAZBIN=%d", r.tune.sortAzBins)}, sharedDefines()...)
	opts = append(opts, r.tune.extraCompileOptions...)
	if r.fusedCand {
		opts = append(opts, fmt.Sprintf("-DFG_MT=%d", r.fgMT), fmt.Sprintf("-DFG_NP=%d", r.tune.fusedProducerWarps),
			fmt.Sprintf("-DFG_NBUF=%d", r.tune.fusedBuffers), fmt.Sprintf("-DFG_TS=%d", r.fgTS), fmt.Sprintf("-DFG_NC=%d", r.tune.fusedConsumerWarps))
		if r.stacked {
			opts = append(opts, "-DFG_STACKED", fmt.Sprintf("-DFG_NBP=%d", r.fgNBP))
		}
		if r.tune.fusedF16 {
			opts = append(opts, "-DFG_F16")
		}
	}
	r.mod, err = r.c.Compile(cuda.Source{Name: "vis.cu", Code: code, Headers: headers}, opts...)
	if err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	if r.k, err = loadVisKernels(r.mod, r.fusedCand, r.stacked); err != nil {
		return err
	}
	if r.fusedCand {
		if err = r.setupFused(); err != nil {
			// A card whose shared memory or registers do not hold the
			// kernel's block keeps the separate path, unless forced.
			if r.opt.Fused == FusedOn {
				return err
			}
			r.fusedCand, r.stacked = false, false
			r.res.Stats.MatProdImpl += fmt.Sprintf("; fused beam+τ+Z+Gram kernel not available on this device (%v)", err)
		}
	}
	return nil
}

func (r *run) alloc(term string, n int64) (cuda.DevicePtr, error) {
	n = max(n, 8)
	p, err := r.c.Alloc(n)
	if err != nil {
		return 0, fmt.Errorf("gpu: %s: %w", term, err)
	}
	r.allocs = append(r.allocs, p)
	r.track(p, term, n)
	return p, nil
}

// track records a live allocation for the memory accounting and updates
// the peak and its breakdown.
func (r *run) track(p cuda.DevicePtr, term string, n int64) {
	r.live[p] = allocRec{term, n}
	r.liveBytes += n
	if _, ok := r.liveTerm[term]; !ok {
		r.termOrder = append(r.termOrder, term)
	}
	r.liveTerm[term] += n
	if r.liveBytes > r.mem.AllocatedPeakBytes {
		r.mem.AllocatedPeakBytes = r.liveBytes
		r.mem.AllocatedTerms = r.mem.AllocatedTerms[:0]
		for _, t := range r.termOrder {
			r.mem.AllocatedTerms = append(r.mem.AllocatedTerms, matvis.MemoryTerm{Name: t, Bytes: r.liveTerm[t]})
		}
	}
}

// untrack forgets a freed allocation.
func (r *run) untrack(p cuda.DevicePtr) {
	if a, ok := r.live[p]; ok {
		delete(r.live, p)
		r.liveBytes -= a.n
		r.liveTerm[a.term] -= a.n
	}
}

// sampleFree reads the device's free memory and keeps the least seen.
func (r *run) sampleFree() {
	if r.mem.TotalBytes == 0 {
		return
	}
	if free, _, err := r.c.MemInfo(); err == nil && free < r.mem.MinFreeBytes {
		r.mem.MinFreeBytes = free
	}
}

// deviceMemory completes the run's device-memory record.
func (r *run) deviceMemory() *matvis.DeviceMemory {
	if r.mem.TotalBytes == 0 {
		return nil
	}
	r.sampleFree()
	m := r.mem
	m.UsedPeakBytes = m.FreeBeforeBytes - m.MinFreeBytes
	m.AllocatedTerms = append([]matvis.MemoryTerm(nil), m.AllocatedTerms...)
	return &m
}

func (r *run) allocate() error {
	sim := r.sim
	var err error
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
		{&r.dMat[0], termIO, parBytes}, {&r.dMat[1], termIO, parBytes}, {&r.dTotal[0], termCompaction, 4}, {&r.dTotal[1], termCompaction, 4},
		{&r.dBlkCnt, termCompaction, int64(r.nblk) * 4}, {&r.dBlkOff, termCompaction, int64(r.nblk) * 4},
		{&r.dAcc, matvis.TermVis, int64(r.M) * int64(r.M) * r.zsize},
		{&r.dOut, termIO, int64(r.npairs) * int64(r.nf*r.nf) * r.osize},
		{&r.dDesc, termBeamTables, int64(r.nbeam) * 32},
	}
	if r.order {
		nt := int64(r.nblkSort) * int64(max(r.tune.sortBands, r.tune.sortAzBins)) * 4
		reqs = append(reqs, req{&r.dTmpE, termSort, ns * r.rsize}, req{&r.dTmpN, termSort, ns * r.rsize}, req{&r.dTmpU, termSort, ns * r.rsize},
			req{&r.dTmpA, termSort, ns * 8}, req{&r.dSortCnt, termSort, nt}, req{&r.dSortOff, termSort, nt}, req{&r.dSortTot, termSort, 4})
	}
	for i := 0; i < 2; i++ {
		reqs = append(reqs, req{&r.dCe[i], matvis.TermCrdTop, ns * r.rsize}, req{&r.dCn[i], matvis.TermCrdTop, ns * r.rsize},
			req{&r.dCu[i], matvis.TermCrdTop, ns * r.rsize}, req{&r.dAmp[i], matvis.TermFluxChunk, ns * 8})
	}
	if !r.fusedCand {
		reqs = append(reqs, req{&r.dZ, matvis.TermZ, r.zBytes()})
	}
	for _, q := range reqs {
		if *q.p, err = r.alloc(q.term, q.n); err != nil {
			return err
		}
	}
	for i := 0; i < 2; i++ {
		if r.rot == nil {
			if r.hENU[i], err = r.c.AllocHost(3 * ns * 8); err != nil {
				return fmt.Errorf("gpu: ENU upload buffer: %w", err)
			}
		}
		if r.hOut[i], err = r.c.AllocHost(max(int64(r.npairs)*int64(r.nf*r.nf)*r.osize, 8)); err != nil {
			return fmt.Errorf("gpu: output buffer: %w", err)
		}
	}
	// Poison the output buffers: an entry the device fails to write shows
	// as NaN instead of a plausible zero.
	for i := 0; i < 2; i++ {
		h := cuda.HostSlice[float64](r.hOut[i])
		for k := range h {
			h[k] = math.NaN()
		}
	}
	if err := r.c.Memset8(r.dOut, 0xFF, int64(r.npairs)*int64(r.nf*r.nf)*r.osize, r.s); err != nil {
		return fmt.Errorf("gpu: poison the device output: %w", err)
	}
	if r.hCount, err = r.c.AllocHost(8); err != nil {
		return fmt.Errorf("gpu: visible-count buffer: %w", err)
	}
	if r.hMat, err = r.c.AllocHost(2 * parBytes); err != nil {
		return fmt.Errorf("gpu: coordinate parameter buffer: %w", err)
	}
	// Static inputs.
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

// params fills time ti's parameter block hm (parN values) and returns the
// coordinate mode of the horizon kernels: 2 for an astro.BCRSRotation (the
// ENU matrix and the BCRS-step constants; the device holds the ECI
// vectors), 1 for another matrix rotation (the matrix only; the caller
// uploads the cached vectors).
func (r *run) params(ti int, hm []float64) (int32, error) {
	m, err := r.rot.Matrix(ti)
	if err != nil {
		return 0, fmt.Errorf("gpu: coordinates at time %d: %w", ti, err)
	}
	copy(hm[:9], m[:])
	if r.bcrs == nil {
		return 1, nil
	}
	p, err := r.bcrs.BCRSParams(ti)
	if err != nil {
		return 0, fmt.Errorf("gpu: coordinates at time %d: %w", ti, err)
	}
	copy(hm[parEH:parEH+3], p.Eh[:])
	hm[parEM] = p.Em
	copy(hm[parV:parV+3], p.V[:])
	hm[parBM1] = p.Bm1
	copy(hm[parBPN:parBPN+9], p.BPN[:])
	hm[parSRS] = astro.SRS
	return 2, nil
}

func (r *run) event() (cuda.Event, error) {
	e, err := r.c.NewEvent()
	if err == nil {
		r.events = append(r.events, e)
	}
	return e, err
}

func (r *run) close() {
	if r.s != 0 {
		_ = r.c.SyncStream(r.s)
	}
	if r.s2 != 0 {
		_ = r.c.SyncStream(r.s2)
		_ = r.c.DestroyStream(r.s2)
	}
	for _, e := range r.events {
		_ = r.c.DestroyEvent(e)
	}
	r.freeBeamTables()
	for _, p := range r.allocs {
		_ = r.c.Free(p)
	}
	for _, h := range []*cuda.HostBuffer{r.hENU[0], r.hENU[1], r.hOut[0], r.hOut[1], r.hCount, r.hMat} {
		_ = r.c.FreeHost(h)
	}
	if r.mod != nil {
		_ = r.mod.Unload()
	}
	if r.g != nil {
		_ = r.g.Close()
	}
	if r.blas != nil {
		_ = r.blas.Close()
	}
	if r.s != 0 {
		_ = r.c.DestroyStream(r.s)
	}
}

// prepareBeams uploads the beam tables of frequency fi: descriptors,
// grid geometries and the gridded beams' prepared planes, per beam
// (beam_tau_z) and, for the fused kernel's stacked path, restacked by
// node (gram_fused with FG_STACKED) — each only while a path that reads it
// may run.
func (r *run) prepareBeams(fi int) error {
	if fi == r.beamsFreq {
		return nil
	}
	r.beamsFreq = -1
	t := r.tables0
	r.tables0 = nil
	if t == nil || fi != 0 {
		var err error
		if t, err = buildBeamTables(r.sim, r.sim.Freqs[fi], r.p1); err != nil {
			return err
		}
	}
	if err := cuda.Upload(r.c, r.dDesc, t.desc, r.s); err != nil {
		return fmt.Errorf("gpu: upload beam descriptors: %w", err)
	}
	r.freeBeamTables()
	var err error
	if len(t.geom) > 0 {
		if r.dGeom, err = r.c.Alloc(int64(len(t.geom)) * 8); err != nil {
			return fmt.Errorf("gpu: beam geometries: %w", err)
		}
		r.track(r.dGeom, termBeamTables, int64(len(t.geom))*8)
		if err := cuda.Upload(r.c, r.dGeom, t.geom, r.s); err != nil {
			return fmt.Errorf("gpu: upload beam geometries: %w", err)
		}
	}
	if t.ncoef > 0 && !(r.fused && r.stacked) {
		if r.dCoef, err = r.c.Alloc(t.ncoef * 2 * r.rsize); err != nil {
			return fmt.Errorf("gpu: beam planes (%d MB): %w", t.ncoef*2*r.rsize>>20, err)
		}
		r.track(r.dCoef, matvis.TermBeamGrid, t.ncoef*2*r.rsize)
		if r.p1 {
			err = cuda.Upload(r.c, r.dCoef, t.coef32, r.s)
		} else {
			err = cuda.Upload(r.c, r.dCoef, t.coef64, r.s)
		}
		if err != nil {
			return fmt.Errorf("gpu: upload beam planes: %w", err)
		}
	}
	if r.stacked && (r.fused || !r.fusedChosen) {
		st, err := t.stack(r.fgNBP)
		if err != nil {
			return err
		}
		n := int64(len(st)) * 4
		if r.dCoefS, err = r.c.Alloc(n); err != nil {
			return fmt.Errorf("gpu: stacked beam planes (%d MB): %w", n>>20, err)
		}
		r.track(r.dCoefS, matvis.TermBeamGrid, n)
		if err := cuda.Upload(r.c, r.dCoefS, st, r.s); err != nil {
			return fmt.Errorf("gpu: upload stacked beam planes: %w", err)
		}
	}
	if r.fusedCand && r.tune.fusedF16 {
		r.zscale = fp16Scale(r.flux, t.maxAbs)
	}
	r.beamsFreq = fi
	return nil
}

// fp16Scale is the power of two that brings every Z value of a channel
// whose source fluxes are flux to at most 1 in magnitude: |Z| ≤ √(I/2)·|A|,
// and an interpolated beam value is at most maxBeam (the largest plane
// value: spline weights are non-negative and sum to 1; analytic beams are
// at most 1). Clamped to 2^±60 so that its square and inverse stay in
// float32.
func fp16Scale(flux []float64, maxBeam float64) float64 {
	maxI := 0.0
	for _, v := range flux {
		maxI = max(maxI, math.Abs(v))
	}
	bound := math.Sqrt(maxI/2) * max(maxBeam, 1)
	if !(bound > 0) || math.IsInf(bound, 0) {
		return 1
	}
	e := math.Floor(-math.Log2(bound))
	return math.Ldexp(1, int(max(-60, min(60, e))))
}

func (r *run) freeBeamTables() {
	for _, p := range []*cuda.DevicePtr{&r.dGeom, &r.dCoef, &r.dCoefS} {
		r.freeDev(p)
	}
}

// freeDev frees and forgets one device buffer (nothing when *p is 0).
func (r *run) freeDev(p *cuda.DevicePtr) {
	if *p != 0 {
		_ = r.c.Free(*p)
		r.untrack(*p)
		*p = 0
	}
}

// queueCoords queues time ti's ENU vectors and horizon compaction into
// compaction slot sl, and the copy of the visible count to the host.
func (r *run) queueCoords(fi, ti, sl int) error {
	ev := &r.ev[sl]
	c := r.c
	if err := c.Record(ev.c0, r.s); err != nil {
		return err
	}
	mode := int32(0)
	ns := int64(r.nsrc)
	if r.rot != nil {
		hm := cuda.HostSlice[float64](r.hMat)[sl*parN : (sl+1)*parN]
		var err error
		if mode, err = r.params(ti, hm); err != nil {
			return err
		}
		if mode == 1 {
			x, y, z, err := r.rot.CachedVectors(ti)
			if err != nil {
				return fmt.Errorf("gpu: coordinates at time %d: %w", ti, err)
			}
			if len(x) != r.nsrc || len(y) != r.nsrc || len(z) != r.nsrc {
				return fmt.Errorf("gpu: cached vectors at time %d have %d sources, want %d", ti, len(x), r.nsrc)
			}
			if r.lastVec != &x[0] { // refreshed (BCRS step): upload once
				for k, v := range [][]float64{x, y, z} {
					if err := cuda.Upload(c, r.dSrc[k], v, r.s); err != nil {
						return err
					}
				}
				r.lastVec = &x[0]
			}
		}
		if err := c.CopyHtoD(r.dMat[sl], unsafe.Pointer(&hm[0]), parBytes, r.s); err != nil {
			return err
		}
	} else {
		h := cuda.HostSlice[float64](r.hENU[sl])
		if err := r.sim.Coords.ENU(ti, h[:ns], h[ns:2*ns], h[2*ns:3*ns]); err != nil {
			return fmt.Errorf("gpu: coordinates at time %d: %w", ti, err)
		}
		for k := int64(0); k < 3; k++ {
			if err := c.CopyHtoD(r.dSrc[k], unsafe.Add(r.hENU[sl].Ptr(), k*ns*8), ns*8, r.s); err != nil {
				return err
			}
		}
	}
	if err := c.Record(ev.u, r.s); err != nil {
		return err
	}
	src := srcVectors(r.dSrc)
	if err := r.k.countVisible(r.s, r.nblk, ns, mode, src, r.dMat[sl], r.dBlkCnt); err != nil {
		return err
	}
	if err := r.k.scan(r.s, int32(r.nblk), r.dBlkCnt, r.dBlkOff, r.dTotal[sl]); err != nil {
		return err
	}
	// The device holds one channel's fluxes (uploadFlux): channel 0 of 1.
	slot := r.slot(sl)
	if err := r.k.scatterVisible(r.s, r.nblk, ns, mode, src, r.dMat[sl], r.dBlkOff, r.dFlux, 1, 0, slot); err != nil {
		return err
	}
	if r.order {
		// Stable LSD sort: azimuth bin (slot → tmp), then zenith band
		// (tmp → slot).
		tmp := compactSlot{r.dTmpE, r.dTmpN, r.dTmpU, r.dTmpA}
		for pass, bins := range []int64{int64(r.tune.sortAzBins), int64(r.tune.sortBands)} {
			in, out := slot, tmp
			if pass == 1 {
				in, out = tmp, slot
			}
			if err := r.k.countKeys(r.s, r.nblkSort, r.dTotal[sl], int32(pass), in, int32(r.nblkSort), r.dSortCnt); err != nil {
				return err
			}
			if err := r.k.scan(r.s, int32(int64(r.nblkSort)*bins), r.dSortCnt, r.dSortOff, r.dSortTot); err != nil {
				return err
			}
			if err := r.k.scatterKeys(r.s, r.nblkSort, r.dTotal[sl], int32(pass), int32(r.nblkSort), r.dSortOff, in, out); err != nil {
				return err
			}
		}
	}
	if err := c.CopyDtoH(unsafe.Add(r.hCount.Ptr(), 4*sl), r.dTotal[sl], 4, r.s); err != nil {
		return err
	}
	return c.Record(ev.c1, r.s)
}

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
	for ci := 0; ci < count; ci++ {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		p0 := ci * size
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

// finish waits for integration (fi, ti) in slot sl, stores its
// visibilities and its stage times.
func (r *run) finish(fi, ti, sl, nvis int) error {
	ev := &r.ev[sl]
	c := r.c
	if err := c.SyncEvent(ev.o); err != nil {
		return fmt.Errorf("gpu: integration (freq %d, time %d): %w", fi, ti, err)
	}
	nout := r.npairs * r.nf * r.nf
	off := ((fi*r.sim.NTime() + ti) * r.npairs) * r.nf * r.nf
	if r.p1 {
		copy(r.res.Vis64[off:off+nout], cuda.HostSlice[complex64](r.hOut[sl])[:nout])
	} else {
		copy(r.res.Vis128[off:off+nout], cuda.HostSlice[complex128](r.hOut[sl])[:nout])
	}
	if err := r.res.CheckFinite(fi, ti); err != nil {
		return fmt.Errorf("gpu: %g Hz: %w", r.sim.Freqs[fi], err)
	}
	var pre matvis.StageTimes
	pre[matvis.StageTransfer] = r.coordT[sl][0]
	pre[matvis.StageCoords] = r.coordT[sl][1]
	if size, _ := r.chunkPlan(nvis); r.subPlan(size) > 1 {
		r.finishPieces(fi, ti, ev, nvis, pre)
	} else {
		r.finishChunks(fi, ti, ev, nvis, pre)
	}
	r.res.Done[fi*r.sim.NTime()+ti] = true
	return nil
}

// finishChunks stores the stage times of an integration queued by the
// single-stream path of queueChunks, one sample per chunk (one with the
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

// finishPieces stores the stage times of an integration queued by
// queuePieces. Chunks are delimited on the main stream (ev.s, then the end
// of each chunk's last Gram product), so their wall times add up to the
// integration's: per chunk, matprod is the sum of its Gram products (each
// from the moment its fused kernel was done and the previous product
// finished), tau_z the rest of the chunk's wall (the fused kernels' time not
// hidden under a Gram product), beam 0. The fused kernels' own summed time
// per chunk goes to run.fusedRaw (ms).
func (r *run) finishPieces(fi, ti int, ev *slotEvents, nvis int, pre matvis.StageTimes) {
	d := r.elapsed
	ps := r.pieces(nvis)
	prev := ev.s
	for i := 0; i < len(ps); {
		ci := ps[i][2]
		var st matvis.StageTimes
		if ci == 0 {
			st = pre
		}
		var gram, fused time.Duration
		n := 0
		j := i
		for ; j < len(ps) && ps[j][2] == ci; j++ {
			e := ev.piece[j]
			gram += d(e[2], e[3])
			fused += d(e[0], e[1])
			n += ps[j][1]
		}
		end := ev.piece[j-1][3]
		wall := d(prev, end)
		st[matvis.StageMatProd] += gram
		st[matvis.StageTauZ] += max(wall-gram, 0)
		if j == len(ps) {
			st[matvis.StageTransfer] += d(end, ev.o)
		}
		r.fusedRaw = append(r.fusedRaw, fused.Seconds()*1e3)
		r.res.Stats.Chunks = append(r.res.Stats.Chunks, r.chunkSample(fi, ti, ci, n, nvis, st))
		prev = end
		i = j
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

func (r *run) run() (*matvis.Result, error) {
	t0 := time.Now()
	sim := r.sim
	nt := sim.NTime()
	total := sim.NFreq() * nt
	done := 0
	counts := cuda.HostSlice[int32](r.hCount)
	fail := func(err error) (*matvis.Result, error) {
		_ = r.c.SyncStream(r.s)
		if r.s2 != 0 {
			_ = r.c.SyncStream(r.s2)
		}
		r.res.Stats.Device = r.deviceMemory()
		r.res.Stats.Total = time.Since(t0) + r.res.Stats.Setup
		return r.res, err
	}
	for fi := 0; fi < sim.NFreq(); fi++ {
		if err := r.uploadFlux(fi); err != nil {
			return fail(err)
		}
		if err := r.prepareBeams(fi); err != nil {
			return fail(err)
		}
		r.sampleFree()
		if err := r.queueCoords(fi, 0, 0); err != nil {
			return fail(err)
		}
		pending := -1 // time whose output is queued but not collected
		pendingVis := 0
		last := time.Now()
		for ti := 0; ti < nt; ti++ {
			sl := ti % 2
			if err := r.c.SyncEvent(r.ev[sl].c1); err != nil {
				return fail(fmt.Errorf("gpu: coordinates at time %d: %w", ti, err))
			}
			nvis := int(counts[sl])
			// Read the coordinate stage times now: the slot's coordinate
			// events are recorded again for time ti+2 before finish(ti).
			r.coordT[sl] = [2]time.Duration{r.elapsed(r.ev[sl].c0, r.ev[sl].u), r.elapsed(r.ev[sl].u, r.ev[sl].c1)}
			if ti+1 < nt {
				if err := r.queueCoords(fi, ti+1, 1-sl); err != nil {
					return fail(err)
				}
			}
			if err := r.queueChunks(fi, sl, nvis); err != nil {
				// Cancelled between launches: keep the integration
				// queued before this one.
				if pending >= 0 && r.ctx.Err() != nil {
					if err2 := r.finish(fi, pending, pending%2, pendingVis); err2 == nil {
						r.tick(&done, total, &last)
					}
				}
				return fail(err)
			}
			if pending >= 0 {
				if err := r.finish(fi, pending, pending%2, pendingVis); err != nil {
					return fail(err)
				}
				r.tick(&done, total, &last)
			}
			pending, pendingVis = ti, nvis
			if err := r.ctx.Err(); err != nil {
				if err2 := r.finish(fi, pending, pending%2, pendingVis); err2 == nil {
					r.tick(&done, total, &last)
				}
				return fail(err)
			}
		}
		if err := r.finish(fi, pending, pending%2, pendingVis); err != nil {
			return fail(err)
		}
		r.tick(&done, total, &last)
	}
	r.res.Stats.Device = r.deviceMemory()
	r.res.Stats.Total = time.Since(t0) + r.res.Stats.Setup
	return r.res, nil
}

// uploadFlux evaluates the sky at channel fi and uploads its fluxes: one
// channel on the device at a time, so a spectral sky never becomes an
// nsrc × nfreq table. The copy is on r.s, after every kernel of the
// previous channel that reads dFlux (the horizon scatter) in stream order.
func (r *run) uploadFlux(fi int) error {
	if r.flux == nil {
		r.flux = make([]float64, r.nsrc)
	}
	if err := r.sim.FluxAt(fi, r.flux); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	if err := cuda.Upload(r.c, r.dFlux, r.flux, r.s); err != nil {
		return fmt.Errorf("gpu: upload fluxes of freqs[%d]: %w", fi, err)
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

func (r *run) tick(done *int, total int, last *time.Time) {
	*done++
	now := time.Now()
	r.res.Stats.Integrations = append(r.res.Stats.Integrations, now.Sub(*last))
	*last = now
	if p := r.sim.Options.Progress; p != nil {
		p(matvis.Progress{Done: *done, Total: total})
	}
}

// deviceENU computes every source's ENU vector at time ti on the device
// (the horizon kernels' coordinates, in double, before the horizon test):
// the tests compare it with the CPU's. It needs a matrix rotation and
// leaves the run's slots alone (it uses parameter slot 0 and syncs).
func (r *run) deviceENU(ti int) (e, n, u []float64, err error) {
	if r.rot == nil {
		return nil, nil, nil, fmt.Errorf("gpu: deviceENU needs a matrix rotation, have %T", r.sim.Coords)
	}
	hm := cuda.HostSlice[float64](r.hMat)[:parN]
	mode, err := r.params(ti, hm)
	if err != nil {
		return nil, nil, nil, err
	}
	if mode == 1 {
		x, y, z, err := r.rot.CachedVectors(ti)
		if err != nil {
			return nil, nil, nil, err
		}
		for k, v := range [][]float64{x, y, z} {
			if err := cuda.Upload(r.c, r.dSrc[k], v, r.s); err != nil {
				return nil, nil, nil, err
			}
		}
		r.lastVec = nil
	}
	if err := r.c.CopyHtoD(r.dMat[0], unsafe.Pointer(&hm[0]), parBytes, r.s); err != nil {
		return nil, nil, nil, err
	}
	ns := int64(r.nsrc)
	var out [3]cuda.DevicePtr
	for k := range out {
		if out[k], err = r.alloc("test", ns*8); err != nil {
			return nil, nil, nil, err
		}
	}
	if err := r.k.enu(r.s, ns, mode, srcVectors(r.dSrc), r.dMat[0], out[0], out[1], out[2]); err != nil {
		return nil, nil, nil, err
	}
	res := [3][]float64{make([]float64, ns), make([]float64, ns), make([]float64, ns)}
	for k := range out {
		if err := cuda.Download(r.c, res[k], out[k], r.s); err != nil {
			return nil, nil, nil, err
		}
	}
	if err := r.c.SyncStream(r.s); err != nil {
		return nil, nil, nil, err
	}
	return res[0], res[1], res[2], nil
}
