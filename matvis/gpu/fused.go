package gpu

import (
	"errors"
	"fmt"
	"math"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/cuda/gram"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// termGramPartials is the device memory of the fused kernel's per-block
// partial triangles (no term in the memory model: it replaces zmat).
const termGramPartials = "gpu_gram_partials"

// termFootprints is the device memory of the stacked path's per-source
// spline footprints (gram_foot), fusedFootBytes each.
const termFootprints = "gpu_fused_footprints"

// fusedEligibility decides whether the run may use the fused
// beam+τ+Z+Gram kernel (fusedCand) and the kernel's tile count; with
// Options.Fused on, a run that cannot is an error naming why.
func (r *run) fusedEligibility() error {
	why := ""
	switch {
	case r.polSky:
		why = "a full-Stokes sky (its Z comes from per-source factors: the separate Z kernel, stokes.go)"
	case !r.p1:
		why = fmt.Sprintf("precision %d (the fused kernel accumulates in float32: precision 1 only)", r.sim.Options.Precision)
	case r.M > MaxFusedRows:
		why = fmt.Sprintf("M = feeds × antennas = %d over %d", r.M, MaxFusedRows)
	}
	switch r.opt.Fused {
	case FusedOff:
		return nil
	case FusedOn:
		if why != "" {
			return fmt.Errorf("gpu: Options.Fused on: this run cannot use the fused beam+τ+Z+Gram kernel: %s", why)
		}
	case FusedAuto:
		if why != "" {
			return nil
		}
	default:
		return fmt.Errorf("gpu: Options.Fused %v: want auto, on or off", r.opt.Fused)
	}
	r.fusedCand = true
	r.fgMT = (r.M + 31) / 32
	r.fgTS = fusedSliceSources
	return r.stackedEligibility()
}

// maxStackedBeams bounds the beams of gram_fused's stacked path (its
// per-warp beam values live in shared memory).
const maxStackedBeams = 64

// stackedEligibility decides gram_fused's stacked path: a polarized run
// whose beams are all gridded on one grid geometry at the first frequency
// (frequency 0's tables are built here; the table cache keeps them for
// prepareBeams). The stacked path has its own slice size (its beam values
// take shared memory from the Z buffers).
func (r *run) stackedEligibility() error {
	if !r.sim.Mode.Polarized || len(r.sim.Beams) > maxStackedBeams {
		return nil
	}
	for _, bm := range r.sim.Beams {
		if _, _, analytic, _ := analyticKind(bm, r.sim.Freqs[0]); analytic {
			return nil
		}
	}
	t, err := r.deviceLayout() // the geometries, without preparing planes
	if errors.Is(err, errHostPrep) {
		t, err = r.beamTables(0) // kept by the table cache for prepareBeams(0)
	}
	if err != nil {
		return err
	}
	if len(t.geom) != 1 { // one grid geometry
		return nil
	}
	r.stacked = true
	r.fgNBP = (len(r.sim.Beams) + 15) / 16 * 16
	r.fgTS = r.tune.fusedStackedSlice
	return nil
}

// fusedThreads is gram_fused's block: consumer and producer warps.
func (r *run) fusedThreads() int { return 32 * (fusedConsumerWarps + fusedProducerWarps) }

// fusedShared is gram_fused's dynamic shared memory: FG_NBUF Z buffers of
// 2·FG_TS columns of FG_MP = 32·FG_MT + 4 complex64 values, then the
// accumulators of its FG_MT·(FG_MT+1) tiles of 32×16 complex64 values;
// on the stacked path also each producer warp's beam values (2·FG_NBP
// float4).
func (r *run) fusedShared() int {
	n := fusedBuffers*2*r.fgTS*(32*r.fgMT+4)*8 + r.fgMT*(r.fgMT+1)*32*16*8
	if r.stacked {
		n += fusedProducerWarps * 2 * r.fgNBP * 16
	}
	return n
}

// setupFused opts gram_fused into its shared memory and sizes its grid:
// as many blocks as fit on the device at once.
func (r *run) setupFused() error {
	if err := r.k.gramFused.SetMaxDynamicShared(r.fusedShared()); err != nil {
		return fmt.Errorf("gpu: gram_fused shared memory (%d bytes): %w", r.fusedShared(), err)
	}
	per, err := r.k.gramFused.MaxActiveBlocksPerSM(r.fusedThreads(), r.fusedShared())
	if err != nil {
		return fmt.Errorf("gpu: gram_fused occupancy: %w", err)
	}
	if per < 1 {
		return fmt.Errorf("gpu: gram_fused does not fit on a multiprocessor (%d threads, %d bytes of shared memory)", r.fusedThreads(), r.fusedShared())
	}
	r.fgBlocks = r.c.Info().SMs * per
	return nil
}

// productsName says how gram_fused multiplies (GramImpl.Products).
func (r *run) productsName() string {
	if r.tune.fusedF16 {
		return "tensor-core products of FP16-split operands, float32 sums"
	}
	return "tensor-core products of TF32-split operands, float32 sums"
}

// zBytes is the size of the Z buffer of the separate-product path.
func (r *run) zBytes() int64 {
	return int64(r.M) * int64(r.ldz(r.bufSrc)) * r.zsize
}

// ldz is Z's leading dimension for a chunk of n sources: nf·n, padded to
// a multiple of 4 for the tensor-core product, which copies each row's
// planes in 16-byte pieces.
func (r *run) ldz(n int) int {
	k := r.nf * n
	if r.st.SplitZ() {
		k = (k + 3) / 4 * 4
	}
	return k
}

// partBytes is the size of gram_fused's partial triangles.
func (r *run) partBytes() int64 {
	return int64(r.fgBlocks) * int64(r.M) * int64(r.M) * 8
}

// chooseFused settles, for a fused candidate, between the fused kernel and
// the separate beam_tau_z + cuBLAS product, and allocates the chosen
// path's buffer (the partial triangles or Z). With Options.Fused auto both
// are timed on the run's own first chunk (frequency 0, time 0: its beams,
// visible sources and chunk size), in scratch buffers (measureFused); the
// faster is kept and both times go into Stats.MatProdImpl.Why or
// NotFused.
func (r *run) chooseFused() (err error) {
	if !r.fusedCand {
		return nil
	}
	g := &r.res.Stats.MatProdImpl
	if r.opt.Fused == FusedOn {
		r.fused = true
		g.Why = "forced"
	} else {
		d, err := r.fusedDecision()
		if err != nil {
			return err
		}
		r.fused = d.fused
		cmp := d.why
		if r.fused {
			g.Why = cmp
		} else {
			g.NotFused = "not used: " + cmp
		}
	}
	if r.fused {
		*g = matvis.GramImpl{Strategy: matvis.FusedKernelName, Why: g.Why, Fused: true, Products: r.productsName(), Blocks: r.fgBlocks, Stacked: r.stacked}
	}
	r.fusedChosen = true
	if r.nu == nil {
		// No transform to choose: free the unused layout before the
		// path's own buffers, as the run's memory plan assumes.
		_ = r.settleLayouts()
	}
	if r.fused {
		r.res.Stats.ZBytes = 8
		if r.stacked {
			if r.dFoot, err = r.alloc(termFootprints, int64(r.bufSrc)*fusedFootBytes); err != nil {
				return err
			}
		}
		r.dPart, err = r.alloc(termGramPartials, r.partBytes())
	} else {
		r.dZ, err = r.alloc(matvis.TermZ, r.zBytes())
	}
	return err
}

// settleLayouts keeps the beam layout the chosen path reads, once the
// fused path and the transform are settled (the transform reads the
// plain layout, as beam_tau_z does), and frees the other.
func (r *run) settleLayouts() error {
	if !r.fusedCand || r.layoutsSettled {
		return nil
	}
	r.layoutsSettled = true
	stacked := r.fused && r.stacked
	switch {
	case r.bp != nil:
		r.bp.keep(!stacked, stacked)
		if stacked {
			r.dCoef = 0
		} else {
			r.dCoefS = 0
		}
	case stacked:
		r.freeDev(&r.dCoef) // beam_tau_z's layout: not read again
	default:
		r.freeDev(&r.dCoefS)
	}
	return nil
}

// fusedDecision measures the two ways on the run's first chunk, or takes
// the decision the backend measured for a run of the same shape.
func (r *run) fusedDecision() (fusedDecision, error) {
	key := r.fusedCacheKey(fusedKey{p1: r.p1, pol: r.sim.Mode.Polarized, stacked: r.stacked, m: r.M, bufSrc: r.bufSrc, nbeam: r.nbeam, strategy: r.st})
	return r.rememberedDecision(r.keep.fusedChoice, key, fusedCachePath(), func() (fusedDecision, bool, error) {
		fusedMs, sepMs, n, err := r.measureFused()
		if err != nil || n == 0 {
			return fusedDecision{why: "no visible source at the first time to measure on"}, false, err
		}
		return fusedDecision{fused: fusedMs < sepMs,
			why: fmt.Sprintf("measured on the first chunk (%d visible sources): fused %.3f ms, beam_tau_z + %s %.3f ms", n, fusedMs, strategyName(r.st), sepMs)}, true, nil
	})
}

// rememberedDecision is a path decision (fused or transform) for a run of
// the shape named key: measured by an earlier run of this backend (mem),
// else by an earlier process on this device (file, unless
// Options.NoStrategyCache: the paths round differently in fp32, so
// measuring again where they are about as fast would let two runs of one
// input differ in their last bits), else by measure, whose decision is
// kept in both when keep says it is a measurement. Processes measuring
// one shape at once take turns (lockChoice); one that waits too long
// takes the path it always has, unmeasured (fused: false).
func (r *run) rememberedDecision(mem map[string]fusedDecision, key, file string, measure func() (d fusedDecision, keep bool, err error)) (fusedDecision, error) {
	if d, ok := mem[key]; ok {
		return fusedDecision{d.fused, d.why + " (in an earlier run of this shape)"}, nil
	}
	if !r.opt.NoStrategyCache {
		unlock, ok := r.lockChoice(file, key)
		defer unlock()
		if !ok {
			return fusedDecision{false, r.waitedTooLong(file)}, nil
		}
		if d, ok := readFusedCache(file, key); ok {
			mem[key] = d
			return fusedDecision{d.fused, d.why + " (cached choice)"}, nil
		}
	}
	d, keep, err := measure()
	if err != nil {
		return fusedDecision{}, err
	}
	if !keep {
		return d, nil
	}
	mem[key] = d
	if !r.opt.NoStrategyCache {
		writeFusedCache(file, key, d)
	}
	return d, nil
}

// firstCoordinates readies frequency 0's sky, beams and FP16 scale and
// time 0's coordinates in compaction slot 0 for a set-up measurement
// (what names it in errors), and returns the visible sources' count.
func (r *run) firstCoordinates(what string) (int, error) {
	if err := r.channelSky(0); err != nil {
		return 0, err
	}
	if err := r.prepareBeams(0); err != nil {
		return 0, err
	}
	r.setZScale(0)
	if err := r.queueCoords(0, 0, 0); err != nil {
		return 0, err
	}
	if err := r.c.SyncEvent(r.ev[0].c1); err != nil {
		return 0, fmt.Errorf("gpu: coordinates of the %s: %w", what, err)
	}
	return int(cuda.HostSlice[int32](r.hCount)[0]), nil
}

// measureFused times the two ways on the first chunk of frequency 0,
// time 0 (ms, gram.TimeMs: medians of three after a warm-up) and returns
// the chunk's visible sources (0: nothing to measure on).
func (r *run) measureFused() (fusedMs, sepMs float64, n int, err error) {
	nvis, err := r.firstCoordinates("fused-kernel measurement")
	if err != nil {
		return 0, 0, 0, err
	}
	size, _ := r.chunkPlan(nvis)
	n = min(size, nvis)
	if n == 0 {
		return 0, 0, 0, nil
	}
	ldz := r.ldz(n)
	zb := int64(r.M) * int64(ldz) * r.zsize
	scratch := zb + r.partBytes()
	if r.stacked {
		scratch += int64(n) * fusedFootBytes
	}
	r.mem.ScratchBytes = max(r.mem.ScratchBytes, scratch)
	z, err := r.c.Alloc(zb)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("gpu: fused-kernel measurement scratch Z: %w", err)
	}
	defer r.c.Free(z)
	part, err := r.c.Alloc(r.partBytes())
	if err != nil {
		return 0, 0, 0, fmt.Errorf("gpu: fused-kernel measurement scratch partials: %w", err)
	}
	defer r.c.Free(part)
	r.dPart = part
	defer func() { r.dPart = 0 }()
	if r.stacked {
		foot, err := r.c.Alloc(int64(n) * fusedFootBytes)
		if err != nil {
			return 0, 0, 0, fmt.Errorf("gpu: fused-kernel measurement scratch footprints: %w", err)
		}
		defer r.c.Free(foot)
		r.dFoot = foot
		defer func() { r.dFoot = 0 }()
	}
	sepMs, err = gram.TimeMs(r.c, r.s, 1, 3, func() error {
		if err := r.launchBTZ(0, 0, n, 0, z, r.s); err != nil {
			return err
		}
		return r.g.Accumulate(r.st, z, ldz, r.M, r.nf*n, r.dAcc, 1)
	})
	if err != nil {
		return 0, 0, 0, fmt.Errorf("gpu: fused-kernel measurement, separate path: %w", err)
	}
	fusedMs, err = gram.TimeMs(r.c, r.s, 1, 3, func() error {
		if err := r.launchFused(0, 0, n, 0); err != nil {
			return err
		}
		return r.launchReduce()
	})
	if err != nil {
		return 0, 0, 0, fmt.Errorf("gpu: fused-kernel measurement, fused kernel: %w", err)
	}
	return fusedMs, sepMs, n, nil
}

// kernelFlags are the polarized and feed-y flags of the Z kernels.
func (r *run) kernelFlags() (pol, feedY int32) {
	if r.sim.Mode.Polarized {
		pol = 1
	}
	if r.sim.Mode.Feed == beam.FeedY {
		feedY = 1
	}
	return pol, feedY
}

// omega is 2πν/c at frequency fi.
func (r *run) omega(fi int) float64 { return 2 * math.Pi * r.sim.Freqs[fi] / beam.SpeedOfLight }

// launchBTZ queues beam_tau_z for sources [p0, p0+n) of compaction slot sl
// at frequency fi, writing Z (leading dimension nf·n) on stream s.
func (r *run) launchBTZ(fi, sl, n, p0 int, z cuda.DevicePtr, s cuda.Stream) error {
	return r.k.makeZ(s, r.zArgs(fi, sl, n, p0, r.dCoef), antennasPerBlock, int64(r.ldz(n)), z)
}

// zArgs are the Z kernels' arguments for sources [p0, p0+n) of slot sl at
// frequency fi, with the gridded beams' planes at coef.
func (r *run) zArgs(fi, sl, n, p0 int, coef cuda.DevicePtr) zArgs {
	pol, feedY := r.kernelFlags()
	return zArgs{n: int32(n), p0: int32(p0), src: r.slot(sl), nant: int32(r.nant), antPos: r.dAnt, beamOf: r.dBeamOf,
		beams: deviceBeams{r.dDesc, r.dGeom, coef}, polarized: pol, feedY: feedY, omega: r.omega(fi), zscale: float32(r.zscale)}
}

// slot is compaction slot sl's visible sources.
func (cs *coordState) slot(sl int) compactSlot {
	return compactSlot{cs.dCe[sl], cs.dCn[sl], cs.dCu[sl], cs.dAmp[sl]}
}

// fusedGrid is gram_fused's block count for a chunk of n sources.
func (r *run) fusedGrid(n int) int {
	return max(1, min(r.fgBlocks, (n+r.fgTS-1)/r.fgTS))
}

// launchFused queues gram_fused for sources [p0, p0+n) of slot sl at
// frequency fi: one partial triangle per block into dPart, which
// launchReduce must add up before the next chunk reuses dPart.
func (r *run) launchFused(fi, sl, n, p0 int) error {
	r.fgLast = r.fusedGrid(n)
	coef := r.dCoef
	if r.stacked {
		coef = r.dCoefS
		if err := r.k.footprints(r.s, int32(n), int32(p0), r.dCe[sl], r.dCn[sl], r.dGeom, r.dFoot); err != nil {
			return err
		}
	}
	return r.k.fusedGram(r.s, r.fgLast, r.fusedThreads(), r.fusedShared(), r.zArgs(fi, sl, n, p0, coef), int32(r.M), r.dPart, r.dFoot, float32(r.zscale))
}

// launchReduce queues gram_reduce: the partial triangles of the last
// gram_fused launch added to the accumulator in float64.
func (r *run) launchReduce() error {
	return r.k.reduce(r.s, int32(r.fgLast), int32(r.M), r.dPart, r.dAcc)
}
