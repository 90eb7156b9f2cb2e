// Package cpu is the CPU backend of the simulator: the matvis algorithm on
// all cores, with the Gram product done by a system CBLAS when one loads
// (OpenBLAS) and by gonum otherwise.
package cpu

import (
	"context"
	"fmt"
	"math"
	"math/cmplx"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomatvis/gomatvis/internal/blocks"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/cblas"
)

// Backend is the CPU backend. Its zero value is not usable; call New.
type Backend struct {
	herk    cblas.Herk
	workers int
	// blockWork bounds the complex multiply-adds of one Gram-product
	// call (herkBlockWork); a chunk is cancelled between calls.
	blockWork int
	// noFlush turns off Z's scaling and flushing (flush.go): tests
	// compare with the unflushed products.
	noFlush bool
	// poisonZ fills a polarized sky's Z buffers with NaN before they are
	// written (tests: an entry left unwritten then shows in the result).
	poisonZ bool
	// onStage, when set (by tests), is called as each stage of an
	// integration begins (NumStages: the integration's end), so that a
	// test can cancel inside a stage.
	onStage func(matvis.Stage)
}

// New returns a CPU backend using the best available herk and all cores.
func New() *Backend { return NewWith(cblas.Best(), 0) }

// NewWith returns a CPU backend with a given herk implementation and
// worker count (0: GOMAXPROCS).
func NewWith(h cblas.Herk, workers int) *Backend {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return &Backend{herk: h, workers: workers, blockWork: herkBlockWork}
}

// Name returns "cpu".
func (b *Backend) Name() string { return "cpu" }

// Close does nothing: the CPU backend holds nothing to release.
func (b *Backend) Close() error { return nil }

// Herk names the Gram-product implementation.
func (b *Backend) Herk() string { return b.herk.Name() }

// Run simulates every frequency and time of sim.
func (b *Backend) Run(ctx context.Context, sim *matvis.Simulation) (*matvis.Result, error) {
	start := time.Now()
	if err := sim.CheckHostMemory(); err != nil {
		return nil, fmt.Errorf("cpu: %w", err)
	}
	res := matvis.NewResult(sim)
	res.Stats.Backend = b.Name()
	res.Stats.MatProdImpl = matvis.GramImpl{MatProd: sim.Options.MatProd, Strategy: b.herk.Name()}
	budget := sim.Options.MaxMemory
	if budget == 0 {
		avail, err := matvis.AvailableMemory()
		if err != nil {
			avail = 8 << 30
		}
		budget = avail
	}
	// The chunks get what the output and the pair list leave.
	budget = max(budget-sim.OutputBytes()-int64(len(sim.Pairs))*16, 1)
	res.Plan = sim.PlanMemory(budget)
	r := &run{b: b, sim: sim, res: res, nf: sim.NFeed(), nsrc: sim.NSrc(), ctx: ctx}
	r.topo = make([][3][]float64, sim.NTime())
	r.cacheTopo = matvis.CacheAllENU(sim.NTime(), sim.NSrc())
	r.rep = distinctBeams(sim.Beams)
	r.used = make([]bool, len(sim.Beams))
	for _, bi := range sim.BeamOf {
		r.used[bi] = true
	}
	r.acc = newAccumulator(sim, sim.NAnt()*r.nf, b.herk)
	res.Stats.Setup = time.Since(start)
	err := r.loop(ctx)
	res.Stats.Total = time.Since(start)
	return res, err
}

// run is the state of one simulation run.
type run struct {
	// ctx is the run's: every parallel stage (r.parallel) stops within a
	// block of sources of its cancel.
	ctx       context.Context
	b         *Backend
	sim       *matvis.Simulation
	res       *matvis.Result
	nf, nsrc  int
	topo      [][3][]float64
	cacheTopo bool
	// used marks the beams some antenna uses; only those are evaluated.
	used []bool
	// rep[i] is the first beam of the list that is the same object as
	// beam i (prepare.go): each channel prepares it once for all of them.
	rep []int
	// acc is the Gram accumulator, cleared at each integration.
	acc *accumulator
	// buf holds the per-chunk work arrays, reused from chunk to chunk.
	buf chunkBufs
	// flux is every source's Stokes-I flux at the current channel.
	flux []float64
	// pol is a polarized sky's state (stokes.go); nil for Stokes I.
	pol *polState
}

// chunkBufs are the work arrays of buildZ, grown as needed and reused by
// every chunk (the chunks of a run are processed one at a time).
type chunkBufs struct {
	visible []int
	az, za  []float64
	// keys and the sorted* arrays are sortByColumn's.
	keys               []uint64
	sortedVis          []int
	sortedAz, sortedZa []float64
	// points[:npoints] are this chunk's visible directions located on
	// each grid geometry of the gridded responses.
	points  []*beam.GridPoints
	npoints int
	// beams[bi] is beam bi's response, component c of source s at c·K + s.
	beams [][]complex128
	// gather holds the sources' amplitudes and ENU vectors in vis order.
	gather []float64
	z      zmat
	// zneg is a polarized sky's subtracted Z (stokes.go).
	zneg *zmat
}

// grow returns s resliced to n elements, reallocated when too short.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		// Headroom: the next chunks' visible counts differ a little.
		return make([]T, n, n+n/8)
	}
	return s[:n]
}

// growContext is grow for Z's buffers (hundreds of MB to GBs), which
// returns ctx's error as soon as ctx is done: make cannot be
// interrupted, and zeroing reused heap memory of that size took 1–6 s
// beside a CPU hog, inside the stage. An abandoned allocation finishes on
// its goroutine and is dropped.
func growContext[T any](ctx context.Context, s []T, n int) ([]T, error) {
	if cap(s) >= n {
		return s[:n], nil
	}
	done := make(chan []T, 1) // buffered: an abandoned make's send does not block
	go func() { done <- grow(s, n) }()
	select {
	case v := <-done:
		return v, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// loop runs every integration in order, checking ctx between them.
func (r *run) loop(ctx context.Context) error {
	sim := r.sim
	tally := matvis.NewTally("cpu", sim, r.res)
	r.flux = make([]float64, r.nsrc)
	if sim.SkyPolarized() {
		r.pol = newPolState(sim, r.cacheTopo)
	}
	for fi, freq := range sim.Freqs {
		if err := r.channelSky(fi); err != nil {
			return fmt.Errorf("cpu: %w", err)
		}
		// Prepared once per channel, shared by every time and chunk.
		resp, err := r.prepare(ctx, freq)
		if cerr := ctx.Err(); cerr != nil {
			return tally.Cancelled(cerr)
		}
		if err != nil {
			return err
		}
		if err := tally.Times(ctx, fi, func(ti int) error { return r.integration(ctx, fi, ti, resp) }); err != nil {
			return err
		}
	}
	return nil
}

// enu returns the ENU vectors of time ti, rounded to float32 in precision 1
// as matvis stores them.
func (r *run) enu(ti int) ([3][]float64, error) {
	if r.topo[ti][0] != nil {
		return r.topo[ti], nil
	}
	var v [3][]float64
	for k := range v {
		v[k] = make([]float64, r.nsrc)
	}
	if err := matvis.ENUContext(r.context(), r.sim.Coords, ti, v[0], v[1], v[2]); err != nil {
		return v, fmt.Errorf("cpu: coordinates at time %d: %w", ti, err)
	}
	if r.sim.Options.Precision == 1 {
		for k := range v {
			r.parallel(r.nsrc, func(lo, hi int) {
				for s := lo; s < hi; s++ {
					v[k][s] = float64(float32(v[k][s]))
				}
			})
		}
		if err := r.context().Err(); err != nil {
			return v, err
		}
	}
	if r.cacheTopo {
		r.topo[ti] = v
	}
	return v, nil
}

// integration computes all visibilities of frequency fi and time ti.
func (r *run) integration(ctx context.Context, fi, ti int, resp []beam.Response) error {
	sim := r.sim
	r.stage(matvis.StageCoords)
	t0 := time.Now()
	v, err := r.enu(ti)
	if err != nil {
		return err
	}
	if r.pol != nil {
		if err := r.pol.basisAt(ctx, ti); err != nil {
			return fmt.Errorf("cpu: %w", err)
		}
	}
	// The ENU vectors (and a polarized sky's basis angles) are per
	// integration; they are timed with chunk 0.
	enuTime := time.Since(t0)
	acc := r.acc
	acc.reset()
	plan := r.res.Plan
	for c := range plan.NChunks {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("cpu: cancelled in chunk %d: %w", c, err)
		}
		lo := c * plan.SourcesPerChunk
		hi := min(lo+plan.SourcesPerChunk, r.nsrc)
		if lo >= hi {
			break
		}
		sample := matvis.ChunkSample{Freq: fi, Time: ti, Chunk: c, NSources: hi - lo}
		t := time.Now()
		vis := r.buf.visible[:0]
		err := blocks.RunContext(ctx, hi-lo, 1, 0, func(b0, b1 int) {
			for s := lo + b0; s < lo+b1; s++ {
				if v[2][s] > 0 {
					vis = append(vis, s)
				}
			}
		})
		r.buf.visible = vis
		if err != nil {
			return fmt.Errorf("cpu: cancelled in chunk %d: %w", c, err)
		}
		sample.NVisible = len(vis)
		sample.Stages[matvis.StageCoords] += time.Since(t)
		if len(vis) > 0 {
			z, err := r.buildZ(ctx, fi, vis, v, resp, &sample.Stages)
			if err != nil {
				return fmt.Errorf("cpu: frequency %d (%g Hz), time %d: %w", fi, sim.Freqs[fi], ti, err)
			}
			r.stage(matvis.StageMatProd)
			t = time.Now()
			err = r.accumulate(ctx, z, len(vis)*r.nf)
			sample.Stages[matvis.StageMatProd] += time.Since(t)
			if err != nil {
				return fmt.Errorf("cpu: cancelled in chunk %d of frequency %d, time %d: %w", c, fi, ti, err)
			}
		}
		if c == 0 {
			sample.Stages[matvis.StageCoords] += enuTime
		}
		r.res.Stats.Chunks = append(r.res.Stats.Chunks, sample)
	}
	// A stage cut short by a cancel (r.parallel) leaves a partial sum:
	// stored only when the context is still live.
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("cpu: cancelled in frequency %d, time %d: %w", fi, ti, err)
	}
	acc.store(r.res, fi, ti)
	if err := r.res.CheckFinite(fi, ti); err != nil {
		return fmt.Errorf("cpu: %g Hz: %w", sim.Freqs[fi], err)
	}
	r.stage(matvis.NumStages)
	return nil
}

// stage tells the test hook, if any, that stage s begins.
func (r *run) stage(s matvis.Stage) {
	if r.b.onStage != nil {
		r.b.onStage(s)
	}
}

// herkBlockWork bounds the complex multiply-adds of one Gram-product call
// (8 flops each: 10–50 ms on one core at 10–40 Gflop/s; 1<<30 took up to
// a second, several beside other work), so that a long chunk is
// cancelled between calls. A call keeps 273 columns at 350
// dual-polarized antennas (700 rows), enough for the herk's panels.
const herkBlockWork = 1 << 26

// accumulate adds a chunk's Z (cols columns) to the accumulator in blocks
// of columns, checking ctx between blocks, and subtracts z.neg's Gram.
func (r *run) accumulate(ctx context.Context, z zmat, cols int) error {
	if z.neg != nil {
		if err := r.accumulate(ctx, *z.neg, cols); err != nil {
			return err
		}
	}
	blk := max(1, r.b.blockWork/max(1, r.acc.workPerColumn()))
	for c0 := 0; c0 < cols; c0 += blk {
		if err := ctx.Err(); err != nil {
			return err
		}
		r.acc.add(z, cols, c0, min(c0+blk, cols))
	}
	return nil
}

// zmat is Z conjugated, row-major (nant·nfeed) × (naxes·K): row a·nfeed+f,
// column k·K+s. Conjugating here lets herk's A·Aᴴ give Σ conj(Z_i)·Z_j.
type zmat struct {
	c128 []complex128
	c64  []complex64
	// alpha undoes Z's scaling (flush.go): the chunk's Gram is alpha·Z·Zᴴ.
	alpha float64
	// neg, when set, is a polarized sky's second Z, of the coherencies'
	// negative eigenvalues: its Gram is subtracted (its alpha is −alpha).
	neg *zmat
}

// parallel runs fn over [0, n) split into contiguous blocks, one per
// worker, each in pieces of at most blocks.Grain indices; once r.ctx is
// done the workers stop after their current piece, leaving the rest
// undone: a caller checks ctx before it uses the result.
func (r *run) parallel(n int, fn func(lo, hi int)) {
	_ = blocks.RunContext(r.context(), n, min(r.b.workers, max(1, n/256)), 0, fn)
}

// context is the run's context (Background for a run made by a test
// without one).
func (r *run) context() context.Context {
	if r.ctx == nil {
		return context.Background()
	}
	return r.ctx
}

// serial is parallel on the calling goroutine alone: for passes that
// depend on the order of the indices.
func (r *run) serial(n int, fn func(lo, hi int)) {
	_ = blocks.RunContext(r.context(), n, 1, 0, fn)
}

// buildZ makes Z of the visible sources vis of one chunk. Its workers stop
// early when ctx is cancelled, and it returns ctx's error.
func (r *run) buildZ(ctx context.Context, fi int, vis []int, v [3][]float64, resp []beam.Response, st *matvis.StageTimes) (zmat, error) {
	k := len(vis)
	t := time.Now()
	az := grow(r.buf.az, k)
	za := grow(r.buf.za, k)
	r.buf.az, r.buf.za = az, za
	r.parallel(k, func(lo, hi int) {
		for s := lo; s < hi; s++ {
			az[s], za[s] = matvis.AzZa(v[0][vis[s]], v[1][vis[s]])
		}
	})
	st[matvis.StageCoords] += time.Since(t)

	t = time.Now()
	if err := ctx.Err(); err != nil {
		return zmat{}, err
	}
	r.stage(matvis.StageBeam)
	vis, az, za = r.sortByColumn(vis, az, za, resp)
	if err := ctx.Err(); err != nil {
		return zmat{}, err
	}
	beams, err := r.evalBeams(ctx, az, za, resp)
	if err != nil {
		return zmat{}, err
	}
	st[matvis.StageBeam] += time.Since(t)

	r.stage(matvis.StageTauZ)
	if r.sim.SkyPolarized() {
		return r.fillZStokes(ctx, fi, vis, v, beams, st)
	}
	return r.fillZ(ctx, fi, vis, v, beams, st)
}

// fillZ writes Z of a Stokes-I sky: Z[(a,f),(ax,s)] = A[f,ax]·√(I/2)·P_a(s),
// stored conjugated.
func (r *run) fillZ(ctx context.Context, fi int, vis []int, v [3][]float64, beams [][]complex128, st *matvis.StageTimes) (zmat, error) {
	sim := r.sim
	k := len(vis)
	nf := r.nf
	t := time.Now()
	nant := sim.NAnt()
	ld := nf * k
	// Every element of z is written below.
	z := &r.buf.z
	p1 := sim.Options.Precision == 1
	var err error
	if p1 {
		z.c64, err = growContext(ctx, z.c64, nant*nf*ld)
	} else {
		z.c128, err = growContext(ctx, z.c128, nant*nf*ld)
	}
	if err != nil {
		return zmat{}, err
	}
	omega := 2 * math.Pi * sim.Freqs[fi] / beam.SpeedOfLight
	// The amplitudes and ENU vectors, gathered once so that the loop over
	// antennas reads them in order.
	r.buf.gather = grow(r.buf.gather, 4*k)
	amp, ve, vn, vu := r.buf.gather[:k], r.buf.gather[k:2*k], r.buf.gather[2*k:3*k], r.buf.gather[3*k:]
	r.parallel(k, func(lo, hi int) {
		for s := lo; s < hi; s++ {
			src := vis[s]
			amp[s] = math.Sqrt(0.5 * r.flux[src])
			ve[s], vn[s], vu[s] = v[0][src], v[1][src], v[2][src]
		}
	})
	// Scaled so that no product of Z's entries is subnormal (flush.go).
	sc := r.scaleZ(amp, beams, p1)
	z.alpha = sc.alpha
	r.parallel(k, func(lo, hi int) {
		for a := range nant {
			if ctx.Err() != nil {
				return
			}
			x := sim.Antennas[a]
			bm := beams[sim.BeamOf[a]]
			for s := lo; s < hi; s++ {
				tau := omega * (x[0]*ve[s] + x[1]*vn[s] + x[2]*vu[s])
				sn, cs := math.Sincos(tau)
				// conj(exp(+iτ))·amp; the beam is conjugated below.
				ph := complex(cs*amp[s], -sn*amp[s])
				for f := range nf {
					row := (a*nf + f) * ld
					for ax := range nf {
						val := cmplx.Conj(bm[(f*nf+ax)*k+s]) * ph
						if p1 {
							z.c64[row+ax*k+s] = sc.c64(val)
						} else {
							z.c128[row+ax*k+s] = sc.c128(val)
						}
					}
				}
			}
		}
	})
	st[matvis.StageTauZ] += time.Since(t)
	if err := ctx.Err(); err != nil {
		return zmat{}, err
	}
	return *z, nil
}

// sortByColumn puts the visible sources in the order of the azimuth
// column of the grid cell they fall in, on the first used gridded
// response's grid, keeping sky order within a column: every gridded beam
// is then read a 4-column band at a time (a few kB) rather than at random.
// It returns vis, az and za permuted alike (the arguments themselves when
// no used beam is gridded). The visibilities are sums over the sources and
// change only by rounding.
//
// Sorting by za row instead would read the planes as well but puts the
// horizon's sources together: their fp32 products with one another are
// subnormal, and a Gram product over long runs of them is over 10 times
// slower (bench/cpu-notes.md); within a column the zeniths and horizons
// stay mixed as in the sky.
func (r *run) sortByColumn(vis []int, az, za []float64, resp []beam.Response) ([]int, []float64, []float64) {
	var grid *beam.PlaneGrid
	for bi, rr := range resp {
		if gr, ok := rr.(*beam.GriddedResponse); ok && r.used[bi] {
			g := gr.Grid()
			grid = &g
			break
		}
	}
	k := len(vis)
	if grid == nil || k < 2 {
		return vis, az, za
	}
	// A counting sort by key = column + 1 (0 outside the grid), stable,
	// so sky order within a column (sortByColumnTwin's sort of
	// key<<32 | s); O(k) in passes the context can stop between blocks,
	// where a sort of 10⁷ keys takes over a second.
	keys := grow(r.buf.keys, k)
	r.buf.keys = keys
	r.parallel(k, func(lo, hi int) {
		for s := lo; s < hi; s++ {
			col := grid.Cell(az[s], za[s])
			if col >= 0 {
				col %= grid.NAz
			}
			keys[s] = uint64(col + 1)
		}
	})
	start := make([]int, grid.NAz+2)
	r.serial(k, func(lo, hi int) {
		for _, key := range keys[lo:hi] {
			start[key+1]++
		}
	})
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	sv := grow(r.buf.sortedVis, k)
	sa := grow(r.buf.sortedAz, k)
	sz := grow(r.buf.sortedZa, k)
	r.buf.sortedVis, r.buf.sortedAz, r.buf.sortedZa = sv, sa, sz
	r.serial(k, func(lo, hi int) {
		for s := lo; s < hi; s++ {
			i := start[keys[s]]
			start[keys[s]]++
			sv[i], sa[i], sz[i] = vis[s], az[s], za[s]
		}
	})
	return sv, sa, sz
}

// evalBeams evaluates every used beam at the k directions (az[s], za[s])
// into the reused per-beam outputs. Gridded responses evaluate directions
// located once per grid geometry; the work is split over the workers by
// beam and, when there are few beams, by blocks of sources. Each block is
// checked for non-finite values while it is still in cache.
func (r *run) evalBeams(ctx context.Context, az, za []float64, resp []beam.Response) ([][]complex128, error) {
	pts, nused, err := r.beamPoints(az, za, resp)
	if err != nil {
		return nil, err
	}
	jobs := r.beamJobs(len(az), nused)
	errs := r.runBeamJobs(ctx, jobs, pts, az, za, resp)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, err := range errs {
		if err != nil {
			bi := jobs[i].bi
			return nil, fmt.Errorf("beam %d (%v): %w", bi, r.sim.Beams[bi], err)
		}
	}
	return r.buf.beams, nil
}

// beamJob is one used beam over sources [lo, hi) of a chunk.
type beamJob struct{ bi, lo, hi int }

// beamPoints sizes every used beam's output and locates the directions on
// each gridded response's grid (nil for the others); nused counts the
// used beams.
func (r *run) beamPoints(az, za []float64, resp []beam.Response) (pts []*beam.GridPoints, nused int, err error) {
	k := len(az)
	ncomp := r.nf * r.nf
	if len(r.buf.beams) != len(resp) {
		r.buf.beams = make([][]complex128, len(resp))
	}
	r.buf.npoints = 0
	pts = make([]*beam.GridPoints, len(resp))
	for bi, rr := range resp {
		if !r.used[bi] {
			continue
		}
		nused++
		r.buf.beams[bi] = grow(r.buf.beams[bi], ncomp*k)
		gr, ok := rr.(*beam.GriddedResponse)
		if !ok {
			continue
		}
		p, err := r.points(gr.Grid(), az, za)
		if err != nil {
			return nil, 0, fmt.Errorf("beam %d (%v): %w", bi, r.sim.Beams[bi], err)
		}
		pts[bi] = p
	}
	return pts, nused, nil
}

// beamJobs cuts every used beam of a chunk of k sources into blocks of at
// least 256 sources, at least 4 jobs a worker when the beams are few, and
// of at most blocks.Grain sources, so that a cancel (checked between
// jobs) waits for one block at most.
func (r *run) beamJobs(k, nused int) []beamJob {
	workers := r.b.workers
	nb := max(1, min((4*workers+nused-1)/max(nused, 1), k/256), (k+blocks.Grain-1)/blocks.Grain)
	per := (k + nb - 1) / nb
	var jobs []beamJob
	for bi := range r.used {
		if r.used[bi] {
			for lo := 0; lo < k; lo += per {
				jobs = append(jobs, beamJob{bi, lo, min(lo+per, k)})
			}
		}
	}
	return jobs
}

// runBeamJobs evaluates the jobs over the workers into r.buf.beams (a
// gridded response from its located points, another through Eval and a
// copy) and checks each block is finite; errs[i] is job i's error.
func (r *run) runBeamJobs(ctx context.Context, jobs []beamJob, pts []*beam.GridPoints, az, za []float64, resp []beam.Response) []error {
	k := len(az)
	ncomp := r.nf * r.nf
	beams := r.buf.beams
	errs := make([]error, len(jobs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(r.b.workers, len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var tmp []complex128
			for {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) || ctx.Err() != nil {
					return
				}
				jb := jobs[i]
				out := beams[jb.bi]
				if p := pts[jb.bi]; p != nil {
					if err := resp[jb.bi].(*beam.GriddedResponse).EvalPoints(p, jb.lo, jb.hi, out); err != nil {
						errs[i] = err
						continue
					}
				} else {
					n := jb.hi - jb.lo
					tmp = grow(tmp, ncomp*n)
					resp[jb.bi].Eval(az[jb.lo:jb.hi], za[jb.lo:jb.hi], tmp)
					for c := range ncomp {
						copy(out[c*k+jb.lo:c*k+jb.hi], tmp[c*n:(c+1)*n])
					}
				}
				errs[i] = checkFinite(out, k, jb.lo, jb.hi, az, za)
			}
		}()
	}
	wg.Wait()
	return errs
}

// points returns the directions located on grid g's geometry: those
// located earlier in this chunk for the same geometry, or else the next
// reused GridPoints, located now over the workers.
func (r *run) points(g beam.PlaneGrid, az, za []float64) (*beam.GridPoints, error) {
	b := &r.buf
	for _, p := range b.points[:b.npoints] {
		if p.Fits(g) {
			return p, nil
		}
	}
	if b.npoints == len(b.points) {
		b.points = append(b.points, new(beam.GridPoints))
	}
	p := b.points[b.npoints]
	if err := p.Reset(g, len(az)); err != nil {
		return nil, err
	}
	b.npoints++
	r.parallel(len(az), func(lo, hi int) { p.Locate(lo, az[lo:hi], za[lo:hi]) })
	return p, nil
}

// checkFinite reports the first non-finite value among sources lo..hi−1
// of a beam's output (component c of source s at c·k + s). matvis raises
// on these too: a cubic spline of a power beam can dip below zero near
// nulls, and its square root is NaN.
func checkFinite(out []complex128, k, lo, hi int, az, za []float64) error {
	// x − x is 0 for finite x and NaN otherwise; a NaN sum flags the block.
	for c := range len(out) / k {
		blk := out[c*k+lo : c*k+hi]
		var f0, f1 float64
		for _, v := range blk {
			f0 += real(v) - real(v)
			f1 += imag(v) - imag(v)
		}
		if f0 == 0 && f1 == 0 {
			continue
		}
		for i, v := range blk {
			if cmplx.IsNaN(v) || cmplx.IsInf(v) {
				s := lo + i
				return fmt.Errorf("non-finite response %v at az = %.6g rad, za = %.6g rad (a cubic-spline overshoot below zero in a power beam gives NaN, as in matvis; beam_spline_opts order 1 avoids it)", v, az[s], za[s])
			}
		}
	}
	return nil
}
