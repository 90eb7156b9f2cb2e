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
	"time"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/cblas"
)

// Backend is the CPU backend. Its zero value is not usable; call New.
type Backend struct {
	herk    cblas.Herk
	workers int
}

// New returns a CPU backend using the best available herk and all cores.
func New() *Backend { return NewWith(cblas.Best(), 0) }

// NewWith returns a CPU backend with a given herk implementation and
// worker count (0: GOMAXPROCS).
func NewWith(h cblas.Herk, workers int) *Backend {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return &Backend{herk: h, workers: workers}
}

// Name returns "cpu".
func (b *Backend) Name() string { return "cpu" }

// Herk names the Gram-product implementation.
func (b *Backend) Herk() string { return b.herk.Name() }

// Run simulates every frequency and time of sim.
func (b *Backend) Run(ctx context.Context, sim *matvis.Simulation) (*matvis.Result, error) {
	start := time.Now()
	res := matvis.NewResult(sim)
	res.Stats.Backend = b.Name()
	res.Stats.MatProdImpl = string(sim.Options.MatProd) + " via " + b.herk.Name()
	budget := sim.Options.MaxMemory
	if budget == 0 {
		avail, err := matvis.AvailableMemory()
		if err != nil {
			avail = 8 << 30
		}
		budget = avail
	}
	res.Plan = sim.PlanMemory(budget)
	r := &run{b: b, sim: sim, res: res, nf: sim.NFeed(), nsrc: sim.NSrc()}
	r.topo = make([][3][]float64, sim.NTime())
	r.cacheTopo = matvis.CacheAllENU(sim.NTime(), sim.NSrc())
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
	b         *Backend
	sim       *matvis.Simulation
	res       *matvis.Result
	nf, nsrc  int
	topo      [][3][]float64
	cacheTopo bool
	// used marks the beams some antenna uses; only those are evaluated.
	used []bool
	// acc is the Gram accumulator, cleared at each integration.
	acc *accumulator
}

func (r *run) loop(ctx context.Context) error {
	sim := r.sim
	nt := sim.NTime()
	total := sim.NFreq() * nt
	done := 0
	for fi, freq := range sim.Freqs {
		resp := make([]beam.Response, len(sim.Beams))
		for i, bm := range sim.Beams {
			rr, err := bm.At(freq, sim.Mode)
			if err != nil {
				return fmt.Errorf("cpu: beam %d (%v) at %g Hz: %w", i, bm, freq, err)
			}
			resp[i] = rr
		}
		for ti := range nt {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("cpu: cancelled after %d of %d integrations: %w", done, total, err)
			}
			t0 := time.Now()
			if err := r.integration(ctx, fi, ti, resp); err != nil {
				return err
			}
			r.res.Done[fi*nt+ti] = true
			r.res.Stats.Integrations = append(r.res.Stats.Integrations, time.Since(t0))
			done++
			if p := sim.Options.Progress; p != nil {
				p(matvis.Progress{Done: done, Total: total})
			}
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
	if err := r.sim.Coords.ENU(ti, v[0], v[1], v[2]); err != nil {
		return v, fmt.Errorf("cpu: coordinates at time %d: %w", ti, err)
	}
	if r.sim.Options.Precision == 1 {
		for k := range v {
			for s, x := range v[k] {
				v[k][s] = float64(float32(x))
			}
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
	t0 := time.Now()
	v, err := r.enu(ti)
	if err != nil {
		return err
	}
	// The ENU vectors are per integration; they are timed with chunk 0.
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
		var vis []int
		for s := lo; s < hi; s++ {
			if v[2][s] > 0 {
				vis = append(vis, s)
			}
		}
		sample.NVisible = len(vis)
		sample.Stages[matvis.StageCoords] += time.Since(t)
		if len(vis) > 0 {
			z, err := r.buildZ(fi, vis, v, resp, &sample.Stages)
			if err != nil {
				return fmt.Errorf("cpu: frequency %d (%g Hz), time %d: %w", fi, sim.Freqs[fi], ti, err)
			}
			t = time.Now()
			acc.add(z, len(vis)*r.nf)
			sample.Stages[matvis.StageMatProd] += time.Since(t)
		}
		if c == 0 {
			sample.Stages[matvis.StageCoords] += enuTime
		}
		r.res.Stats.Chunks = append(r.res.Stats.Chunks, sample)
	}
	acc.store(r.res, fi, ti)
	return nil
}

// zmat is Z conjugated, row-major (nant·nfeed) × (naxes·K): row a·nfeed+f,
// column k·K+s. Conjugating here lets herk's A·Aᴴ give Σ conj(Z_i)·Z_j.
type zmat struct {
	c128 []complex128
	c64  []complex64
}

// parallel runs fn over [0, n) split into contiguous blocks, one per worker.
func (r *run) parallel(n int, fn func(lo, hi int)) {
	w := min(r.b.workers, max(1, n/256))
	if w <= 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	step := (n + w - 1) / w
	for lo := 0; lo < n; lo += step {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			fn(lo, hi)
		}(lo, min(lo+step, n))
	}
	wg.Wait()
}

func (r *run) buildZ(fi int, vis []int, v [3][]float64, resp []beam.Response, st *matvis.StageTimes) (zmat, error) {
	sim := r.sim
	k := len(vis)
	nf := r.nf
	ncomp := nf * nf
	nfreq := sim.NFreq()
	t := time.Now()
	az := make([]float64, k)
	za := make([]float64, k)
	r.parallel(k, func(lo, hi int) {
		for s := lo; s < hi; s++ {
			az[s], za[s] = matvis.AzZa(v[0][vis[s]], v[1][vis[s]])
		}
	})
	st[matvis.StageCoords] += time.Since(t)

	t = time.Now()
	beams := make([][]complex128, len(resp))
	for bi := range resp {
		if !r.used[bi] {
			continue
		}
		out := make([]complex128, ncomp*k)
		r.parallel(k, func(lo, hi int) {
			n := hi - lo
			tmp := make([]complex128, ncomp*n)
			resp[bi].Eval(az[lo:hi], za[lo:hi], tmp)
			for c := range ncomp {
				copy(out[c*k+lo:c*k+hi], tmp[c*n:(c+1)*n])
			}
		})
		beams[bi] = out
		if err := checkFinite(out, k, az, za); err != nil {
			return zmat{}, fmt.Errorf("beam %d (%v): %w", bi, sim.Beams[bi], err)
		}
	}
	st[matvis.StageBeam] += time.Since(t)

	t = time.Now()
	nant := sim.NAnt()
	ld := nf * k
	var z zmat
	p1 := sim.Options.Precision == 1
	if p1 {
		z.c64 = make([]complex64, nant*nf*ld)
	} else {
		z.c128 = make([]complex128, nant*nf*ld)
	}
	omega := 2 * math.Pi * sim.Freqs[fi] / beam.SpeedOfLight
	r.parallel(k, func(lo, hi int) {
		amp := make([]float64, hi-lo)
		for s := lo; s < hi; s++ {
			amp[s-lo] = math.Sqrt(0.5 * sim.Flux[vis[s]*nfreq+fi])
		}
		for a := range nant {
			x := sim.Antennas[a]
			bm := beams[sim.BeamOf[a]]
			for s := lo; s < hi; s++ {
				src := vis[s]
				tau := omega * (x[0]*v[0][src] + x[1]*v[1][src] + x[2]*v[2][src])
				sn, cs := math.Sincos(tau)
				// conj(exp(+iτ))·amp; the beam is conjugated below.
				ph := complex(cs*amp[s-lo], -sn*amp[s-lo])
				for f := range nf {
					row := (a*nf + f) * ld
					for ax := range nf {
						val := cmplx.Conj(bm[(f*nf+ax)*k+s]) * ph
						if p1 {
							z.c64[row+ax*k+s] = complex64(val)
						} else {
							z.c128[row+ax*k+s] = val
						}
					}
				}
			}
		}
	})
	st[matvis.StageTauZ] += time.Since(t)
	return z, nil
}

// checkFinite reports the first non-finite beam value. matvis raises on
// these too: a cubic spline of a power beam can dip below zero near nulls,
// and its square root is NaN.
func checkFinite(out []complex128, k int, az, za []float64) error {
	for i, v := range out {
		if cmplx.IsNaN(v) || cmplx.IsInf(v) {
			s := i % k
			return fmt.Errorf("non-finite response %v at az = %.6g rad, za = %.6g rad (a cubic-spline overshoot below zero in a power beam gives NaN, as in matvis; beam_spline_opts order 1 avoids it)", v, az[s], za[s])
		}
	}
	return nil
}
