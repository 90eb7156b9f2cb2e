package gpu

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/cuda/gram"
	"github.com/gomatvis/gomatvis/internal/blocks"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// Analytic beam kinds as the beam_analytic kernel knows them: matvis/beam's
// registry's (beam.Kind; KIND_<NAME> macros from kindDefines), a gridded
// beam's kindNone, and kindDiagonal added for pyuvsim's diagonal Jones
// convention (beam.Form.Diagonal).
const (
	kindNone     = -1 // gridded: interpolated from its prepared planes
	kindDiagonal = 8  // above every registered kind (TestKindsHaveKernelCases)
)

// GridBeam is a gridded beam the GPU can interpolate: per frequency and
// mode it prepares the planes that the CPU interpolates (matvis/beam's
// *Gridded does: frequency interpolation, azimuth extension, power for
// unpolarized runs, the cubic B-spline prefilter). The device uploads
// those planes as they are and interpolates them exactly as
// (*beam.GriddedResponse).Eval does, so CPU and GPU agree on gridded beams.
type GridBeam interface {
	beam.Beam
	Prepare(freqHz float64, mode beam.Mode) (*beam.GriddedResponse, error)
}

// asGridBeam returns beam i, which is not analytic, as a GridBeam, or an
// error when it is not one either.
func asGridBeam(i int, bm beam.Beam) (GridBeam, error) {
	gb, ok := bm.(GridBeam)
	if !ok {
		return nil, fmt.Errorf("gpu: beam %d (%v) is neither analytic nor gridded; the GPU backend cannot evaluate it (use the CPU backend)", i, bm)
	}
	return gb, nil
}

// analyticKind is a beam's device kind and parameter at freqHz, from the
// beam's own description (beam.Analytic): ok is false for a beam that is
// not analytic. A form with more parameters than the descriptor holds is
// an error.
func analyticKind(b beam.Beam, freqHz float64) (kind int32, par float64, ok bool, err error) {
	a, ok := b.(beam.Analytic)
	if !ok {
		return kindNone, 0, false, nil
	}
	f, err := a.AnalyticForm(freqHz)
	if err != nil {
		return int32(f.Kind), 0, true, err
	}
	if !slices.ContainsFunc(beam.AnalyticTypes(), func(t beam.AnalyticType) bool { return t.Kind == f.Kind }) {
		return 0, 0, true, fmt.Errorf("gpu: %v: analytic kind %d is not registered in matvis/beam, so the kernels have no case for it", b, f.Kind)
	}
	if len(f.Params) > 1 {
		return 0, 0, true, fmt.Errorf("gpu: %v: %d form parameters, the beam descriptor holds 1", b, len(f.Params))
	}
	if len(f.Params) == 1 {
		par = f.Params[0]
	}
	kind = int32(f.Kind)
	if f.Diagonal {
		kind += kindDiagonal
	}
	return kind, par, true, nil
}

// kindDefines are the registered analytic kinds as KIND_<NAME> macros
// (KIND_GAUSSIAN …) and KIND_DIAGONAL, for vis_beam.cuh's beam_analytic.
func kindDefines() []struct {
	name string
	v    int
} {
	out := []struct {
		name string
		v    int
	}{{"KIND_DIAGONAL", kindDiagonal}}
	for _, t := range beam.AnalyticTypes() {
		out = append(out, struct {
			name string
			v    int
		}{"KIND_" + strings.ToUpper(t.Name), int(t.Kind)})
	}
	return out
}

// beamTables are one frequency's beam descriptors for the fused
// beam_tau_z kernel: per beam a beamDesc and per distinct grid geometry a
// geomDesc (descriptors.go), and the gridded beams' planes packed node-major (the nc components of a
// node adjacent), each beam starting at a multiple of 4 complex values.
type beamTables struct {
	desc   []beamDesc
	geom   []geomDesc
	coef32 []float32 // precision 1
	coef64 []float64 // precision 2
	ncoef  int64     // complex values
	maxAbs float64   // largest |re| or |im| of the packed planes
}

// geomKey identifies a grid geometry among the gridded beams.
type geomKey struct {
	nza, naz               int
	za0, zscale, az0, asca float64
	order                  int
	sqrt                   bool
}

// beamTables are the run's beam tables at channel fi: built, or shared
// with the other devices' runs through Options.Tables. They are read-only
// once built.
func (r *run) beamTables(fi int) (*beamTables, error) {
	f := r.sim.Freqs[fi]
	return r.opt.Tables.get(r.sim, f, r.p1, func() (*beamTables, error) { return buildBeamTables(r.sim, f, r.p1) })
}

// buildBeamTables builds the descriptors and the packed planes of every beam
// at freqHz. Gridded beams are prepared concurrently.
func buildBeamTables(sim *matvis.Simulation, freqHz float64, p1 bool) (*beamTables, error) {
	t := &beamTables{desc: make([]beamDesc, len(sim.Beams))}
	resp, err := t.prepare(sim, freqHz)
	if err != nil {
		return nil, err
	}
	nc := sim.Mode.Components()
	grids := make([]*beam.PlaneGrid, len(resp))
	nplanes := make([]int, len(resp))
	for b, r := range resp {
		if r != nil {
			g := r.Grid()
			grids[b], nplanes[b] = &g, r.NPlanes()
		}
	}
	offs, err := t.layout(sim, grids, nplanes, nc)
	if err != nil || t.ncoef == 0 {
		return t, err
	}
	t.pack(resp, offs, nc, p1)
	return t, nil
}

// prepare writes the analytic beams' descriptors and prepares the gridded
// beams at freqHz, concurrently (nil responses for the analytic ones).
func (t *beamTables) prepare(sim *matvis.Simulation, freqHz float64) ([]*beam.GriddedResponse, error) {
	nb := len(sim.Beams)
	resp := make([]*beam.GriddedResponse, nb)
	errs := make([]error, nb)
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for b, bm := range sim.Beams {
		kind, par, ok, err := analyticKind(bm, freqHz)
		if err != nil {
			return nil, fmt.Errorf("gpu: beam %d: %w", b, err)
		}
		if ok {
			t.desc[b] = analyticDesc(kind, par)
			continue
		}
		gb, err := asGridBeam(b, bm)
		if err != nil {
			return nil, err
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			r, err := gb.Prepare(freqHz, sim.Mode)
			if err != nil {
				errs[b] = fmt.Errorf("gpu: beam %d (%v) at %g Hz: %w", b, bm, freqHz, err)
				return
			}
			resp[b] = r
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return resp, nil
}

// layout writes the gridded beams' descriptors and one GeomDesc per
// distinct grid geometry, and returns each beam's offset into the packed
// planes (complex values; t.ncoef is their total). grids[b] is gridded
// beam b's plane geometry and nplanes[b] its plane count (grids[b] nil:
// analytic).
func (t *beamTables) layout(sim *matvis.Simulation, grids []*beam.PlaneGrid, nplanes []int, nc int) ([]int64, error) {
	geoms := map[geomKey]int{}
	offs := make([]int64, len(grids))
	for b, g := range grids {
		if g == nil {
			continue
		}
		if g.Order != 1 && g.Order != 3 {
			return nil, fmt.Errorf("gpu: beam %d (%v): spline order %d not supported on the GPU (1 or 3)", b, sim.Beams[b], g.Order)
		}
		if nplanes[b] != nc {
			return nil, fmt.Errorf("gpu: beam %d (%v): %d planes, want %d", b, sim.Beams[b], nplanes[b], nc)
		}
		if err := clampAgrees(*g); err != nil {
			return nil, fmt.Errorf("gpu: beam %d (%v): %w", b, sim.Beams[b], err)
		}
		k := geomKey{g.NZa, g.NAz, g.ZaMin, g.ZaScale, g.AzMin, g.AzScale, g.Order, g.SqrtAfterwards}
		gi, ok := geoms[k]
		if !ok {
			gi = len(geoms)
			geoms[k] = gi
			sq := int32(0)
			if g.SqrtAfterwards {
				sq = 1
			}
			t.geom = append(t.geom, geomDesc{Za0: g.ZaMin, ZScale: g.ZaScale, Az0: g.AzMin, AScale: g.AzScale,
				NZa: int32(g.NZa), NAz: int32(g.NAz), Order: int32(g.Order), SqrtAfter: sq})
		}
		offs[b] = t.ncoef
		t.desc[b] = beamDesc{Off: t.ncoef, Kind: kindNone, Geom: int32(gi)}
		t.ncoef += tableValues(g.NZa*g.NAz, nc)
	}
	return offs, nil
}

// clampAgrees reports an az_za_simple grid (PlaneGrid.Clamp) on which the
// kernels, which do not clamp, would not give the CPU's values at every
// direction above the horizon: one whose data do not cover za 0 … π/2 or
// whose azimuths do not wrap. Such beams' directions past the data are
// clamped to it on the CPU (fitpack's rule) but extended or zeroed by the
// kernels' footprint.
func clampAgrees(g beam.PlaneGrid) error {
	if !g.Clamp {
		return nil
	}
	e := 0
	if g.Order == 3 {
		e = 1 // the data lie inside one extra coefficient at each end
	}
	za0 := g.ZaMin + float64(e)*g.ZaStep
	za1 := g.ZaMin + float64(g.NZa-1-e)*g.ZaStep
	const tol = 1e-9
	switch {
	case !g.Extended:
		return fmt.Errorf("az_za_simple on an azimuth axis that does not wrap: the GPU kernels do not clamp directions past its ends as the CPU does (use the CPU backend or map_coordinates)")
	case za0 > tol || za1 < math.Pi/2-tol:
		return fmt.Errorf("az_za_simple on zenith angles %.6g … %.6g rad, not covering 0 … π/2: the GPU kernels do not clamp directions past them as the CPU does (use the CPU backend or map_coordinates)", za0, za1)
	}
	return nil
}

// tableValues is the complex values one beam's planes take in the packed
// tables: nodes × nc, rounded up to a multiple of 4 so that every beam
// starts aligned for the kernels' vector loads.
func tableValues(nodes, nc int) int64 { return (int64(nodes)*int64(nc) + 3) / 4 * 4 }

// pack packs the gridded beams' planes at offs in the run's real type,
// beams concurrently; each notes its largest value, the largest of which
// is t.maxAbs.
func (t *beamTables) pack(resp []*beam.GriddedResponse, offs []int64, nc int, p1 bool) {
	if p1 {
		t.coef32 = make([]float32, 2*t.ncoef)
	} else {
		t.coef64 = make([]float64, 2*t.ncoef)
	}
	maxes := make([]float64, len(resp))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for b, r := range resp {
		if r == nil {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			base := 2 * offs[b]
			for c, pl := range r.Planes() {
				if p1 {
					maxes[b] = max(maxes[b], packPlane(t.coef32[base:], pl, c, nc))
				} else {
					maxes[b] = max(maxes[b], packPlane(t.coef64[base:], pl, c, nc))
				}
			}
		}()
	}
	wg.Wait()
	for _, m := range maxes {
		t.maxAbs = max(t.maxAbs, m)
	}
}

// stack returns the gridded beams' planes (precision 1, polarized, one
// grid geometry) restacked by node for gram_fused's stacked path: node k
// holds the 4 components of beams 0..nbp-1 (beams past the run's are
// zero), complex64 as float32 pairs, out[((k*nbp + b)*4 + c)*2 + re|im].
func (t *beamTables) stack(nbp int) ([]float32, error) {
	if t.coef32 == nil || len(t.geom) != 1 {
		return nil, errors.New("gpu: stacked beam planes need precision-1 gridded beams on one grid geometry")
	}
	nodes := t.geom[0].nodes()
	nb := len(t.desc)
	if nb > nbp {
		return nil, fmt.Errorf("gpu: %d beams do not fit %d stacked slots", nb, nbp)
	}
	out := make([]float32, nodes*nbp*8)
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := w * nodes / workers; k < (w+1)*nodes/workers; k++ {
				for b := 0; b < nb; b++ {
					src := 2 * (int(t.desc[b].Off) + k*4)
					copy(out[(k*nbp+b)*8:(k*nbp+b)*8+8], t.coef32[src:src+8])
				}
			}
		}()
	}
	wg.Wait()
	return out, nil
}

// packPlane writes plane pl as component c of nc into dst (node-major,
// re/im interleaved), converting to the run's real type, and returns the
// largest magnitude of its real and imaginary parts.
func packPlane[T float32 | float64](dst []T, pl beam.Plane, c, nc int) float64 {
	var m float64
	switch {
	case pl.Re != nil:
		for i, x := range pl.Re {
			dst[2*(i*nc+c)] = T(x)
			m = max(m, math.Abs(x))
		}
		for i, x := range pl.Im {
			dst[2*(i*nc+c)+1] = T(x)
			m = max(m, math.Abs(x))
		}
	default:
		for i, x := range pl.Re32 {
			dst[2*(i*nc+c)] = T(x)
			m = max(m, math.Abs(float64(x)))
		}
		for i, x := range pl.Im32 {
			dst[2*(i*nc+c)+1] = T(x)
			m = max(m, math.Abs(float64(x)))
		}
	}
	return m
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
	if r.bp != nil {
		if err := r.bp.bind(r, fi); err != nil {
			return err
		}
		r.beamsFreq = fi
		return nil
	}
	t, err := r.beamTables(fi)
	if err != nil {
		return err
	}
	if err := cuda.Upload(r.c, r.dDesc, t.desc, r.s); err != nil {
		return fmt.Errorf("gpu: upload beam descriptors: %w", err)
	}
	r.freeBeamTables()
	if len(t.geom) > 0 {
		if r.dGeom, err = r.c.Alloc(int64(len(t.geom)) * int64(unsafe.Sizeof(t.geom[0]))); err != nil {
			return fmt.Errorf("gpu: beam geometries: %w", err)
		}
		r.track(r.dGeom, termBeamTables, int64(len(t.geom))*int64(unsafe.Sizeof(t.geom[0])))
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
	r.beamMax = t.maxAbs
	r.beamsFreq = fi
	return nil
}

// zBound bounds the Z values of a channel whose sources have Stokes I
// flux (or, for a polarized sky, parameters stokes, flux unused): |Z| ≤
// √λ·|A|, λ the largest eigenvalue magnitude of a source's coherency
// (skyLambda), and an interpolated beam value at most maxBeam (the largest
// plane value: spline weights are non-negative and sum to 1; analytic
// beams are at most 1). Parts may exceed it by up to √2 (complex beams,
// two feeds' sum), far inside FP16's range once scaled (65504).
func zBound(flux []float64, stokes *[4][]float64, maxBeam float64) float64 {
	return math.Sqrt(skyLambda(flux, stokes)) * max(maxBeam, 1)
}

// skyLambda is the largest eigenvalue magnitude of the sources'
// coherencies: (|I| + √(Q²+U²+V²))/2, |I|/2 unpolarized.
func skyLambda(flux []float64, stokes *[4][]float64) float64 {
	maxL := 0.0
	if stokes != nil {
		for k, i := range stokes[0] {
			p := math.Sqrt(stokes[1][k]*stokes[1][k] + stokes[2][k]*stokes[2][k] + stokes[3][k]*stokes[3][k])
			maxL = max(maxL, (math.Abs(i)+p)/2)
		}
	} else {
		for _, v := range flux {
			maxL = max(maxL, math.Abs(v)/2)
		}
	}
	return maxL
}

// skyLambdaParallel is skyLambda of a full-Stokes sky on every core.
func skyLambdaParallel(st *[4][]float64) float64 {
	n := len(st[0])
	workers := blocks.Workers(n, 65536)
	part := make([]float64, workers)
	step := (n + workers - 1) / max(workers, 1)
	blocks.Run(n, workers, func(lo, hi int) {
		sub := [4][]float64{st[0][lo:hi], st[1][lo:hi], st[2][lo:hi], st[3][lo:hi]}
		part[lo/max(step, 1)] = skyLambda(nil, &sub)
	})
	return slices.Max(part)
}

// setZScale sets the FP16 scale of channel fi (its sky's λ, recorded when
// the sky was loaded, and the bound of its beam tables): the power of two
// that brings zBound to at most 1, for the fused kernel and the
// tensor-core product, whose Z kernel writes Z scaled by it.
func (r *run) setZScale(fi int) {
	r.zscale = gram.Pow2Scale(math.Sqrt(r.skyL[fi%2]) * max(r.beamMax, 1))
	r.g.SetZScale(r.zscale)
}

func (r *run) freeBeamTables() {
	for _, p := range []*cuda.DevicePtr{&r.dGeom, &r.dCoef, &r.dCoefS} {
		r.freeDev(p)
	}
}
