// Package skyview is the computation behind notebook 04-images: a
// HERA-like hexagonal array, a small sky of point sources around the
// zenith, their visibilities through one beam over a span of drift,
// phased to the zenith of the span's middle (matvis/phase), and the dirty
// image and PSF of them (matvis/imaging).
//
// A notebook's widgets change one setting at a time, so an Explorer keeps
// what a change leaves valid: the visibilities of the largest array for
// each (beam, span) it has simulated. A change of the number of antennas
// or of the weighting only selects rows and images again; the image's
// size and cell are fixed by the largest array, so that every redraw has
// the same axes.
package skyview

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/imaging"
	"github.com/gomatvis/gomatvis/matvis/phase"
)

// HERA is the site of the array (HERA's, as in notebook 01).
var HERA = astro.Site{LatDeg: -30.72152612068957, LonDeg: 21.428303826863015, HeightM: 1051.69}

// Source is a point source placed by its direction cosines (l east, m
// north) from the phase centre, with a flat spectrum.
type Source struct {
	Name   string
	L, M   float64
	FluxJy float64
}

// Scene is what stays fixed while the widgets move: the array's largest
// size, the channels, the sky, the middle of the observation and how
// densely a span is sampled in time.
type Scene struct {
	// MaxAnt is the largest number of antennas (the hexagon's first
	// MaxAnt, HexLayout); Settings.NAnt is at most this.
	MaxAnt int
	// SpacingM is the hexagon's antenna spacing (HERA's: 14.6 m).
	SpacingM float64
	// Freqs are the channels, Hz.
	Freqs []float64
	// MidJD is the UTC Julian date of the span's middle, whose zenith
	// is the phase centre.
	MidJD float64
	// MaxSpanMin is the longest span, minutes; StepMin the time between
	// integrations (a span of s minutes has ⌊s/StepMin⌋ + 1 of them).
	MaxSpanMin, StepMin float64
	// FieldSin is how far the image reaches from the centre (sine of the
	// angle): the image's side is chosen to cover ±FieldSin.
	FieldSin float64
	// Sky are the sources.
	Sky []Source
}

// DefaultScene is notebook 04's: up to HERA-37 at 14.6 m, eight channels
// from 120 to 180 MHz, a two-hour span at most sampled every 10 minutes,
// and eight sources (one at the centre) within 15° of it, most inside a
// 14 m dish's main lobe (about 8° to half power at 150 MHz).
func DefaultScene() Scene {
	s := Scene{MaxAnt: 37, SpacingM: 14.6, MidJD: 2459845.25, MaxSpanMin: 120, StepMin: 10, FieldSin: 0.35}
	for i := range 8 {
		s.Freqs = append(s.Freqs, 120e6+60e6*float64(i)/7)
	}
	s.Sky = []Source{
		{"A", 0, 0, 10}, {"B", 0.06, 0.03, 6}, {"C", -0.05, 0.08, 5}, {"D", -0.1, -0.05, 8},
		{"E", 0.12, -0.1, 7}, {"F", 0.02, -0.15, 4}, {"G", -0.18, 0.15, 9}, {"H", 0.22, 0.1, 5},
	}
	return s
}

// Beam is the antennas' beam: an Airy pattern of a dish of DiameterM
// metres, or, with Uniform, a beam of 1 everywhere above the horizon.
type Beam struct {
	DiameterM float64
	Uniform   bool
}

// String is how the figures name the beam.
func (b Beam) String() string {
	if b.Uniform {
		return "uniform beam"
	}
	return fmt.Sprintf("Airy %g m dish", b.DiameterM)
}

// beam is b as matvis's beam.
func (b Beam) beam() beam.Beam {
	if b.Uniform {
		return beam.Uniform{}
	}
	return beam.Airy{DiameterM: b.DiameterM}
}

// Settings are what the widgets choose.
type Settings struct {
	NAnt      int     // antennas: the hexagon's first NAnt
	SpanMin   float64 // minutes of drift, centred on Scene.MidJD (0: a snapshot)
	Weighting imaging.Weighting
	Beam      Beam
}

// View is one redraw's result.
type View struct {
	Settings
	Dirty, PSF *imaging.Image
	WCS        imaging.WCS
	// Marks are the sky's sources, for the plot.
	Marks []imaging.Mark
	// Rows is the number of baseline-times imaged, Times the integrations.
	Rows, Times int
	// Simulated says whether this view ran the simulation (a cache
	// miss); Simulate and Image time the two steps.
	Simulated       bool
	Simulate, Image time.Duration
}

// phased is the largest array's data for one (beam, span): rows are
// (time, pair i < j) with every pair of Scene.MaxAnt antennas.
type phased struct {
	vis   *imaging.Vis
	pairs [][2]int // each row's antennas
	times int
}

// key names a simulation in the cache.
type key struct {
	beam Beam
	span float64
}

// Explorer computes views of one Scene; it is not safe for concurrent
// use (a notebook's redraw loop is one goroutine).
type Explorer struct {
	scene  Scene
	enu    [][3]float64
	centre phase.Centre
	geom   imaging.Geometry
	wcs    imaging.WCS
	cache  map[key]*phased
	// NoCache, when true, simulates every view afresh: the plain path the
	// cached one is tested against.
	NoCache bool
	// Workers is the imaging transform's goroutines (0: GOMAXPROCS); the
	// docs figures use 1, so that their bytes do not depend on the
	// machine's cores.
	Workers int
}

// New checks the scene and fixes the image's geometry from its largest
// array at its highest channel (imaging.DefaultGeometry's cell) and
// FieldSin.
func New(sc Scene) (*Explorer, error) {
	if err := sc.check(); err != nil {
		return nil, err
	}
	e := &Explorer{scene: sc, enu: HexLayout(sc.MaxAnt, sc.SpacingM), cache: map[key]*phased{}}
	var err error
	if e.centre, err = phase.ZenithCentre(HERA, sc.MidJD, astro.EOP{}); err != nil {
		return nil, fmt.Errorf("skyview: %w", err)
	}
	// The zenith's baselines are the ENU ones: enough to choose a cell.
	v := &imaging.Vis{Freqs: sc.Freqs}
	for i := range e.enu {
		for j := i + 1; j < len(e.enu); j++ {
			a, b := e.enu[i], e.enu[j]
			v.UVW = append(v.UVW, [3]float64{b[0] - a[0], b[1] - a[1], b[2] - a[2]})
		}
	}
	if e.geom, err = imaging.DefaultGeometry(v); err != nil {
		return nil, fmt.Errorf("skyview: %w", err)
	}
	e.geom.N = max(e.geom.N, 2*int(math.Ceil(sc.FieldSin/e.geom.Cell)))
	lo, hi := slices.Min(sc.Freqs), slices.Max(sc.Freqs)
	e.wcs = imaging.WCS{RA: e.centre.RA, Dec: e.centre.Dec, Freq: (lo + hi) / 2, Bandwidth: hi - lo, Stokes: 1}
	return e, nil
}

// check refuses a scene the explorer cannot draw, naming the field.
func (sc Scene) check() error {
	switch {
	case sc.MaxAnt < 2 || sc.MaxAnt > 1000:
		return fmt.Errorf("skyview: Scene.MaxAnt %d: want 2 to 1000 antennas", sc.MaxAnt)
	case !(sc.SpacingM > 0) || math.IsInf(sc.SpacingM, 0):
		return fmt.Errorf("skyview: Scene.SpacingM %v: want a positive spacing in metres", sc.SpacingM)
	case len(sc.Freqs) == 0:
		return fmt.Errorf("skyview: Scene.Freqs is empty: give at least one channel")
	case !(sc.StepMin > 0) || !(sc.MaxSpanMin >= 0) || sc.MaxSpanMin/sc.StepMin > 1000:
		return fmt.Errorf("skyview: Scene.MaxSpanMin %v, StepMin %v: want a step > 0 and at most 1000 steps", sc.MaxSpanMin, sc.StepMin)
	case !(sc.FieldSin > 0 && sc.FieldSin < 1):
		return fmt.Errorf("skyview: Scene.FieldSin %v: want a sine between 0 and 1", sc.FieldSin)
	case len(sc.Sky) == 0:
		return fmt.Errorf("skyview: Scene.Sky is empty: give at least one source")
	}
	for _, s := range sc.Sky {
		if !(s.L*s.L+s.M*s.M < 1) || math.IsNaN(s.FluxJy) || math.IsInf(s.FluxJy, 0) {
			return fmt.Errorf("skyview: source %q at (l, m) = (%v, %v), %v Jy: want l² + m² < 1 and a finite flux", s.Name, s.L, s.M, s.FluxJy)
		}
	}
	return nil
}

// Geometry is the image's size and cell, the same for every view.
func (e *Explorer) Geometry() imaging.Geometry { return e.geom }

// Check refuses settings outside the scene, naming the setting.
func (e *Explorer) Check(s Settings) error {
	switch {
	case s.NAnt < 2 || s.NAnt > e.scene.MaxAnt:
		return fmt.Errorf("skyview: %d antennas: want 2 to %d", s.NAnt, e.scene.MaxAnt)
	case !(s.SpanMin >= 0 && s.SpanMin <= e.scene.MaxSpanMin):
		return fmt.Errorf("skyview: span %v minutes: want 0 to %v", s.SpanMin, e.scene.MaxSpanMin)
	case !s.Beam.Uniform && !(s.Beam.DiameterM > 0 && s.Beam.DiameterM <= 1000):
		return fmt.Errorf("skyview: Airy dish diameter %v m: want more than 0 and at most 1000 m", s.Beam.DiameterM)
	}
	return nil
}

// View simulates (or takes from the cache) and images the settings.
func (e *Explorer) View(ctx context.Context, s Settings) (*View, error) {
	if err := e.Check(s); err != nil {
		return nil, err
	}
	v := &View{Settings: s, WCS: e.wcs}
	t0 := time.Now()
	k := key{s.Beam, s.SpanMin}
	p := e.cache[k]
	if p == nil || e.NoCache {
		var err error
		if p, err = e.simulate(ctx, s.Beam, s.SpanMin); err != nil {
			return nil, err
		}
		v.Simulated = true
		if !e.NoCache {
			e.cache[k] = p
		}
	}
	v.Simulate = time.Since(t0)
	t1 := time.Now()
	sub := p.subset(s.NAnt)
	v.Rows, v.Times = len(sub.UVW), p.times
	var err error
	opt := imaging.Options{Eps: 1e-6, Workers: e.Workers}
	if v.Dirty, err = imaging.Dirty(sub, e.geom, s.Weighting, opt); err != nil {
		return nil, fmt.Errorf("skyview: %w", err)
	}
	if v.PSF, err = imaging.PSF(sub, e.geom, s.Weighting, opt); err != nil {
		return nil, fmt.Errorf("skyview: %w", err)
	}
	v.Image = time.Since(t1)
	for _, src := range e.scene.Sky {
		ra, dec := e.wcs.RADec(src.L, src.M)
		v.Marks = append(v.Marks, imaging.Mark{Name: src.Name, RA: ra, Dec: dec})
	}
	return v, nil
}

// subset is the rows whose antennas are both among the first nant.
func (p *phased) subset(nant int) *imaging.Vis {
	nf := len(p.vis.Freqs)
	out := &imaging.Vis{Freqs: p.vis.Freqs}
	for r, ij := range p.pairs {
		if ij[0] < nant && ij[1] < nant {
			out.UVW = append(out.UVW, p.vis.UVW[r])
			out.Data = append(out.Data, p.vis.Data[r*nf:(r+1)*nf]...)
		}
	}
	return out
}

// Times are the integrations of a span: ⌊span/step⌋ + 1 of them, evenly
// spread over the span and centred on the middle.
func (sc Scene) Times(spanMin float64) []float64 {
	n := int(spanMin/sc.StepMin) + 1
	out := make([]float64, n)
	for i := range out {
		off := 0.0
		if n > 1 {
			off = spanMin * (float64(i)/float64(n-1) - 0.5)
		}
		out[i] = sc.MidJD + off/(24*60)
	}
	return out
}
