package beam

import (
	"fmt"
	"sync"
)

// PlaneGrid is the geometry of the planes a GriddedResponse interpolates:
// row-major NZa × NAz arrays (za rows, az columns; the azimuth axis
// includes the 3 + 3 wrap columns when Extended). A direction (az, za)
// maps to the fractional indices
//
//	iza = (za − ZaMin)·ZaScale,  iaz = (az − AzMin)·AzScale
//
// (pyuvdata's arithmetic, in this order). Any index outside [0, N−1] on
// either axis gives 0. Inside, Order 1 is bilinear on the raw values;
// Order 3 sums the 4 × 4 cubic B-spline footprint starting at
// floor(i) − 1 over the coefficients, footprint indices beyond an edge
// being mirrored about the edge sample (−1 → 1, N → N − 2).
//
// With Clamp (az_za_simple), Order 3 planes hold the not-a-knot spline's
// coefficients, one more than the (extended) data at each end of both
// axes, so NZa, NAz, ZaMin and AzMin are the coefficient table's (the data
// lie at indices 1 … N − 2, and a footprint inside them never reaches past
// the table); Order 1 planes are the data. A direction is clamped to the
// data's index range before its footprint is taken, and one farther than
// CoverRad from every data sample gives 0. An evaluator without the clamp
// (mirror at the table's edges, 0 outside it) agrees inside the data
// range, which holds every direction above the horizon of a grid that
// covers za 0 … 90° and wraps in azimuth.
type PlaneGrid struct {
	NZa, NAz         int
	ZaMin, ZaScale   float64
	AzMin, AzScale   float64
	ZaStep, AzStep   float64 // grid steps in radians (1/scale up to rounding)
	Extended         bool    // azimuth wraps; 3 columns copied on each side
	Order            int     // 1 bilinear, 3 cubic B-spline
	Precision        int     // 1: planes hold float32, 2: float64
	SqrtAfterwards   bool    // unpolarized: Eval returns sqrt(interpolated power)
	FrequencyHz      float64 // the frequency the planes are prepared for
	NearestChannelHz float64 // the beam channel used as is, or 0 when interpolated
	Clamp            bool    // az_za_simple: clamped to the data, extra coefficients (see above)
	CoverRad         float64 // az_za_simple: farthest distance from a data sample that is evaluated
	// Pole: the planes continue through the pole (Gridded.WithPole's
	// PoleContinued): with map_coordinates the table has one more row,
	// the first at za = −ZaStep (ZaMin is one step lower), holding the
	// continuation; with az_za_simple its first coefficient row is the
	// continuation's.
	Pole bool
}

// Plane is one interpolation plane: raw values (order 1) or cubic
// B-spline coefficients (order 3), real and imaginary parts separately.
// Exactly one of the float64 and float32 pairs is set (by the precision);
// Im/Im32 is nil for a real plane (the power of unpolarized runs).
type Plane struct {
	Re, Im     []float64
	Re32, Im32 []float32
}

// GriddedResponse is a Gridded beam prepared at one frequency and mode.
// Besides Eval it exposes its planes and their geometry for accelerator
// backends, and EvalPoints evaluates directions located once (GridPoints)
// for every response of a geometry.
//
// The planes are stored interleaved, node-major: the values of all planes
// at one grid node are adjacent (plane p's real part at
// (node·nplane + p)·w, its imaginary part next to it when w = 2), so one
// cache line serves every plane of a footprint row.
type GriddedResponse struct {
	mode   Mode
	grid   PlaneGrid
	nplane int       // planes: 4 polarized, 1 unpolarized
	nv     int       // values per node: nplane, twice that when complex
	cplx   bool      // imaginary parts are stored
	c64    []float64 // interleaved planes, precision 2
	c32    []float32 // interleaved planes, precision 1
}

// Grid returns the geometry of the planes.
func (r *GriddedResponse) Grid() PlaneGrid { return r.grid }

// Planes returns the planes, copied out of the interleaved store:
// polarized, 4 planes with component (feed f, axis k) at index 2f + k, as
// Eval's output; unpolarized, 1 real plane of the chosen feed's power, whose
// interpolated value Eval square-roots.
func (r *GriddedResponse) Planes() []Plane {
	planes := make([]Plane, r.nplane)
	w := r.nv / r.nplane
	for p := range planes {
		if r.c32 != nil {
			planes[p].Re32 = gatherPlane(r.c32, r.nv, p*w)
			if r.cplx {
				planes[p].Im32 = gatherPlane(r.c32, r.nv, p*w+1)
			}
		} else {
			planes[p].Re = gatherPlane(r.c64, r.nv, p*w)
			if r.cplx {
				planes[p].Im = gatherPlane(r.c64, r.nv, p*w+1)
			}
		}
	}
	return planes
}

// gatherPlane returns c[off], c[off+nv], c[off+2nv], ...
func gatherPlane[T float32 | float64](c []T, nv, off int) []T {
	out := make([]T, len(c)/nv)
	for i := range out {
		out[i] = c[i*nv+off]
	}
	return out
}

// interleave packs the planes re[p] (and im[p] when cplx) node-major into
// a new slice of T.
func interleave[T float32 | float64](re, im [][]float64, cplx bool) []T {
	np := len(re)
	w := 1
	if cplx {
		w = 2
	}
	nv := np * w
	nn := len(re[0])
	out := make([]T, nn*nv)
	for p := range np {
		for i, x := range re[p] {
			out[i*nv+p*w] = T(x)
		}
		if cplx {
			for i, x := range im[p] {
				out[i*nv+p*w+1] = T(x)
			}
		}
	}
	return out
}

// At prepares the beam at freqHz for mode: frequency interpolation
// (nearest channel within FreqTolHz, otherwise the beam's FreqInterp kind —
// by default cubic along frequency, which needs 4 channels and freqHz
// inside the channel range), then for an
// unpolarized mode the E-field → power conversion of the feed (|E₀|² +
// |E₁|² for the aligned basis), the azimuth extension and, for order 3, the
// spline prefilter (map_coordinates) or the not-a-knot coefficient solve
// (az_za_simple). Polarized modes need an E-field beam with 2 feeds and
// 2 basis-vector axes.
func (g *Gridded) At(freqHz float64, mode Mode) (Response, error) {
	r, err := g.Prepare(freqHz, mode)
	if err != nil {
		return nil, err // not a typed nil inside the interface
	}
	return r, nil
}

// Prepare is At returning the concrete *GriddedResponse.
func (g *Gridded) Prepare(freqHz float64, mode Mode) (*GriddedResponse, error) {
	w, err := g.freqWeights(freqHz)
	if err != nil {
		return nil, fmt.Errorf("beam: %s: %w", g, err)
	}
	srcs, powerFromE, err := g.planeSources(mode)
	if err != nil {
		return nil, err
	}
	power := !mode.Polarized
	grid := g.planeGrid(freqHz, mode, nearestChannel(g.spec.FreqsHz, w))
	re, im := g.planes(srcs, w, powerFromE, !power && g.cplx, grid)
	r := &GriddedResponse{mode: mode, grid: grid, nplane: len(srcs), nv: len(srcs), cplx: !power && g.cplx}
	if r.cplx {
		r.nv *= 2
	}
	if g.Precision() == 1 {
		r.c32 = interleave[float32](re, im, r.cplx)
	} else {
		r.c64 = interleave[float64](re, im, r.cplx)
	}
	return r, nil
}

// nearestChannel is the one channel of freqs whose weight in w is
// non-zero, or 0 when several combine.
func nearestChannel(freqs, w []float64) float64 {
	nearest, nonzero := 0.0, 0
	for j, v := range w {
		if v != 0 {
			nonzero++
			nearest = freqs[j]
		}
	}
	if nonzero != 1 {
		return 0
	}
	return nearest
}

// planeGrid is the geometry of the prepared planes at freqHz: the raw
// grid, extended in azimuth by azExtend samples each side when it wraps.
func (g *Gridded) planeGrid(freqHz float64, mode Mode, nearest float64) PlaneGrid {
	az, za := g.spec.AzRad, g.spec.ZaRad
	nza, naz := len(za), len(az)
	ext := g.Wraps()
	nazE := naz
	d := az[1] - az[0]
	azMin, azMax := az[0], az[naz-1]
	if ext {
		nazE = naz + 2*azExtend
		azMin = az[0] + float64(-azExtend)*d
		azMax = az[naz-1] + float64(azExtend)*d
	}
	pg := PlaneGrid{
		NZa: nza, NAz: nazE,
		ZaMin:   za[0],
		ZaScale: float64(nza-1) / (za[nza-1] - za[0]),
		AzMin:   azMin,
		AzScale: float64(nazE-1) / (azMax - azMin),
		ZaStep:  (za[nza-1] - za[0]) / float64(nza-1),
		AzStep:  (azMax - azMin) / float64(nazE-1),

		Extended:         ext,
		Order:            g.order,
		Precision:        g.Precision(),
		SqrtAfterwards:   !mode.Polarized,
		FrequencyHz:      freqHz,
		NearestChannelHz: nearest,
	}
	if ok, _ := g.PoleApplies(mode); ok {
		pg.Pole = true
		if !g.azZaSimple() {
			// The table starts one coefficient row past the pole.
			pg.NZa++
			pg.ZaMin -= pg.ZaStep
		}
	}
	if g.azZaSimple() {
		// pyuvdata's check_azza_domain: 2 × the larger first step.
		pg.Clamp = true
		pg.CoverRad = 2 * max(az[1]-az[0], za[1]-za[0])
		if g.order == 3 {
			pg.NZa, pg.NAz = nza+2, nazE+2
			pg.ZaMin -= pg.ZaStep
			pg.AzMin -= pg.AzStep
		}
	}
	return pg
}

// planes makes the prepared planes of srcs (real parts, and imaginary
// parts when cplx), each on its own goroutine: the frequency step with
// channel weights w, the azimuth extension, the prefilter.
func (g *Gridded) planes(srcs []planeSrc, w []float64, powerFromE, cplx bool, grid PlaneGrid) (re, im [][]float64) {
	nza, naz := len(g.spec.ZaRad), len(g.spec.AzRad)
	np := nza * naz
	sign := 1.0 // the continuation's: a power's (powerFromE or a power beam)
	if !powerFromE && g.spec.Type == EField {
		sign = -1 // an E-field component's
	}
	type job struct {
		s    planeSrc
		imag bool
		out  *[]float64
	}
	re = make([][]float64, len(srcs))
	im = make([][]float64, len(srcs))
	var jobs []job
	for p, s := range srcs {
		jobs = append(jobs, job{s, false, &re[p]})
		if cplx {
			jobs = append(jobs, job{s, true, &im[p]})
		}
	}
	var wg sync.WaitGroup
	for _, jb := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pl := make([]float64, np)
			for j, wj := range w {
				if wj == 0 {
					continue
				}
				if powerFromE {
					g.addPower(pl, jb.s.comp, j, wj)
				} else {
					g.addPlane(pl, g.planeStart(jb.s.vec, jb.s.comp, j), jb.imag, wj)
				}
			}
			if grid.Pole {
				g.poleRow(pl[:naz], jb.s, jb.imag, w, powerFromE)
				*jb.out = g.continuedPlane(pl, sign)
				return
			}
			nazE := naz
			if grid.Extended {
				pl = extendAz(pl, nza, naz)
				nazE += 2 * azExtend
			}
			switch {
			case g.order == 3 && g.azZaSimple():
				pl = notAKnot2D(pl, nza, nazE)
			case g.order == 3:
				prefilter2D(pl, nza, nazE)
			}
			*jb.out = pl
		}()
	}
	wg.Wait()
	return re, im
}

// addPlane adds wj × (the real or imaginary part of the raw plane
// starting at sample base) to dst.
func (g *Gridded) addPlane(dst []float64, base int, imag bool, wj float64) {
	stride, off := 1, 0
	if g.cplx {
		stride = 2
		if imag {
			off = 1
		}
	} else if imag {
		return
	}
	start := base*stride + off
	if g.d32 != nil {
		src := g.d32[start:]
		for i := range dst {
			dst[i] += wj * float64(src[i*stride])
		}
		return
	}
	src := g.d64[start:]
	for i := range dst {
		dst[i] += wj * src[i*stride]
	}
}

// addPower adds wj × (power of feed comp at channel j) to dst, as
// pyuvdata's efield_to_power without cross pols: Σ_c |Σ_k E_k b[k, c]|²
// over the 2 basis components c (|E₀|² + |E₁|² for the aligned basis).
func (g *Gridded) addPower(dst []float64, comp, j int, wj float64) {
	np := g.nplane()
	b0 := g.planeStart(0, comp, j)
	b1 := g.planeStart(1, comp, j)
	basis := g.spec.Basis
	for i := 0; i < np; i++ {
		r0, i0 := g.value(b0 + i)
		r1, i1 := g.value(b1 + i)
		var p float64
		if basis == nil {
			p = (r0*r0 + i0*i0) + (r1*r1 + i1*i1)
		} else {
			for c := 0; c < 2; c++ {
				// basis layout (vec, comp, za, az)
				bc0 := basis[(0*2+c)*np+i]
				bc1 := basis[(1*2+c)*np+i]
				p += (r0*r0+i0*i0)*bc0*bc0 + (r1*r1+i1*i1)*bc1*bc1 +
					2*(r0*r1+i0*i1)*bc0*bc1
			}
		}
		dst[i] += wj * p
	}
}

// extendAz returns the nza × (naz+6) plane with the last 3 columns copied
// before the first and the first 3 after the last.
func extendAz(p []float64, nza, naz int) []float64 {
	n := naz + 2*azExtend
	out := make([]float64, nza*n)
	for r := 0; r < nza; r++ {
		row := p[r*naz : (r+1)*naz]
		o := out[r*n : (r+1)*n]
		copy(o[:azExtend], row[naz-azExtend:])
		copy(o[azExtend:azExtend+naz], row)
		copy(o[azExtend+naz:], row[:azExtend])
	}
	return out
}

// planeSrc names one grid plane: basis-vector axis vec, feed or pol comp.
type planeSrc struct{ vec, comp int }

// planeSources lists the planes a mode interpolates, in output order, and
// whether power is formed from the E-field on the grid; it reports a mode
// the beam cannot serve.
func (g *Gridded) planeSources(mode Mode) (srcs []planeSrc, powerFromE bool, err error) {
	if mode.Polarized {
		switch {
		case g.spec.Type != EField:
			return nil, false, fmt.Errorf("beam: %s: a polarized run needs an E-field beam, this is a %s beam", g, g.spec.Type)
		case g.ncomp != 2:
			return nil, false, fmt.Errorf("beam: %s: a polarized run needs 2 feeds, the beam has %d (%v)", g, g.ncomp, g.spec.Feeds)
		case g.spec.NAxesVec != 2:
			return nil, false, fmt.Errorf("beam: %s: a polarized run needs 2 basis-vector axes, the beam has %d", g, g.spec.NAxesVec)
		}
		for f := 0; f < 2; f++ {
			for k := 0; k < 2; k++ {
				srcs = append(srcs, planeSrc{k, f})
			}
		}
	} else {
		// matvis: an E-field beam becomes a power beam without cross
		// pols; a single-pol (or single-feed) beam is used whatever the feed.
		comp := 0
		switch g.spec.Type {
		case EField:
			if g.spec.NAxesVec != 2 {
				return nil, false, fmt.Errorf("beam: %s: E-field → power needs 2 basis-vector axes, the beam has %d", g, g.spec.NAxesVec)
			}
			powerFromE = true
			if g.ncomp > 1 {
				if comp, err = g.feedIndex(mode.Feed); err != nil {
					return nil, false, err
				}
			}
		case Power:
			if g.ncomp > 1 {
				if comp, err = g.polIndex(mode.Feed); err != nil {
					return nil, false, err
				}
			}
		}
		srcs = append(srcs, planeSrc{0, comp})
	}
	return srcs, powerFromE, nil
}

// Check reports, without preparing anything, whether At(freqHz, mode)
// would fail: a frequency the beam cannot be interpolated to, or a mode
// it cannot serve. The simulator calls it for every beam and channel
// before a run, so a bad channel fails at once rather than mid-run.
func (g *Gridded) Check(freqHz float64, mode Mode) error {
	if _, err := g.freqWeights(freqHz); err != nil {
		return fmt.Errorf("beam: %s: %w", g, err)
	}
	_, _, err := g.planeSources(mode)
	return err
}
