package gpu

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// Analytic beam kinds as the beam_analytic kernel knows them.
const (
	kindNone     = -1 // evaluated by another kernel
	kindUniform  = 0
	kindGaussian = 1
	kindAiry     = 2
	kindDipole   = 3
)

// GridBeam is what the GPU needs from a gridded beam to interpolate it on
// the device: its grid axes and spline order (matvis/beam's Gridded has
// these). The device samples the beam's own Response at the grid nodes
// once per frequency (which, for an interpolating spline, gives the
// frequency-interpolated grid values), extends the azimuths of a wrapping
// grid by 3 columns each side and prefilters for cubic splines, then
// interpolates exactly as the CPU does.
type GridBeam interface {
	beam.Beam
	Az() []float64 // azimuth samples, radians, evenly spaced
	Za() []float64 // zenith-angle samples, radians, evenly spaced
	Order() int    // 1 bilinear, 3 cubic B-spline
	Wraps() bool   // the azimuths cover the circle
}

// analyticKind maps a beam to its device kind and parameter at freqHz.
func analyticKind(b beam.Beam, freqHz float64) (kind int32, par float64, ok bool, err error) {
	switch v := b.(type) {
	case beam.Uniform, *beam.Uniform:
		return kindUniform, 0, true, nil
	case beam.ShortDipole, *beam.ShortDipole:
		return kindDipole, 0, true, nil
	case beam.Gaussian:
		return gaussPar(v, freqHz)
	case *beam.Gaussian:
		return gaussPar(*v, freqHz)
	case beam.Airy:
		return airyPar(v, freqHz)
	case *beam.Airy:
		return airyPar(*v, freqHz)
	}
	return kindNone, 0, false, nil
}

func gaussPar(g beam.Gaussian, f float64) (int32, float64, bool, error) {
	if err := g.Validate(); err != nil {
		return 0, 0, true, err
	}
	s := g.Sigma(f)
	if !(s > 0) {
		return 0, 0, true, fmt.Errorf("beam %v at %g Hz: sigma %g is not positive", g, f, s)
	}
	return kindGaussian, 1 / (2 * s * s), true, nil
}

func airyPar(a beam.Airy, f float64) (int32, float64, bool, error) {
	if !(a.DiameterM > 0) || math.IsInf(a.DiameterM, 0) {
		return 0, 0, true, fmt.Errorf("beam %v: diameter must be positive and finite", a)
	}
	return kindAiry, a.DiameterM / 2 * 2 * math.Pi * f / beam.SpeedOfLight, true, nil
}

// gridGroup is a set of gridded beams with one grid geometry, interpolated
// by one launch: G = len(beams)·ncomp planes interleaved per grid node.
type gridGroup struct {
	key      gridKey
	beams    []int     // beam indices
	planeOut []int32   // output plane of each group plane
	coef     []float64 // (nza·nazExt·G) complex values as re, im pairs
	nazExt   int
	za0      float64
	zscale   float64
	az0      float64 // of the extended grid
	ascale   float64
}

type gridKey struct {
	nza, naz    int
	za0, zaLast float64
	az0, azLast float64
	order       int
	wraps       bool
}

// prepareGrids samples every gridded beam at freqHz and builds the device
// planes, grouped by geometry.
func prepareGrids(sim *matvis.Simulation, freqHz float64, isGrid []bool) ([]*gridGroup, error) {
	nc := sim.Mode.Components()
	groups := map[gridKey]*gridGroup{}
	var order []*gridGroup
	for b, bm := range sim.Beams {
		if !isGrid[b] {
			continue
		}
		gb := bm.(GridBeam)
		az, za := gb.Az(), gb.Za()
		if len(az) < 2 || len(za) < 2 {
			return nil, fmt.Errorf("gpu: beam %v: grid needs at least 2 samples per axis", bm)
		}
		k := gridKey{len(za), len(az), za[0], za[len(za)-1], az[0], az[len(az)-1], gb.Order(), gb.Wraps()}
		if k.order != 1 && k.order != 3 {
			return nil, fmt.Errorf("gpu: beam %v: spline order %d not supported on the GPU (1 or 3)", bm, k.order)
		}
		g := groups[k]
		if g == nil {
			g = &gridGroup{key: k}
			groups[k] = g
			order = append(order, g)
		}
		g.beams = append(g.beams, b)
	}
	for _, g := range order {
		if err := g.build(sim, freqHz, nc); err != nil {
			return nil, err
		}
	}
	return order, nil
}

func (g *gridGroup) build(sim *matvis.Simulation, freqHz float64, nc int) error {
	k := g.key
	nza, naz := k.nza, k.naz
	ext := 0
	if k.wraps {
		ext = 3
	}
	g.nazExt = naz + 2*ext
	daz := (k.azLast - k.az0) / float64(naz-1)
	g.az0 = k.az0 - float64(ext)*daz
	azLastExt := k.azLast + float64(ext)*daz
	g.ascale = float64(g.nazExt-1) / (azLastExt - g.az0)
	g.za0 = k.za0
	g.zscale = float64(nza-1) / (k.zaLast - k.za0)
	G := len(g.beams) * nc
	g.coef = make([]float64, 2*nza*g.nazExt*G)
	for gi, b := range g.beams {
		for c := 0; c < nc; c++ {
			g.planeOut = append(g.planeOut, int32(b*nc+c))
		}
		_ = gi
	}
	// Node positions of the original grid.
	gb0 := sim.Beams[g.beams[0]].(GridBeam)
	azs, zas := gb0.Az(), gb0.Za()
	npt := nza * naz
	az := make([]float64, npt)
	za := make([]float64, npt)
	for i := 0; i < nza; i++ {
		for j := 0; j < naz; j++ {
			az[i*naz+j], za[i*naz+j] = azs[j], zas[i]
		}
	}
	// Sample, extend and prefilter each beam's planes, beams in parallel.
	errs := make([]error, len(g.beams))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for gi, b := range g.beams {
		wg.Add(1)
		sem <- struct{}{}
		go func(gi, b int) {
			defer wg.Done()
			defer func() { <-sem }()
			resp, err := sim.Beams[b].At(freqHz, sim.Mode)
			if err != nil {
				errs[gi] = fmt.Errorf("gpu: beam %v at %g Hz: %w", sim.Beams[b], freqHz, err)
				return
			}
			out := make([]complex128, nc*npt)
			resp.Eval(az, za, out)
			plane := make([]float64, nza*g.nazExt)
			for c := 0; c < nc; c++ {
				for part := 0; part < 2; part++ {
					for i := 0; i < nza; i++ {
						for jx := 0; jx < g.nazExt; jx++ {
							j := ((jx-ext)%naz + naz) % naz
							v := out[c*npt+i*naz+j]
							var x float64
							if nc == 1 {
								// Unpolarized: Eval gives sqrt(power); the
								// device interpolates the power.
								if part == 0 {
									x = real(v) * real(v)
								}
							} else if part == 0 {
								x = real(v)
							} else {
								x = imag(v)
							}
							plane[i*g.nazExt+jx] = x
						}
					}
					if k.order == 3 {
						prefilter2D(plane, nza, g.nazExt)
					}
					gp := gi*nc + c
					for n, x := range plane {
						g.coef[2*(n*G+gp)+part] = x
					}
				}
			}
		}(gi, b)
	}
	wg.Wait()
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// The cubic B-spline prefilter (Unser's recursive filter with whole-sample
// mirror boundaries), as scipy.ndimage.spline_filter does it: axis 0 then
// axis 1. The CPU's gridded beams use the same filter.
const splinePole = -0.267949192431122706472553658494127633 // √3 − 2

func prefilterLine(c []float64, n, stride int, buf []float64) {
	if n <= 1 {
		return
	}
	x := buf[:n]
	for i := range x {
		x[i] = c[i*stride] * 6 // gain (1−z)(1−1/z) = 6 for the cubic pole
	}
	z := splinePole
	zn := math.Pow(z, float64(n-1))
	sum := x[0] + zn*x[n-1]
	zi := z
	for i := 1; i < n-1; i++ {
		sum += zi * (x[i] + zn*x[n-1-i])
		zi *= z
	}
	x[0] = sum / (1 - zn*zn)
	for i := 1; i < n; i++ {
		x[i] += z * x[i-1]
	}
	x[n-1] = (z*x[n-2] + x[n-1]) * z / (z*z - 1)
	for i := n - 2; i >= 0; i-- {
		x[i] = z * (x[i+1] - x[i])
	}
	for i := range x {
		c[i*stride] = x[i]
	}
}

func prefilter2D(p []float64, nrow, ncol int) {
	buf := make([]float64, max(nrow, ncol))
	for j := 0; j < ncol; j++ {
		prefilterLine(p[j:], nrow, ncol, buf)
	}
	for i := 0; i < nrow; i++ {
		prefilterLine(p[i*ncol:], ncol, 1, buf)
	}
}
