// Package nufftcpu is a CPU backend that computes each integration's
// visibilities as one type-3 non-uniform FFT (matvis/nufft) from the
// visible sources' directions to the baselines, instead of the direct
// product over antennas and sources.
//
// With one beam A shared by every antenna, the visibility equation of
// docs/matvis-conventions.md §1 becomes
//
//	V_ij = Σ_s ½·I_s·|A(ŝ)|² · exp(+i·ω·(x_j − x_i)·ŝ),  ω = 2πν/c,
//
// a type-3 transform with points ŝ (east, north, up), strengths
// ½·I_s·|A(ŝ)|² and targets ω·(x_j − x_i): its cost grows like
// (N_src + N_pairs)·w^d plus an FFT of the uv(w) grid, not like
// N_ant²·N_src. The transform is two-dimensional (east, north) when every
// antenna has the same up coordinate, the w-term then being zero. With
// w-terms it is either a short Jacobi–Anger sum of 2-D transforms
// (wterms.go) or one 3-D transform, whichever a cost model estimates
// cheaper. A chooser (choose.go) then picks the transform or the direct
// product: by the cost model where one estimate is clearly below the
// other, by measuring both on the machine at hand (remembered per run
// shape) where they are close; Backend.Force turns it off. An
// unpolarized run's strengths are real, and its transforms
// nufft.Plan.ExecuteReal (half the FFT).
//
// A polarized run makes four transforms, one per output feed pair (p, q),
// of the strengths ½·I_s·Σ_k conj(A[q,k])·A[p,k]; two when every output
// pair's reverse is output too (all pairs, the default), by packing the
// two real diagonal strengths into one complex transform and taking
// (q, p) from the reverse pair (storePaired). A precision-1 run rounds
// the ENU vectors to float32 as matvis does, transforms in float64 at
// ε = max(eps, 1e-7) and stores complex64.
//
// Antennas in up to MaxGroups groups, each sharing a beam, make one set of
// transforms per group pair (groups.go).
//
// A full-Stokes sky transforms each source's coherency between the beams'
// Jones terms (stokes.go).
//
// Simulations the transform does not cover run on the direct CPU backend
// (matvis/cpu), and the result says why in Stats.MatProdImpl.Why:
// more than MaxGroups beam groups, Options.MinChunks
// above 1, transforms the chooser finds slower, and transforms whose grids exceed
// 2^27 points or whose memory (Plan.Bytes and the per-source buffers,
// passed to CheckHostMemory) does not fit the budget.
//
// The stages are timed in the chunk samples as: coords (ENU vectors,
// horizon cut, az/za), beam (the beam's evaluation), tau_z (strengths and
// spreading onto the fine grid), matprod (the FFT and the interpolation
// to the baselines) and other (the copy into the result).
package nufftcpu

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/gomatvis/gomatvis/internal/blocks"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/cpu"
	"github.com/gomatvis/gomatvis/matvis/nufft"
)

// fp32Eps is the least ε of a precision-1 run: its output is complex64.
const fp32Eps = 1e-7

// DefaultEps is the transform's accuracy when New is given 0: the
// visibilities then agree with the direct product within 1e-10 of the
// peak (TestAgainstDirect's bar; measured 2.7e-13 to 5.0e-12).
const DefaultEps = 1e-12

// maxGrid bounds a transform's padded grid (16 bytes a point): 2^27
// points are 2 GiB.
const maxGrid = 1 << 27

// Backend is the NUFFT CPU backend. Its zero value is not usable; call
// New.
type Backend struct {
	// Force skips the chooser (choose.go): every eligible simulation
	// whose transform fits runs as transforms, even where the direct
	// product is estimated or measured faster (tests; measurements).
	Force bool
	// W chooses how a non-coplanar array's w-terms are transformed.
	W WTerms
	// TrialCache is the file the chooser keeps its measurements in
	// between processes (trialcache.go; "": none, every process measures
	// its own close calls). DefaultTrialCache is the command line's.
	TrialCache string
	// TrialWait bounds how long a run waits for another process
	// measuring its shape into TrialCache (0: DefaultTrialWait); past
	// it, the cost model decides (trialcache.go).
	TrialWait time.Duration

	direct  *cpu.Backend
	eps     float64
	workers int
	// trials are the chooser's measurements by run shape; measure
	// takes them (Backend.trial; tests inject their own).
	mu      sync.Mutex
	trials  map[shape]measured
	measure func(context.Context, *run) (measured, error)
	// onStage, when set (by tests), is called as each stage of an
	// integration begins (StageMatProd: the transforms; NumStages: the
	// integration's end), so that a test can cancel inside a stage.
	onStage func(matvis.Stage)
}

// WTerms is how the w-terms of a non-coplanar array are transformed.
type WTerms int

// The w-term methods.
const (
	// WAuto picks the cheaper estimate of WJacobiAnger and W3D.
	WAuto WTerms = iota
	// WJacobiAnger sums a few 2-D transforms (wterms.go).
	WJacobiAnger
	// W3D makes one 3-D transform.
	W3D
)

// New returns a backend transforming to accuracy eps (0: DefaultEps) on
// workers goroutines (0: GOMAXPROCS), with the direct CPU backend for the
// simulations the transform does not cover.
func New(eps float64, workers int) (*Backend, error) {
	if eps == 0 {
		eps = DefaultEps
	}
	if !(eps >= nufft.MinEps && eps <= nufft.MaxEps) {
		return nil, fmt.Errorf("nufftcpu: eps = %g outside [%g, %g]", eps, nufft.MinEps, nufft.MaxEps)
	}
	if workers < 0 {
		return nil, fmt.Errorf("nufftcpu: workers = %d is negative", workers)
	}
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	b := &Backend{direct: cpu.New(), eps: eps, workers: workers}
	b.measure = b.trial
	return b, nil
}

// Name returns "nufftcpu".
func (b *Backend) Name() string { return "nufftcpu" }

// Close closes the direct backend it falls back on.
func (b *Backend) Close() error { return b.direct.Close() }

// Eligible reports whether sim's visibilities can be computed as
// transforms and, when not, why.
func Eligible(sim *matvis.Simulation) (bool, string) {
	if n := sim.Options.MinChunks; n > 1 {
		return false, fmt.Sprintf("Options.MinChunks = %d asks for source chunks (the transform takes every source at once)", n)
	}
	if reps, _ := beamGroups(sim); len(reps) > MaxGroups {
		return false, fmt.Sprintf("antennas with %d different beams (more than %d beam groups)", len(reps), MaxGroups)
	}
	return true, ""
}

// Run simulates every frequency and time of sim: as transforms when
// Eligible and the chooser (choose.go) picks them, on the direct CPU
// backend otherwise.
func (b *Backend) Run(ctx context.Context, sim *matvis.Simulation) (*matvis.Result, error) {
	if ok, why := Eligible(sim); !ok {
		return b.runDirect(ctx, sim, why)
	}
	start := time.Now()
	if err := sim.CheckHostMemory(); err != nil {
		return nil, fmt.Errorf("nufftcpu: %w", err)
	}
	if !b.Force {
		if e, err := b.lowerBound(sim); err == nil && e.nufft > clearMargin*e.direct {
			_, why, _ := choose(e, nil)
			return b.runDirect(ctx, sim, why+" at least, before any plan")
		}
	}
	r, err := newRun(b, sim)
	if err != nil {
		var tooBig *fallbackError
		if errors.As(err, &tooBig) {
			return b.runDirect(ctx, sim, tooBig.Error())
		}
		return nil, err
	}
	terms := r.memoryTerms()
	if err := sim.CheckHostMemory(terms...); err != nil {
		return b.runDirect(ctx, sim, fmt.Sprintf("the transform's memory does not fit: %v", err))
	}
	useNUFFT, why, needTrial := true, "forced (Backend.Force)", false
	release := func() {}
	if !b.Force {
		useNUFFT, why, needTrial, release = b.decide(r)
		defer release()
	}
	if !useNUFFT && !needTrial {
		return b.runDirect(ctx, sim, why)
	}
	r.init(terms)
	r.res.Stats.Setup = time.Since(start)
	if needTrial {
		m, err := b.measure(ctx, r)
		if err != nil {
			r.res.Stats.Total = time.Since(start)
			return r.res, err
		}
		b.remember(r.shapeOf(), m)
		release()
		if useNUFFT, why, _ = choose(r.estimates(), &m); !useNUFFT {
			return b.runDirect(ctx, sim, why)
		}
	}
	r.res.Stats.MatProdImpl.Why += "; " + why
	err = r.loop(ctx, sim.NFreq()*sim.NTime())
	r.res.Stats.Total = time.Since(start)
	return r.res, err
}

// runDirect runs sim on the direct backend and says why in the result.
func (b *Backend) runDirect(ctx context.Context, sim *matvis.Simulation, why string) (*matvis.Result, error) {
	res, err := b.direct.Run(ctx, sim)
	if res != nil {
		res.Stats.Backend = b.Name()
		w := "direct product: " + why
		if res.Stats.MatProdImpl.Why != "" {
			w += "; " + res.Stats.MatProdImpl.Why
		}
		res.Stats.MatProdImpl.Why = w
	}
	if err != nil {
		return res, fmt.Errorf("nufftcpu (direct: %s): %w", why, err)
	}
	return res, nil
}

// fallbackError is why a simulation the transform covers runs on the
// direct product after all: a grid over maxGrid or more w-terms than
// maxTerms.
type fallbackError struct{ err error }

func (e *fallbackError) Error() string { return e.err.Error() }

// run is one simulation's state, or with beam groups one group pair's
// (a job, groups.go): the first job runs the loop, holds the others in
// jobs and shares its sources' coordinates with them.
type run struct {
	// ctx is the running loop's (every job's): the transforms stop soon
	// after it is done, within an integration.
	ctx context.Context
	b   *Backend
	sim *matvis.Simulation
	res *matvis.Result
	// beam and beam2 are the beams of the pairs' first and second
	// antennas (equal for one shared beam); pairs are the output pairs
	// the run transforms to, out their output indices (nil: pairs is
	// sim.Pairs), and mirror, for a job of two different beams, the
	// output index of each pair's reverse (−1: not output), which gets
	// the conjugate (groups.go).
	beam, beam2 int
	pairs       [][2]int
	out, mirror []int
	jobs        []*run
	dim         int // 2: east, north; 3: with up
	// plan is the transform of channel planFor (−1: none).
	plan    *nufft.Plan
	planFor int
	top     int // the highest channel
	// terms > 0 is the number of Jacobi–Anger terms of the w-terms
	// (wterms.go), with ja[n][k] their coefficients at pair k; 0 when
	// the transform is 2-D without w or 3-D.
	terms int
	ja    [][]complex128
	pack  bool          // two real-strength terms a transform (wterms.go)
	tally *matvis.Tally // the integrations finished (loop)
	// rev is the index of each pair's reverse, nil when some pair has
	// none (a polarized run then makes four transforms, not two).
	rev []int
	// targets are the pairs transformed to: every output pair, or for an
	// unpolarized run with every reverse (half != nil) one of each pair
	// and its reverse, half[h] being target h's output pair.
	targets [][2]int
	half    []int
	buffers
}

// buffers are a run's working arrays, grown as needed and reused across
// integrations.
type buffers struct {
	// base are an integration's strengths before the w-terms' factors;
	// tau, tPrev, tCur the Chebyshev recurrence in the up component; acc
	// the visibilities summed over the terms.
	base, acc               []complex128
	tau, tPrev, tCur, tNext []float64
	flux                    []float64
	enu                     [3][]float64   // the current time's ENU vectors
	topo                    [][3][]float64 // every time's, when cached (enuAt)
	coords                  [3][]float64   // the visible sources' directions
	vis                     []int          // the visible sources
	// outer and padded are the grids every channel's plan works in,
	// sized for the highest channel's.
	outer, padded []complex128
	az, za        []float64
	amp, amp2     []complex128         // beam's and beam2's responses
	ampBuf        map[int][]complex128 // every beam's, by beam index
	pol           *polSky              // a full-Stokes sky (stokes.go)
	str           []complex128
	rstr          []float64 // real strengths (realStrengths)
	f             []complex128
}

// newRun checks the sizes and makes the plan of the highest channel: the
// transform's grid grows with the frequency, so if that one fits, every
// channel's does. Each channel then makes its own plan when it starts
// (one plan held at a time: a plan holds its grids); the baselines are
// fixed, so a channel's targets and their kernel corrections are made
// once, and each integration only sets its sources.
func newRun(b *Backend, sim *matvis.Simulation) (*run, error) {
	var jobs []*run
	for _, spec := range jobsOf(sim) {
		r, err := newJob(b, sim, spec)
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, r)
	}
	lead := jobs[0]
	lead.jobs = jobs[1:]
	return lead, nil
}

// newJob is newRun for one job: the transforms to spec's pairs.
func newJob(b *Backend, sim *matvis.Simulation, spec jobSpec) (*run, error) {
	r := &run{b: b, sim: sim, beam: spec.beam, beam2: spec.beam2, pairs: spec.pairs, out: spec.out, mirror: spec.mirror, dim: 2, planFor: -1}
	r.rev = reversePairs(r.pairs)
	r.targets = r.pairs
	half, halfTargets := r.halfTargets()
	if half != nil {
		r.half, r.targets = half, halfTargets
	}
	top := sim.TopChannel()
	r.top = top
	z0 := sim.Antennas[0][2]
	coplanar := true
	for _, x := range sim.Antennas {
		coplanar = coplanar && x[2] == z0
	}
	if coplanar {
		if err := r.planChannel(top); err != nil {
			return nil, err
		}
		return r, nil
	}
	// The w-terms: a few 2-D transforms (Jacobi–Anger, see wterms.go),
	// or one 3-D transform, whichever is estimated cheaper.
	errJA := fmt.Errorf("w-terms need more than %d Jacobi–Anger terms", maxTerms)
	costJA := math.Inf(1)
	var planJA *nufft.Plan
	termsJA := r.jaTermsAt(top)
	if termsJA <= maxTerms && b.W != W3D {
		r.terms = termsJA
		if half != nil {
			// Real strengths again, but packed two terms a transform
			// (wterms.go), which needs every pair's target.
			r.pack, r.half, r.targets = true, nil, r.pairs
		}
		if errJA = r.planChannel(top); errJA == nil {
			costJA, planJA = r.jobCost(), r.plan
		}
	}
	if b.W != WJacobiAnger {
		r.dim, r.terms, r.planFor = 3, 0, -1
		r.pack, r.half, r.targets = false, half, r.pairs
		if half != nil {
			r.targets = halfTargets
		}
		err3 := r.planChannel(top)
		if err3 == nil && (planJA == nil || r.jobCost() < costJA) {
			return r, nil
		}
		if planJA == nil {
			if err3 != nil {
				return nil, err3
			}
			return nil, &fallbackError{errJA}
		}
	}
	if planJA == nil {
		return nil, &fallbackError{errJA}
	}
	// r.ja still holds the JA plan's coefficients.
	r.dim, r.terms, r.plan, r.planFor = 2, termsJA, planJA, top
	r.pack, r.half, r.targets = half != nil, nil, r.pairs
	return r, nil
}

// halfTargets are, for an unpolarized run whose pairs all have their
// reverse, the pairs that get a target and those targets: real strengths
// give V(−s) = conj(V(s)), so each pair and its reverse need one, and a
// pair listed twice (one reverse index) gets its own when not yet covered,
// as itself or as a reverse. nil for any other run.
func (r *run) halfTargets() (half []int, targets [][2]int) {
	if r.sim.NFeed() != 1 || r.rev == nil {
		return nil, nil
	}
	covered := make([]bool, len(r.pairs))
	for k, p := range r.pairs {
		if covered[k] {
			continue
		}
		covered[k], covered[r.rev[k]] = true, true
		half = append(half, k)
		targets = append(targets, p)
	}
	return half, targets
}

// The cost model's constants, CPU nanoseconds measured on the 2-core
// machine of bench/RESULTS.md (2026-12-01, one worker, CPU time): a
// point's or target's kernel weights per axis (table.go: 50 ns for 13),
// a grid tap (spread 43 ms for 9·10⁴ points of 169 taps), an FFT point per
// log2 of the grid (150 ms for the pruned 2500² grid), and a complex
// multiply-add of the direct Gram product (2.44 s of wall time on two
// cores for 350² antennas × 9·10⁴ sources); and what both paths spend on
// a visible source (its ENU vector, horizon cut, az/za and beam: 7.4 ms
// of wall time for 4.5·10⁴ sources, 8 antennas, 2026-12-01) and what the
// direct one adds per antenna and source (its phase and Z entry: the
// 8-antenna, 10⁵-source direct run's 27–32 ms of CPU time less the
// rest).
const (
	nsWeights = 50
	nsTap     = 2
	nsFFT     = 1.1
	nsDirect  = 0.44
	nsSource  = 150
	nsZ       = 40
)

// cost is the estimated CPU time (ns) of one integration as transforms,
// every job's.
func (r *run) cost() float64 {
	c := r.jobCost()
	for _, j := range r.jobs {
		c += j.jobCost()
	}
	return c
}

// jobCost is the estimated CPU time (ns) of one integration of this
// job's transforms with its current plan, about half the sources being
// above the horizon.
func (r *run) jobCost() float64 {
	w, _ := r.plan.Kernel()
	terms := max(r.terms, 1)
	if r.pack {
		terms = (terms + 1) / 2
	}
	one := transformCost(w, r.dim, r.plan.Grid(), float64(r.sim.NSrc())/2, len(r.targets), r.realStrengths())
	return one * float64(terms*r.transformsPerTerm())
}

// transformCost is the estimated CPU time (ns) of one transform of
// kernel width w and padded grid grid (dim axes), from nvis points to
// ntargets targets, with real strengths or not.
func transformCost(w, dim int, grid []int, nvis float64, ntargets int, real bool) float64 {
	taps := math.Pow(float64(w), float64(dim))
	per := nsWeights*float64(dim) + nsTap*taps
	g := 1.0
	for _, n := range grid {
		g *= float64(n)
	}
	fft := nsFFT * g * math.Log2(g)
	if real {
		// ExecuteReal transforms half the grid's lines (nufft.Plan).
		fft /= 2
	}
	return (nvis+float64(ntargets))*per + fft
}

// transformsPerTerm is the transforms of one integration's strength sets:
// one unpolarized, two or four polarized (see storePaired).
func (r *run) transformsPerTerm() int {
	switch {
	case r.sim.NFeed() == 1:
		return 1
	case r.rev != nil:
		return 2
	}
	return 4
}

// directCost is the estimated CPU time (ns) of one integration of the
// direct product.
func (r *run) directCost() float64 {
	sim := r.sim
	return directCost(sim.NAnt(), sim.NSrc(), sim.NFeed())
}

// directCost is the estimated CPU time (ns) of one integration of the
// direct product for nant antennas, nsrc sources (about half visible)
// and nf feeds, the per-source costs both paths share included.
func directCost(nant, nsrc, nf int) float64 {
	nvis := float64(nsrc) / 2
	n, f := float64(nant), float64(nf)
	return nsDirect*n*n*nvis*f*f + nsZ*n*nvis*f*f + nsSource*nvis
}

// estimates are the cost model's seconds an integration as transforms
// (the per-source costs both paths share included) and as the direct
// product, and the run's integrations.
func (r *run) estimates() estimates {
	sim := r.sim
	shared := nsSource * float64(sim.NSrc()) / 2
	return estimates{nufft: (r.cost() + shared) * 1e-9, direct: r.directCost() * 1e-9, nint: sim.NFreq() * sim.NTime()}
}

// memoryTerms are the host memory the transform adds to what every
// backend needs: the largest channel's plans with every source (their
// grids shared, the largest counted once), and the per-source and
// per-pair buffers of an integration.
func (r *run) memoryTerms() []matvis.MemoryTerm {
	sim := r.sim
	nsrc := int64(sim.NSrc())
	nf := int64(sim.NFeed())
	jobs := append([]*run{r}, r.jobs...)
	// enu, flux, coords, az, za, vis; each beam's responses.
	perSrc := 8*(3+1+3+2+1) + 16*nf*nf*int64(len(r.beams()))
	if sim.SkyPolarized() {
		// Stokes, basis angles and coherencies (stokes.go).
		perSrc += 8*(4+2) + 64
	}
	var plans, grids, pairs int64
	for _, j := range jobs {
		// base, str, rstr.
		perSrc += 16 + 16 + 8
		perPair := int64(16 + 8)
		if j.terms > 0 {
			// tau and the recurrence; acc and the coefficients.
			perSrc += 4 * 8
			perPair += 16 * int64(1+j.terms)
		}
		no, np := j.plan.GridPoints()
		g := 16 * int64(no+np)
		plans += j.plan.Bytes(sim.NSrc()) - g
		grids = max(grids, g)
		pairs += int64(len(j.targets)) * perPair
	}
	return []matvis.MemoryTerm{
		{Name: "nufft plan", Bytes: plans + grids},
		{Name: "nufft sources", Bytes: perSrc * nsrc},
		{Name: "nufft pairs", Bytes: pairs},
	}
}

// init allocates the result and the buffers, the jobs sharing the
// result, the fluxes and the grids (sized for the largest plan).
func (r *run) init(terms []matvis.MemoryTerm) {
	sim := r.sim
	r.res = matvis.NewResult(sim)
	r.tally = matvis.NewTally("nufftcpu", sim, r.res)
	st := &r.res.Stats
	st.Backend = r.b.Name()
	w, beta := r.plan.Kernel()
	st.MatProdImpl = matvis.GramImpl{
		MatProd:   sim.Options.MatProd,
		Strategy:  fmt.Sprintf("nufft type 3, %d-D%s, eps %g (kernel width %d, beta %.3g), grid %v at %g Hz%s", r.dim, r.wNote(), r.eps(), w, beta, r.plan.Grid(), sim.Freqs[r.top], r.groupsNote()),
		Why:       r.groupsWhy(),
		Transform: r.transformShape(),
	}
	nsrc := sim.NSrc()
	var total int64
	for _, t := range terms {
		total += t.Bytes
	}
	// One "chunk" of all the sources: the transform's memory does not
	// grow with the product of sources and antennas.
	r.res.Plan = matvis.MemoryPlan{Budget: sim.Options.MaxMemory, NChunks: 1, SourcesPerChunk: nsrc, BufferSources: nsrc, Terms: terms, Total: total, Fits: true}
	r.flux = make([]float64, nsrc)
	r.pol = newPolSky(sim)
	if sim.NFreq() > 1 && matvis.CacheAllENU(sim.NTime(), nsrc) {
		r.topo = make([][3][]float64, sim.NTime())
	}
	jobs := append([]*run{r}, r.jobs...)
	var no, np int
	for _, j := range jobs {
		o, p := j.plan.GridPoints()
		no, np = max(no, o), max(np, p)
	}
	r.outer, r.padded = make([]complex128, no), make([]complex128, np)
	for _, j := range jobs {
		j.res, j.flux, j.outer, j.padded = r.res, r.flux, r.outer, r.padded
		j.pol = r.pol
		_ = j.plan.UseGrids(r.outer, r.padded)
		j.f = make([]complex128, len(j.targets))
		j.acc = j.f
		if j.terms > 0 {
			j.acc = make([]complex128, len(j.targets))
		}
	}
}

// transformShape is the run's transforms' shape for the result (every
// job's: their transforms added, their targets averaged over them).
func (r *run) transformShape() *matvis.TransformShape {
	w, _ := r.plan.Kernel()
	outer, padded := r.plan.GridPoints()
	ts := &matvis.TransformShape{Dim: r.dim, Width: w, Outer: outer, Padded: padded, RealStrengths: r.realStrengths()}
	var targets int
	for _, j := range append([]*run{r}, r.jobs...) {
		terms := max(j.terms, 1)
		if j.pack {
			terms = (terms + 1) / 2
		}
		n := terms * j.transformsPerTerm()
		ts.PerTime += n
		targets += n * len(j.targets)
	}
	ts.Targets = targets / max(ts.PerTime, 1)
	return ts
}

// realStrengths reports whether the transforms' strengths are real
// (unpolarized, one beam, not two w-terms packed in one transform), the plans then
// being made for nufft.Plan.ExecuteReal.
func (r *run) realStrengths() bool {
	return r.sim.NFeed() == 1 && !r.pack && r.beam == r.beam2
}

// eps is the run's transform accuracy.
func (r *run) eps() float64 {
	if r.sim.Options.Precision == 1 {
		return max(r.b.eps, fp32Eps)
	}
	return r.b.eps
}

// planChannel makes r.plan the plan of channel fi, unless it is already:
// targets ω·(x_j − x_i) for the channel's ω = 2πν/c, points in the box of
// directions above the horizon (east and north in [−1, 1], up in
// [0, 1]).
func (r *run) planChannel(fi int) error {
	if r.planFor == fi {
		return nil
	}
	sim := r.sim
	r.plan, r.planFor = nil, -1
	box := [][]float64{{-1, 1}, {-1, 1}, {0, 1}}[:r.dim]
	omega := 2 * math.Pi * sim.Freqs[fi] / beam.SpeedOfLight
	s := make([][]float64, r.dim)
	for d := range s {
		s[d] = make([]float64, len(r.targets))
		for k, p := range r.targets {
			s[d][k] = omega * (sim.Antennas[p[1]][d] - sim.Antennas[p[0]][d])
		}
	}
	pl, err := nufft.NewPlan(box, s, nufft.Options{Eps: r.eps(), Sign: 1, Workers: r.b.workers, MaxGrid: maxGrid, Real: r.realStrengths()})
	if err != nil {
		return &fallbackError{fmt.Errorf("transform grid too large: channel %d (%g Hz): %w", fi, sim.Freqs[fi], err)}
	}
	if r.terms > 0 {
		r.ja = r.jaCoefficients(omega)
	}
	if r.outer != nil {
		// The highest channel's grids hold every channel's (the grid
		// grows with the frequency); were one larger, its plan would
		// allocate its own.
		_ = pl.UseGrids(r.outer, r.padded)
	}
	r.plan, r.planFor = pl, fi
	return nil
}

// loop runs the integrations in order, from the first not yet done
// (r.tally) to until (exclusive), checking ctx between them.
func (r *run) loop(ctx context.Context, until int) error {
	sim := r.sim
	nt := sim.NTime()
	for _, j := range append([]*run{r}, r.jobs...) {
		j.ctx = ctx
	}
	for fi, freq := range sim.Freqs {
		if (fi+1)*nt <= r.tally.Done() {
			continue
		}
		if fi*nt >= until {
			return nil
		}
		if err := r.channelSky(fi); err != nil {
			return fmt.Errorf("nufftcpu: %w", err)
		}
		resp, err := r.channel(fi, freq)
		if err != nil {
			return err
		}
		for ti := r.tally.Done() - fi*nt; ti < nt && r.tally.Done() < until; ti++ {
			if err := ctx.Err(); err != nil {
				return r.tally.Cancelled(err)
			}
			t0 := time.Now()
			if err := r.integration(fi, ti, resp); err != nil {
				if cerr := ctx.Err(); cerr != nil {
					// Stopped inside the integration: it is not done.
					return r.tally.Cancelled(cerr)
				}
				return err
			}
			r.tally.Record(fi, ti, time.Since(t0))
		}
	}
	return nil
}

// channel makes every job's plan of channel fi and returns each beam's
// response at its frequency freq, by beam index.
func (r *run) channel(fi int, freq float64) (map[int]beam.Response, error) {
	for _, j := range append([]*run{r}, r.jobs...) {
		if err := j.planChannel(fi); err != nil {
			return nil, fmt.Errorf("nufftcpu: %w", err)
		}
	}
	sim := r.sim
	resp := make(map[int]beam.Response)
	for _, bi := range r.beams() {
		rb, err := sim.Beams[bi].At(freq, sim.Mode)
		if err != nil {
			return nil, fmt.Errorf("nufftcpu: beam %d (%v) at %g Hz: %w", bi, sim.Beams[bi], freq, err)
		}
		resp[bi] = rb
	}
	return resp, nil
}

// integration computes the visibilities of channel fi at time ti.
func (r *run) integration(fi, ti int, resp map[int]beam.Response) error {
	sim := r.sim
	sample := matvis.ChunkSample{Freq: fi, Time: ti, NSources: sim.NSrc()}
	st := &sample.Stages
	r.stage(matvis.StageCoords)
	t := time.Now()
	if err := r.visible(ti); err != nil {
		return err
	}
	if err := r.coherencies(ti); err != nil {
		return err
	}
	k := len(r.vis)
	sample.NVisible = k
	st[matvis.StageCoords] += time.Since(t)
	if err := r.ctx.Err(); err != nil {
		return err
	}

	r.stage(matvis.StageBeam)
	t = time.Now()
	if err := r.responses(fi, ti, resp); err != nil {
		return err
	}
	st[matvis.StageBeam] += time.Since(t)
	if err := r.ctx.Err(); err != nil {
		return err
	}

	r.stage(matvis.StageMatProd)
	t = time.Now()
	var spread, other time.Duration
	for _, j := range append([]*run{r}, r.jobs...) {
		before := j.plan.Stats()
		o, err := j.transforms(fi, ti, sim.NFeed())
		if err != nil {
			return err
		}
		spread += j.plan.Stats().Spread - before.Spread
		other += o
	}
	st[matvis.StageTauZ] += spread
	st[matvis.StageMatProd] += time.Since(t) - spread - other

	t = time.Now()
	err := r.res.CheckFinite(fi, ti)
	st[matvis.StageOther] += time.Since(t) + other
	r.res.Stats.Chunks = append(r.res.Stats.Chunks, sample)
	r.stage(matvis.NumStages)
	if err != nil {
		return fmt.Errorf("nufftcpu: %g Hz: %w", sim.Freqs[fi], err)
	}
	return nil
}

// stage tells the test hook, if any, that stage s begins.
func (r *run) stage(s matvis.Stage) {
	if r.b.onStage != nil {
		r.b.onStage(s)
	}
}

// visible sets the sources above the horizon at time ti: their indices,
// their ENU coordinates the transforms use (as many axes as the job of
// most dimensions needs) and their az/za, and hands them to the other
// jobs.
func (r *run) visible(ti int) error {
	if err := r.enuAt(ti); err != nil {
		return err
	}
	dim := r.dim
	for _, j := range r.jobs {
		dim = max(dim, j.dim)
	}
	// Capacity for every source, so that the appends never copy.
	n := len(r.enu[2])
	for d := range dim {
		r.coords[d] = slices.Grow(r.coords[d][:0], n)
	}
	r.vis = slices.Grow(r.vis[:0], n)
	err := blocks.RunContext(r.ctx, n, 1, 0, func(lo, hi int) {
		for s, u := range r.enu[2][lo:hi] {
			if u > 0 {
				r.vis = append(r.vis, lo+s)
				for d := range dim {
					r.coords[d] = append(r.coords[d], r.enu[d][lo+s])
				}
			}
		}
	})
	if err != nil {
		return err
	}
	k := len(r.vis)
	r.az, r.za = grow(r.az, k), grow(r.za, k)
	// An arctangent and an arcsine a source: split among the workers.
	err = parallelContext(r.ctx, r.b.workers, k, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s := r.vis[i]
			r.az[i], r.za[i] = matvis.AzZa(r.enu[0][s], r.enu[1][s])
		}
	})
	if err != nil {
		return err
	}
	for _, j := range r.jobs {
		j.enu, j.vis, j.coords, j.az, j.za = r.enu, r.vis, r.coords, r.az, r.za
	}
	return nil
}

// responses evaluates each beam at the visible sources once and hands
// every job its two beams' responses.
func (r *run) responses(fi, ti int, resp map[int]beam.Response) error {
	sim := r.sim
	k := len(r.vis)
	nf := sim.NFeed()
	amps := make(map[int][]complex128, len(resp))
	for bi, rb := range resp {
		if r.ampBuf == nil {
			r.ampBuf = make(map[int][]complex128)
		}
		a := grow(r.ampBuf[bi], nf*nf*k)
		r.ampBuf[bi] = a
		if err := beam.EvalContext(r.ctx, rb, r.az, r.za, a, nf*nf, r.b.workers); err != nil {
			return err
		}
		for i, v := range a {
			if cmplx.IsNaN(v) || cmplx.IsInf(v) {
				s := i % k
				return fmt.Errorf("nufftcpu: frequency %d (%g Hz), time %d: beam %d: non-finite response %v at az = %.6g rad, za = %.6g rad", fi, sim.Freqs[fi], ti, bi, v, r.az[s], r.za[s])
			}
		}
		amps[bi] = a
	}
	for _, j := range append([]*run{r}, r.jobs...) {
		j.amp, j.amp2 = amps[j.beam], amps[j.beam2]
	}
	return nil
}

// transforms places the visible sources in the plan and runs the
// integration's transforms — two for a polarized run whose pairs all have
// their reverse (storePaired), else one per feed pair — storing each; it
// returns the time spent storing.
func (r *run) transforms(fi, ti, nf int) (other time.Duration, err error) {
	k := len(r.vis)
	if err := r.plan.SetPointsContext(r.ctx, r.coords[:r.dim]); err != nil {
		return 0, fmt.Errorf("nufftcpu: time %d: %w", ti, err)
	}
	r.str = grow(r.str, k)
	r.rstr = grow(r.rstr, k)
	r.base = grow(r.base, k)
	if r.terms > 0 {
		r.tau = grow(r.tau, k)
		for i, s := range r.vis {
			r.tau[i] = 2*r.enu[2][s] - 1
		}
	}
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	transform := func() error {
		if err := r.transform(); err != nil {
			return fmt.Errorf("nufftcpu: frequency %d (%g Hz), time %d: %w", fi, r.sim.Freqs[fi], ti, err)
		}
		return nil
	}
	if nf == 2 && r.rev != nil {
		for _, diagonal := range []bool{true, false} {
			r.pairedStrengths(diagonal)
			if err := transform(); err != nil {
				return 0, err
			}
			t1 := time.Now()
			r.storePaired(fi, ti, diagonal)
			other += time.Since(t1)
		}
		return other, nil
	}
	for p := range nf {
		for q := range nf {
			r.strengths(p, q, nf)
			if err := transform(); err != nil {
				return 0, err
			}
			t1 := time.Now()
			r.store(fi, ti, p, q)
			other += time.Since(t1)
		}
	}
	return other, nil
}

// enuAt sets r.enu to the ENU vectors of time ti, rounded to float32 in
// precision 1 as matvis stores them; kept for every time when the
// simulation's ENU cache fits (matvis.CacheAllENU, as the CPU backend), so
// that later channels do not recompute them.
func (r *run) enuAt(ti int) error {
	sim := r.sim
	if r.topo != nil && r.topo[ti][0] != nil {
		r.enu = r.topo[ti]
		return nil
	}
	v := r.enu
	if r.topo != nil || v[0] == nil {
		for d := range v {
			v[d] = make([]float64, sim.NSrc())
		}
	}
	if err := matvis.ENUContext(r.ctx, sim.Coords, ti, v[0], v[1], v[2]); err != nil {
		return fmt.Errorf("nufftcpu: coordinates at time %d: %w", ti, err)
	}
	if sim.Options.Precision == 1 {
		for d := range v {
			err := parallelContext(r.ctx, r.b.workers, len(v[d]), func(lo, hi int) {
				for s := lo; s < hi; s++ {
					v[d][s] = float64(float32(v[d][s]))
				}
			})
			if err != nil {
				return err
			}
		}
	}
	if r.topo != nil {
		r.topo[ti] = v
	}
	r.enu = v
	return nil
}

// strengths fills r.base for the output feeds (p, q): with Z[a,f,k,s] =
// A_a[f,k](s)·√(½I_s)·P_a(s) for every antenna a (A_a its beam),
// V[(i,j),p,q] = Σ_s Σ_k conj(Z[i,q,k,s])·Z[j,p,k,s] is the transform of
// ½I_s·Σ_k conj(A_i[q,k](s))·A_j[p,k](s) (docs/matvis-conventions.md §1;
// unpolarized: one feed and axis, ½I_s·|A(s)|² for one beam), A_i being
// the job's beam and A_j its beam2.
func (r *run) strengths(p, q, nf int) {
	if r.pol != nil {
		for i := range r.vis {
			r.base[i] = r.stokesStrength(i, p, q)
		}
		return
	}
	k := len(r.vis)
	for i, s := range r.vis {
		var sum complex128
		for ax := range nf {
			ap := r.amp2[(p*nf+ax)*k+i]
			aq := r.amp[(q*nf+ax)*k+i]
			sum += cmplx.Conj(aq) * ap
		}
		r.base[i] = complex(0.5*r.flux[s], 0) * sum
	}
}

// pairedStrengths fills r.str for one of a polarized run's two
// transforms when every pair's reverse is in the output (r.rev): the
// diagonal feeds packed as c00 + i·c11 (both real), or c01.
func (r *run) pairedStrengths(diagonal bool) {
	if !diagonal {
		r.strengths(0, 1, 2)
		return
	}
	if r.pol != nil {
		for i := range r.vis {
			r.base[i] = complex(real(r.stokesStrength(i, 0, 0)), real(r.stokesStrength(i, 1, 1)))
		}
		return
	}
	k := len(r.vis)
	for i, s := range r.vis {
		var d0, d1 float64
		for ax := range 2 {
			a0, a1 := r.amp[ax*k+i], r.amp[(2+ax)*k+i]
			d0 += real(a0)*real(a0) + imag(a0)*imag(a0)
			d1 += real(a1)*real(a1) + imag(a1)*imag(a1)
		}
		r.base[i] = complex(0.5*r.flux[s]*d0, 0.5*r.flux[s]*d1)
	}
}

// storePaired unpacks a paired transform F. A transform of real strengths
// at −s is the conjugate of the one at s, and the reverse pair (j, i) has
// the target −s of (i, j); so with F = F00 + i·F11,
// V00 = (F + conj(F_rev))/2 and V11 = (F − conj(F_rev))/(2i). The
// strengths c10 are conj(c01), so V10 = conj(V01_rev).
func (r *run) storePaired(fi, ti int, diagonal bool) {
	res := r.res
	for kk, v := range r.acc {
		w := cmplx.Conj(r.acc[r.rev[kk]])
		k := r.outIndex(kk)
		if diagonal {
			res.Set(fi, ti, k, 0, 0, (v+w)/2)
			res.Set(fi, ti, k, 1, 1, (v-w)/complex(0, 2))
		} else {
			res.Set(fi, ti, k, 0, 1, v)
			res.Set(fi, ti, k, 1, 0, w)
		}
	}
}

// outIndex is the output index of the job's pair kk.
func (r *run) outIndex(kk int) int {
	if r.out == nil {
		return kk
	}
	return r.out[kk]
}

// reversePairs returns, for each output pair (i, j), the index of (j, i),
// or nil when some pair's reverse is not in the output. A pair listed more
// than once is found at its last listing.
func reversePairs(pairs [][2]int) []int {
	nant := 0
	for _, p := range pairs {
		nant = max(nant, p[0]+1, p[1]+1)
	}
	at := pairIndex(pairs, nant)
	rev := make([]int, len(pairs))
	for k, p := range pairs {
		j := at(p[1], p[0])
		if j < 0 {
			return nil
		}
		rev[k] = j
	}
	return rev
}

// densePairs bounds the antennas² of pairIndex's dense table (4 bytes an
// entry: 64 MiB at the bound).
const densePairs = 1 << 24

// pairIndex returns a look-up of a pair's last index in pairs (−1 when
// absent): a dense nant² table when it is small, else a map. For all
// 122 500 pairs of 350 antennas the map took about 40 ms of CPU time a
// run and the table under 1 % of the run (perf profiles, 2026-12-01).
func pairIndex(pairs [][2]int, nant int) func(i, j int) int {
	if nant*nant <= densePairs {
		tab := make([]int32, nant*nant)
		for i := range tab {
			tab[i] = -1
		}
		for k, p := range pairs {
			tab[p[0]*nant+p[1]] = int32(k)
		}
		return func(i, j int) int { return int(tab[i*nant+j]) }
	}
	at := make(map[[2]int]int, len(pairs))
	for k, p := range pairs {
		at[p] = k
	}
	return func(i, j int) int {
		if k, ok := at[[2]int{i, j}]; ok {
			return k
		}
		return -1
	}
}

// store copies the visibilities r.acc into the result's feeds (p, q);
// with half targets, each reverse pair gets the conjugate, and in a job
// of two beams each mirrored pair its conjugate at (q, p).
func (r *run) store(fi, ti, p, q int) {
	res := r.res
	if r.half != nil {
		for h, kk := range r.half {
			v := r.acc[h]
			res.Set(fi, ti, r.outIndex(kk), p, q, v)
			if j := r.rev[kk]; j != kk {
				res.Set(fi, ti, r.outIndex(j), p, q, cmplx.Conj(v))
			}
		}
		return
	}
	for kk, v := range r.acc {
		res.Set(fi, ti, r.outIndex(kk), p, q, v)
		if r.mirror != nil && r.mirror[kk] >= 0 {
			// The reverse pair (j, i) of a job of two beams:
			// V[(j,i),q,p] = conj(V[(i,j),p,q]) (groups.go).
			res.Set(fi, ti, r.mirror[kk], q, p, cmplx.Conj(v))
		}
	}
}

// parallel runs f on contiguous parts [lo, hi) of [0, n), at most
// workers parts and none under 8192 indices (fewer are not worth a
// goroutine).
func parallel(workers, n int, f func(lo, hi int)) {
	blocks.Run(n, max(1, min(workers, n/8192)), f)
}

// parallelContext is parallel checking ctx every blocks.Grain indices a
// worker, returning ctx's error when it stopped early.
func parallelContext(ctx context.Context, workers, n int, f func(lo, hi int)) error {
	return blocks.RunContext(ctx, n, max(1, min(workers, n/8192)), 0, f)
}

// grow returns s resliced to n elements, reallocated when too short.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
