// The transform path: an integration's visibilities as one batch of
// type-3 non-uniform FFTs (matvis/nufftgpu) from the visible sources'
// directions to the baselines, instead of Z and its Gram product, for
// runs whose antennas all share one beam.

package gpu

import (
	"fmt"
	"runtime"
	"time"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/cuda/gram"
	"github.com/gomatvis/gomatvis/internal/choicecache"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/nufft"
	"github.com/gomatvis/gomatvis/matvis/nufftgpu"
)

// NUFFTMode is Options.NUFFT.
type NUFFTMode int

// The transform path's modes. NUFFTAuto is the zero value, and so the
// default (the path's kernels first ran on the H200 on 2026-12-02:
// bench/RESULTS.md).
const (
	// NUFFTAuto uses the transform for eligible runs when it is faster:
	// measured against the direct path on the first integration (the
	// decision cached on disk per shape), after a plan-free estimate has
	// ruled out runs whose whole product costs less than the transform's
	// set-up.
	NUFFTAuto NUFFTMode = iota
	// NUFFTOff never uses the transform.
	NUFFTOff
	// NUFFTOn uses it for every eligible run, without measuring; the
	// others take the direct path and say why.
	NUFFTOn
)

// String names the mode as the command line spells it.
func (m NUFFTMode) String() string {
	switch m {
	case NUFFTAuto:
		return "auto"
	case NUFFTOn:
		return "on"
	case NUFFTOff:
		return "off"
	}
	return fmt.Sprintf("NUFFTMode(%d)", int(m))
}

// ParseNUFFTMode reads "auto", "on" or "off".
func ParseNUFFTMode(s string) (NUFFTMode, error) {
	for _, m := range []NUFFTMode{NUFFTOff, NUFFTAuto, NUFFTOn} {
		if s == m.String() {
			return m, nil
		}
	}
	return 0, fmt.Errorf("nufft mode %q: want off, auto or on", s)
}

// The transform's accuracy (relative ℓ2, nufft.Options.Eps): in float32
// the grids' rounding adds a few 1e-7 (matvis/nufftgpu's tests), so a
// smaller ε than 1e-6 would buy little but a wider kernel; in float64
// 1e-12 keeps the visibilities within the direct path's agreement with
// the CPU (nufftcpu.DefaultEps).
const (
	nufftEpsSingle = 1e-6
	nufftEpsDouble = 1e-12
)

// nufftMaxGrid bounds the padded grid's points (a batch of up to four
// grids of 8 or 16 bytes a point): 2^26 points are 1 GiB a grid in
// float64, 4 GiB for a polarized batch.
const nufftMaxGrid = 1 << 26

// The plan-free estimate's constants (NUFFTAuto): the direct path does
// about directRate antenna-feed rows² × visible sources a second (the
// H200's prodslice, 700² × 5·10⁵ in 19 ms: bench/RESULTS.md; the bar's
// shared-beam shape, 700² × 5·10⁵, measured 18.4–19.4 ms), and the
// transform's set-up costs about nufftSetupSeconds: on the H200
// (2026-12-02) its plans, grids and transform took 36–42 ms in a backend
// that had compiled nufft.cu and 141 ms with the compile and the
// measurement on the first integration in a fresh one. A run whose whole
// product is estimated below the set-up is left to the direct path
// without building anything.
const (
	directRate        = 1.3e13
	nufftSetupSeconds = 0.15
)

// termNUFFT is the memory term of the transform's strengths.
const termNUFFT = "gpu_nufft_strengths"

// nufftStage is the transform path's state: whether the run uses it (why
// is in the result's MatProdImpl), the shared beam, the transform (its
// grids, plans and kernels its own) and the strengths buffer.
type nufftStage struct {
	used bool
	beam int32 // the beam every antenna shares
	dim  int   // 2 (east, north) or 3 (with up: a non-coplanar array)
	eps  float64
	prec nufftgpu.Precision
	nv   int    // strength vectors: feeds²
	grid [3]int // every channel's outer grid: the highest channel's
	// lay is the highest channel's plan layout (its kernel and grids).
	lay nufft.Layout
	// tr is the transform, its targets those of channel planFor.
	tr      *nufftgpu.Transform
	planFor int
	// ahead makes the next channels' targets on the host meanwhile
	// (nil: one channel, or not yet used); measured is channel 1's,
	// made when the choice timed them (channelBound), for ahead.
	ahead    *targetsAhead
	measured *nufftgpu.Targets
	dStr     cuda.DevicePtr
	// kept is the backend's kept transform for this run's key (taken
	// from resident by nufftEligibility; its tr moved to tr when the run
	// reuses it) or a new one that will keep this run's; its targets are
	// the channels' made for the key. keep, set once the run has finished
	// without error, gives tr and kept back to the backend at close.
	kept *keptTransform
	keep bool
}

// nufftEligibility says whether the run could go through the transform
// and, when not, why (kept for the result's description).
func (r *run) nufftEligibility() error {
	r.nu = &nufftStage{planFor: -1}
	why := r.nufftIneligible()
	if why == "" {
		r.takeKeptTransform()
		return nil
	}
	r.nu = nil
	r.keep.transform.close() // no run of its key follows: its memory back
	r.keep.transform = nil
	if r.opt.NUFFT != NUFFTOff {
		r.nufftWhy = "transform not used: " + why
	}
	return nil
}

// nufftIneligible is why the run cannot use the transform ("" when it can).
func (r *run) nufftIneligible() string {
	sim := r.sim
	switch {
	case r.opt.NUFFT == NUFFTOff:
		return "off (Options.NUFFT)"
	case r.polSky:
		return "a full-Stokes sky (its coherency is transformed on the CPU only: matvis/nufftcpu)"
	}
	// Different beams first: of the reasons, the one no option changes.
	if reps, _ := beam.Groups(sim.Beams, sim.BeamOf); len(reps) > 1 {
		return fmt.Sprintf("antennas with different beams (%d beams; the transform needs one shared by all)", len(reps))
	}
	if sim.Options.MinChunks > 1 {
		return fmt.Sprintf("Options.MinChunks = %d asks for source chunks (the transform takes every source at once)", sim.Options.MinChunks)
	}
	r.nu.beam = int32(sim.BeamOf[0])
	return ""
}

// chooseNUFFT settles the transform path for an eligible run: forced,
// ruled out by the plan-free estimate, a decision cached for the shape,
// or measured against the direct path on the first integration. A run
// that uses it frees the direct path's Z and partials.
func (r *run) chooseNUFFT() error {
	if r.nu == nil {
		r.noteNUFFT()
		return nil
	}
	nu := r.nu
	if r.opt.NUFFT == NUFFTAuto {
		if est := r.directEstimate(); est < r.tune.nufftSetup {
			r.dropNUFFT(fmt.Sprintf("the direct product is estimated at %.3g s in all, under the transform's set-up (%.3g s)", est, r.tune.nufftSetup))
			return nil
		}
	}
	if why, err := r.setupNUFFT(); err != nil || why != "" {
		if err != nil {
			return err
		}
		r.dropNUFFT(why)
		return nil
	}
	use, why := true, "forced (Options.NUFFT)"
	if r.opt.NUFFT == NUFFTAuto {
		d, err := r.nufftDecision()
		if err != nil {
			return err
		}
		use, why = d.fused, d.why
	}
	if !use {
		r.dropNUFFT(why)
		return nil
	}
	nu.used = true
	r.fused, r.stacked = false, false
	r.freeDev(&r.dZ)
	r.freeDev(&r.dPart)
	r.freeDev(&r.dFoot)
	r.res.Stats.ZBytes = 8
	r.transformPlan()
	if r.sim.NFreq() > 1 {
		var made map[int]*nufftgpu.Targets
		if nu.measured != nil {
			made = map[int]*nufftgpu.Targets{1: nu.measured}
		}
		nu.ahead, nu.measured = newTargetsAhead(r.channelTargets, r.sim.NFreq(), 1, made), nil
	}
	l := nu.lay
	r.res.Stats.MatProdImpl = matvis.GramImpl{MatProd: r.sim.Options.MatProd,
		Strategy: fmt.Sprintf("nufft type 3 on the device, %d-D, %v, eps %g (kernel width %d), outer grid %v", nu.dim, nu.prec, nu.eps, l.W, nu.grid[:nu.dim]),
		Why:      why,
		Transform: &matvis.TransformShape{Dim: nu.dim, Width: l.W, Outer: l.NF[0] * l.NF[1] * l.NF[2], Padded: l.N2[0] * l.N2[1] * l.N2[2],
			Targets: r.npairs, PerTime: nu.nv}}
	return nil
}

// dropNUFFT leaves the run to the direct path, saying why in the result.
func (r *run) dropNUFFT(why string) {
	r.nu.close(r)
	r.nu = nil
	r.nufftWhy = "transform not used: " + why
	r.noteNUFFT()
}

// noteNUFFT adds why the transform is not used to the product's Why.
func (r *run) noteNUFFT() {
	g := &r.res.Stats.MatProdImpl
	switch {
	case r.nufftWhy == "":
	case g.Why == "":
		g.Why = r.nufftWhy
	default:
		g.Why += "; " + r.nufftWhy
	}
}

// directEstimate is the plan-free estimate of the direct path's product
// over the whole run, in seconds (directRate; about half the sky is up).
func (r *run) directEstimate() float64 {
	m := float64(r.M)
	return m * m * 0.5 * float64(r.nsrc) * float64(r.sim.NFreq()*r.sim.NTime()) / directRate
}

// setupNUFFT makes the transform — the backend's kept one for the run's
// key (a block of a streamed run after the first, with its targets), or
// a new one planned on the highest channel's grids (every channel's) —
// pointed at channel 0, and the strengths buffer. A why that is not ""
// is a reason the run cannot use the transform after all (a grid too
// large, no cuFFT).
func (r *run) setupNUFFT() (why string, err error) {
	nu := r.nu
	if nu.kept.tr != nil {
		err = r.reuseTransform()
	} else {
		why, err = r.newTransform()
	}
	if why != "" || err != nil {
		return why, err
	}
	if err := nu.tr.ReservePoints(r.nsrc); err != nil {
		return fmt.Sprintf("the device transform's points: %v", err), nil
	}
	cb := int64(nu.nv) * 2 * r.rsize
	if nu.dStr, err = r.alloc(termNUFFT, int64(r.nsrc)*cb); err != nil {
		return fmt.Sprintf("the transform's strengths: %v", err), nil
	}
	return "", nil
}

// newTransform plans the run's transform and makes it on the device for
// channel 0.
func (r *run) newTransform() (why string, err error) {
	pl, why, err := r.planNUFFT()
	if why != "" || err != nil {
		return why, err
	}
	if r.nu.tr, err = nufftgpu.NewBatchCompiled(r.c, pl, r.nu.prec, r.nu.nv, r.s, r.keep.module); err != nil {
		return fmt.Sprintf("the device transform: %v", err), nil
	}
	return "", nil
}

// planNUFFT is newTransform's host part: the highest channel's grids
// (every channel's) and channel 0's plan (the precision, accuracy,
// vectors and dimension are the run's key's: takeKeptTransform). A why
// that is not "" is a reason the run cannot use the transform (a grid
// too large).
func (r *run) planNUFFT() (pl *nufft.Plan, why string, err error) {
	nu, sim := r.nu, r.sim
	top := sim.TopChannel()
	pl, err = r.nufftPlan(top, runtime.GOMAXPROCS(0))
	if err != nil {
		return nil, fmt.Sprintf("transform grid too large at %g Hz: %v", sim.Freqs[top], err), nil
	}
	l := pl.Layout()
	nu.grid, nu.lay = l.NF, l
	if pl, err = r.nufftPlan(0, runtime.GOMAXPROCS(0)); err != nil {
		return nil, "", fmt.Errorf("gpu: transform plan at %g Hz: %w", sim.Freqs[0], err)
	}
	if tg, err := nufftgpu.NewTargets(pl, nu.prec); err == nil {
		nu.kept.keepTargets(r.omega(0), tg) // for the next run's channel 0
	}
	nu.planFor = 0
	return pl, "", nil
}

// nufftPlan plans channel fi's transform on the host: points in the box
// of directions above the horizon (east and north in [−1, 1], up in
// [0, 1]), targets ω·(x_j − x_i) for every output pair, centred at 0
// (Options.Real) so that the device places the points with no pre-phase,
// on the highest channel's grids once they are known, with workers
// goroutines.
func (r *run) nufftPlan(fi, workers int) (*nufft.Plan, error) {
	sim, nu := r.sim, r.nu
	box := [][]float64{{-1, 1}, {-1, 1}, {0, 1}}[:nu.dim]
	omega := r.omega(fi)
	s := make([][]float64, nu.dim)
	for d := range s {
		s[d] = make([]float64, len(sim.Pairs))
		for k, p := range sim.Pairs {
			s[d][k] = omega * (sim.Antennas[p[1]][d] - sim.Antennas[p[0]][d])
		}
	}
	return nufft.NewPlan(box, s, nufft.Options{Eps: nu.eps, Sign: 1, Workers: workers, MaxGrid: nufftMaxGrid, Real: true, MinGrid: nu.grid})
}

// channelTargets plans channel fi on one goroutine and prepares its
// targets for the device (targetsAhead's maker: several run at once).
// Targets kept for the run's key (an earlier run's or block's) are taken
// as they are.
func (r *run) channelTargets(fi int) (*nufftgpu.Targets, error) {
	omega := r.omega(fi)
	if tg := r.nu.kept.targetsFor(omega); tg != nil {
		return tg, nil
	}
	pl, err := r.nufftPlan(fi, 1)
	if err != nil {
		return nil, fmt.Errorf("gpu: transform plan at %g Hz: %w", r.sim.Freqs[fi], err)
	}
	tg, err := nufftgpu.NewTargets(pl, r.nu.prec)
	if err != nil {
		return nil, err
	}
	r.nu.kept.keepTargets(omega, tg)
	return tg, nil
}

// nufftChannel points the transform at channel fi's targets, made ahead
// on the host where they could be.
func (r *run) nufftChannel(fi int) error {
	nu := r.nu
	if nu == nil || !nu.used || nu.planFor == fi {
		return nil
	}
	var tg *nufftgpu.Targets
	var err error
	if nu.ahead != nil {
		tg, err = nu.ahead.get(fi)
	} else {
		tg, err = r.channelTargets(fi)
	}
	if err != nil {
		return err
	}
	if err := nu.tr.RetargetTo(tg); err != nil {
		return fmt.Errorf("gpu: %g Hz: %w", r.sim.Freqs[fi], err)
	}
	nu.planFor = fi
	return nil
}

// queueNUFFT queues integration (fi, ·)'s transform from compaction slot
// sl's nvis visible sources and its output copy, timed as one chunk:
// tau_z the strengths (the beam evaluated inside) and the spread,
// matprod the deconvolution, FFT and interpolation into the output.
func (r *run) queueNUFFT(fi, sl, nvis int) error {
	ev := &r.ev[sl]
	c, nu := r.c, r.nu
	if err := c.Record(ev.s, r.s); err != nil {
		return err
	}
	if nvis == 0 {
		nout := int64(r.npairs * r.nf * r.nf)
		if err := c.Memset8(r.dOut, 0, nout*r.osize, r.s); err != nil {
			return err
		}
		return r.copyOutput(sl)
	}
	if err := r.chunkEvents(ev, 1); err != nil {
		return err
	}
	e := ev.chunk[0]
	pol, feedY := r.kernelFlags()
	slot := r.slot(sl)
	steps := []func() error{
		func() error { return c.Record(e[0], r.s) },
		func() error {
			return r.k.strengths(r.s, int32(nvis), slot, nu.beam, deviceBeams{r.dDesc, r.dGeom, r.dCoef}, pol, feedY, nu.dStr)
		},
		func() error { return nu.tr.Place(nvis, [3]cuda.DevicePtr{slot.e, slot.n, slot.u}) },
		func() error { return nu.tr.ExecuteInterleaved(nu.dStr, r.dOut, e[1]) },
		func() error { return c.Record(e[2], r.s) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return fmt.Errorf("gpu: transform at %g Hz: %w", r.sim.Freqs[fi], err)
		}
	}
	return r.copyOutput(sl)
}

// copyOutput queues the copy of the output pairs to slot sl's host buffer
// and the slot's output event.
func (r *run) copyOutput(sl int) error {
	nout := int64(r.npairs * r.nf * r.nf)
	if err := r.c.CopyDtoH(r.hOut[sl].Ptr(), r.dOut, nout*r.osize, r.s); err != nil {
		return err
	}
	return r.c.Record(r.ev[sl].o, r.s)
}

// nufftDecision measures the transform and the direct path on the first
// integration, or takes the decision measured for a run of this shape (in
// this process or, cached on disk, an earlier one: the two paths round
// differently, so measuring again where they are close would let two
// runs of one input differ).
func (r *run) nufftDecision() (fusedDecision, error) {
	return r.rememberedDecision(r.keep.nufftChoice, r.nufftCacheKey(), nufftCachePath(), func() (fusedDecision, bool, error) {
		nuMs, directMs, nvis, err := r.measureNUFFT()
		if err != nil || nvis == 0 {
			return fusedDecision{why: "no visible source at the first time to measure on"}, false, err
		}
		why := fmt.Sprintf("measured on the first integration (%d visible sources): transform %.3f ms, direct path %.3f ms", nvis, nuMs, directMs)
		perInt, prep, err := r.channelBound(nuMs)
		if err != nil {
			return fusedDecision{}, false, err
		}
		if prep > 0 {
			why += fmt.Sprintf("; a channel's targets %.1f ms on the host, %d made at once: at least %.3f ms an integration at %d times a channel", prep, aheadWorkers(), perInt, r.sim.NTime())
		}
		return fusedDecision{fused: perInt < directMs, why: why}, true, nil
	})
}

// channelBound is the transform's time per integration in a run of
// several channels, as the pipeline bounds it: the device's nuMs, or the
// host's making of each channel's targets (prep ms, timed here on one
// goroutine as targetsAhead makes them, and kept for it) over its
// workers and the channel's times, whichever is longer. One channel:
// nuMs, prep 0.
func (r *run) channelBound(nuMs float64) (perInt, prep float64, err error) {
	if r.sim.NFreq() < 2 {
		return nuMs, 0, nil
	}
	t0 := time.Now()
	if r.nu.measured, err = r.channelTargets(1); err != nil {
		return 0, 0, err
	}
	prep = time.Since(t0).Seconds() * 1e3
	return max(nuMs, prep/float64(aheadWorkers()*r.sim.NTime())), prep, nil
}

// nufftCacheKey names a transform decision: the device, its driver and
// the run's shape.
func (r *run) nufftCacheKey() string {
	info := r.c.Info()
	_, analytic := r.sim.Beams[r.nu.beam].(beam.Analytic)
	gridded := !analytic
	return fmt.Sprintf("%s|drv%d|p1=%v|nf%d|nant%d|pairs%d|src%d|freqs%d|times%d|dim%d|gridded=%v|direct=%s|fused=%v",
		info.Name, info.DriverVersion, r.p1, r.nf, r.nant, r.npairs, r.nsrc, r.sim.NFreq(), r.sim.NTime(), r.nu.dim, gridded, r.st, r.fused)
}

func nufftCachePath() string { return choicecache.Path("nufft-choices.json") }

// measureNUFFT times one integration (frequency 0, time 0) both ways
// (ms, gram.TimeMs: medians of three after a warm-up), each with its
// output copy, and returns its visible sources (0: nothing to measure
// on). The output buffers are poisoned again afterwards.
func (r *run) measureNUFFT() (nuMs, directMs float64, nvis int, err error) {
	if nvis, err = r.firstCoordinates("transform measurement"); err != nil {
		return 0, 0, 0, err
	}
	if nvis == 0 {
		return 0, 0, 0, nil
	}
	t0 := time.Now()
	if directMs, err = gram.TimeMs(r.c, r.s, 1, 3, func() error { return r.queueChunks(0, 0, nvis) }); err != nil {
		return 0, 0, 0, fmt.Errorf("gpu: transform measurement, direct path: %w", err)
	}
	if nuMs, err = gram.TimeMs(r.c, r.s, 1, 3, func() error { return r.queueNUFFT(0, 0, nvis) }); err != nil {
		return 0, 0, 0, fmt.Errorf("gpu: transform measurement, transform: %w", err)
	}
	r.res.Stats.SetupSteps = append(r.res.Stats.SetupSteps, matvis.TimedStep{Name: "transform measurement", Time: time.Since(t0)})
	if err := r.c.SyncStream(r.s); err != nil {
		return 0, 0, 0, err
	}
	return nuMs, directMs, nvis, r.poisonOutput()
}

// close releases the strengths, and the transform unless the run
// finished with it (keep): then the backend keeps it with its targets
// for a next run of its key (nil: nothing to do).
func (nu *nufftStage) close(r *run) {
	if nu == nil {
		return
	}
	nu.ahead.close()
	nu.ahead = nil
	if nu.keep && nu.used && nu.tr != nil && nu.planFor >= 0 {
		nu.kept.tr, nu.kept.lay, nu.kept.omega = nu.tr, nu.lay, r.omega(nu.planFor)
		r.keep.transform.close() // a run between took none (one at a time)
		r.keep.transform = nu.kept
	} else {
		_ = nu.tr.Close()
		nu.kept.close()
	}
	nu.tr, nu.kept = nil, nil
	r.freeDev(&nu.dStr)
}

// transformPlan makes the result's memory plan the transform path's: one
// chunk of every source, the direct path's Z and Gram terms replaced by
// the transform's grids and strengths (what its device holds).
func (r *run) transformPlan() {
	nu, p := r.nu, &r.res.Plan
	var terms []matvis.MemoryTerm
	for _, t := range p.Terms {
		if t.Name != matvis.TermZ {
			terms = append(terms, t)
		}
	}
	cb := int64(nu.nv) * 2 * r.rsize
	terms = append(terms, matvis.MemoryTerm{Name: "gpu_nufft_transform", Bytes: nu.tr.Bytes()},
		matvis.MemoryTerm{Name: termNUFFT, Bytes: int64(r.nsrc) * cb})
	var total int64
	for _, t := range terms {
		total += t.Bytes
	}
	*p = matvis.MemoryPlan{Budget: p.Budget, NChunks: 1, SourcesPerChunk: r.nsrc, BufferSources: r.nsrc, Terms: terms, Total: total, Fits: p.Fits}
}
