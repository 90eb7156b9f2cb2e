package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// SkyImageData is a square sky image (a dirty image or a PSF) on axes
// of angle: pixel (x, y) is Pix[y*N+x] at (X[x], Y[y]), Y up.
type SkyImageData struct {
	Title          string
	N              int
	Pix            []float64
	X, Y           []float64 // pixel centres, increasing, N each
	XLabel, YLabel string
	// XTick and YTick, when set, write a tick's label from its value
	// (RA and Dec from the image's offsets, say); "" drops the label.
	XTick, YTick func(v float64) string
	// Unit labels the colour bar (e.g. "Jy/beam").
	Unit string
	// Marks are drawn as open circles where they fall on the image; the
	// caption says how many.
	Marks []SkyMark
}

// SkyMark is a point to mark on a sky image, in the axes' units.
type SkyMark struct {
	Name string
	X, Y float64
}

// skyGrid is SkyImageData as gonum's GridXYZ.
type skyGrid struct{ d *SkyImageData }

func (g skyGrid) Dims() (c, r int)   { return g.d.N, g.d.N }
func (g skyGrid) Z(c, r int) float64 { return g.d.Pix[r*g.d.N+c] }
func (g skyGrid) X(c int) float64    { return g.d.X[c] }
func (g skyGrid) Y(r int) float64    { return g.d.Y[r] }

// labelTicks relabels linearTicks' labelled ticks with a function.
type labelTicks struct{ label func(float64) string }

func (t labelTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := linearTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = t.label(ticks[i].Value)
		}
	}
	return ticks
}

// SkyImage draws a sky image as a heat map (one raster, black body
// colours) with a colour bar, square pixels (the axis with room to spare
// is widened) and the marks that fall on it as open circles.
func SkyImage(d SkyImageData) (*Figure, error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	f := newFigure(d.Title, d.XLabel, d.YLabel)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range d.Pix {
		lo, hi = min(lo, v), max(hi, v)
	}
	pal := moreland.ExtendedBlackBody()
	if hi > lo {
		pal.SetMin(lo)
		pal.SetMax(hi)
	} else {
		pal.SetMin(lo - 1)
		pal.SetMax(lo + 1)
	}
	hm := plotter.NewHeatMap(skyGrid{&d}, pal.Palette(255))
	// One raster image, not a rectangle per pixel (whose anti-aliased
	// edges draw a mesh over the map, and make an SVG of N² elements).
	hm.Rasterized = true
	f.Plot.Add(hm)
	f.addShape(shape{series: "image", kind: fill})
	f.note(fmt.Sprintf("%s %.3g … %.3g", d.Unit, lo, hi), "heatmap", d.N*d.N)
	if d.XTick != nil {
		f.Plot.X.Tick.Marker = labelTicks{d.XTick}
	}
	if d.YTick != nil {
		f.Plot.Y.Tick.Marker = labelTicks{d.YTick}
	}
	if err := f.skyMarks(&d); err != nil {
		return nil, err
	}
	cb := plot.New()
	styleAxes(cb)
	cb.HideX()
	cb.Y.Label.Text = d.Unit
	cb.Y.Min, cb.Y.Max = pal.Min(), pal.Max()
	cb.Add(&plotter.ColorBar{ColorMap: pal, Vertical: true})
	f.ColorBar = cb
	f.squarePixels(&d)
	return f, nil
}

// check refuses data that cannot be drawn.
func (d *SkyImageData) check() error {
	switch {
	case d.N < 2:
		return fmt.Errorf("plots: sky image %q: %d pixels a side, want at least 2", d.Title, d.N)
	case len(d.Pix) != d.N*d.N || len(d.X) != d.N || len(d.Y) != d.N:
		return fmt.Errorf("plots: sky image %q: %d pixels, %d x and %d y for a side of %d", d.Title, len(d.Pix), len(d.X), len(d.Y), d.N)
	}
	for k, v := range d.Pix {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("plots: sky image %q: pixel (%d, %d) is %v", d.Title, k%d.N, k/d.N, v)
		}
	}
	for _, a := range [][]float64{d.X, d.Y} {
		for i := 1; i < len(a); i++ {
			if !(a[i] > a[i-1]) {
				return fmt.Errorf("plots: sky image %q: pixel centres %v, %v do not increase", d.Title, a[i-1], a[i])
			}
		}
	}
	return nil
}

// skyMarks draws the marks inside the image's extent.
func (f *Figure) skyMarks(d *SkyImageData) error {
	hx, hy := (d.X[1]-d.X[0])/2, (d.Y[1]-d.Y[0])/2
	var pts plotter.XYs
	for _, m := range d.Marks {
		if m.X >= d.X[0]-hx && m.X <= d.X[d.N-1]+hx && m.Y >= d.Y[0]-hy && m.Y <= d.Y[d.N-1]+hy {
			pts = append(pts, plotter.XY{X: m.X, Y: m.Y})
		}
	}
	if len(pts) == 0 {
		return nil
	}
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return fmt.Errorf("plots: sky image %q: %w", d.Title, err)
	}
	r := vg.Points(5)
	s.GlyphStyle = draw.GlyphStyle{Color: color.RGBA{G: 220, B: 255, A: 255}, Radius: r, Shape: draw.RingGlyph{}}
	f.Plot.Add(s)
	f.pointShape("sources", pts, r)
	f.note("sources", "marker", len(pts))
	f.Caption = append(f.Caption, fmt.Sprintf("○ %d source(s) of the sky model", len(pts)))
	return nil
}

// squarePixels widens the X or Y range so that a unit of either axis
// takes the same length on the canvas. The data area depends on the tick
// labels, which depend on the ranges: a few rounds settle it.
func (f *Figure) squarePixels(d *SkyImageData) {
	hx, hy := (d.X[1]-d.X[0])/2, (d.Y[1]-d.Y[0])/2
	x0, x1 := d.X[0]-hx, d.X[d.N-1]+hx
	y0, y1 := d.Y[0]-hy, d.Y[d.N-1]+hy
	f.Plot.X.Min, f.Plot.X.Max, f.Plot.Y.Min, f.Plot.Y.Max = x0, x1, y0, y1
	for range 3 {
		dc := f.Plot.DataCanvas(f.mainCanvas())
		w, h := float64(dc.Max.X-dc.Min.X), float64(dc.Max.Y-dc.Min.Y)
		if w/h > (x1-x0)/(y1-y0) {
			c, half := (x0+x1)/2, (y1-y0)*w/h/2
			f.Plot.X.Min, f.Plot.X.Max = c-half, c+half
		} else {
			c, half := (y0+y1)/2, (x1-x0)*h/w/2
			f.Plot.Y.Min, f.Plot.Y.Max = c-half, c+half
		}
	}
}
