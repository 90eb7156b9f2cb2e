// Package plots draws gomatvis's figures with gonum/plot: a roofline, stage
// breakdowns, memory against chunk size, scaling, and visibility views.
//
// Each figure is a function from plain data to a *Figure, which embeds the
// *plot.Plot (so everything gonum/plot offers applies) and lists the series
// it drew, so that tests can check a figure's data and labels without
// comparing pixels. Every figure shares one palette (Color) and one set of
// fonts (sans serif), and its legend is placed when it is drawn: in the
// first corner of the data area that no series covers, or else outside,
// to the right of the axes (LegendPlacement says where and what it would
// cover). PNG (at 2× resolution), SVG and the bytes for a notebook display
// (GoNB's gonbui.DisplayPNG / DisplaySVG) come from the helpers here; this
// package does not depend on GoNB.
package plots

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/gomatvis/gomatvis/internal/atomicfile"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Series describes one thing a figure drew.
type Series struct {
	// Name is the legend entry (or the label of an unlabelled element).
	Name string
	// Kind is "line", "scatter", "bars", "area", "labels", "heatmap" or
	// "marker".
	Kind string
	// Points is the number of data points (bars, cells) it holds.
	Points int
}

// Figure is a plot and the series drawn on it.
type Figure struct {
	*plot.Plot
	Series []Series
	// Caption lines are drawn under the axes, in a smaller font: what the
	// figure needs said that fits neither the title nor the legend.
	Caption []string
	// ColorBar, when set, is drawn in a strip right of the axes (a heat
	// map's scale).
	ColorBar *plot.Plot

	shapes  []shape
	entries []string // the legend's entries, in order
}

// Default figure size (of the axes and title; an outside legend, a colour
// bar and a caption add to it).
const (
	Width  = 16 * vg.Centimeter
	Height = 10 * vg.Centimeter
	// DPI is the PNG resolution: twice the 96 of a screen, for docs.
	DPI = 192
)

// Fonts of every figure: one sans-serif family at four sizes.
var (
	fontTitle   = font.Font{Typeface: "Liberation", Variant: "Sans", Size: 11}
	fontLabel   = font.Font{Typeface: "Liberation", Variant: "Sans", Size: 10}
	fontTick    = font.Font{Typeface: "Liberation", Variant: "Sans", Size: 9}
	fontLegend  = font.Font{Typeface: "Liberation", Variant: "Sans", Size: 9}
	fontCaption = font.Font{Typeface: "Liberation", Variant: "Sans", Size: 8}
)

// styleAxes gives p the figures' fonts and tick formatting.
func styleAxes(p *plot.Plot) {
	p.Title.TextStyle.Font = fontTitle
	p.Legend.TextStyle.Font = fontLegend
	p.Legend.ThumbnailWidth = vg.Points(18)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = fontLabel
		a.Tick.Label.Font = fontTick
		a.Tick.Marker = linearTicks{}
	}
}

func newFigure(title, xlabel, ylabel string) *Figure {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	styleAxes(p)
	return &Figure{Plot: p}
}

func (f *Figure) note(name, kind string, n int) {
	f.Series = append(f.Series, Series{Name: name, Kind: kind, Points: n})
}

// legend adds a legend entry.
func (f *Figure) legend(name string, thumbs ...plot.Thumbnailer) {
	f.Plot.Legend.Add(name, thumbs...)
	f.entries = append(f.entries, name)
}

// Count returns the number of series of a kind ("" counts all).
func (f *Figure) Count(kind string) int {
	n := 0
	for _, s := range f.Series {
		if kind == "" || s.Kind == kind {
			n++
		}
	}
	return n
}

// Placement is where a figure's legend goes when it is drawn.
type Placement struct {
	// Outside is true when no corner of the data area is free: the legend
	// is then right of the axes.
	Outside   bool
	Top, Left bool // the corner, when inside
	// Rect is the legend's box and Data the data area, on the canvas.
	Rect, Data vg.Rectangle
	// Covers names the series the legend's box meets (empty when placed
	// well: a test's assertion).
	Covers []string
	// W, H is the whole canvas.
	W, H vg.Length
}

// captionStyle is the caption's text style.
func (f *Figure) captionStyle() text.Style {
	sty := f.Plot.Legend.TextStyle
	sty.Font = fontCaption
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YBottom
	return sty
}

// captionLines wraps the caption's paragraphs to the figure's width.
func (f *Figure) captionLines() []string {
	sty := f.captionStyle()
	var out []string
	for _, para := range f.Caption {
		line := ""
		for _, w := range strings.Fields(para) {
			try := strings.TrimSpace(line + " " + w)
			if line != "" && sty.Width(try) > Width-vg.Points(8) {
				out = append(out, line)
				try = w
			}
			line = try
		}
		out = append(out, line)
	}
	return out
}

// captionHeight is the height of the caption lines.
func (f *Figure) captionHeight() vg.Length {
	if len(f.Caption) == 0 {
		return 0
	}
	return vg.Length(len(f.captionLines()))*f.captionStyle().Rectangle("Ag").Max.Y*1.25 + vg.Points(6)
}

// rightMargin keeps bars and glyphs at the right end of the data area
// off the canvas' edge.
const rightMargin = vg.Length(8)

// colorBarWidth is the strip a colour bar takes.
const colorBarWidth = 2.4 * vg.Centimeter

// mainCanvas is where the plot itself is drawn (no vg.Canvas: for
// geometry only): above the caption, left of the right margin.
func (f *Figure) mainCanvas() draw.Canvas {
	capH := f.captionHeight()
	return draw.Canvas{Rectangle: vg.Rectangle{Min: vg.Point{Y: capH}, Max: vg.Point{X: Width - rightMargin, Y: Height + capH}}}
}

// LegendPlacement works out where the legend goes: the first corner of the
// data area (top right, top left, bottom right, bottom left) where its box
// meets no series, or else outside, right of the axes, widening the
// canvas.
func (f *Figure) LegendPlacement() Placement {
	defer f.blankLogYLabel()()
	capH := f.captionHeight()
	pl := Placement{W: Width, H: Height + capH}
	if f.ColorBar != nil {
		pl.W += colorBarWidth
	}
	dc := f.Plot.DataCanvas(f.mainCanvas())
	pl.Data = dc.Rectangle
	if len(f.entries) == 0 {
		return pl
	}
	w, h := legendSize(&f.Plot.Legend, f.entries)
	for _, k := range corners {
		r := legendRect(dc, w, h, k)
		if r.Min.X < dc.Min.X || r.Min.Y < dc.Min.Y {
			break // larger than the data area
		}
		if cov := f.overlaps(dc, r); len(cov) == 0 {
			pl.Top, pl.Left, pl.Rect = k.top, k.left, r
			return pl
		}
	}
	pl.Outside = true
	// Glyphs and bars reach past the data area by up to their size (gonum
	// pads for them), so the legend keeps clear of the axes' box.
	x0 := pl.W + 3*legendMargin
	pl.Rect = vg.Rectangle{Min: vg.Point{X: x0, Y: dc.Max.Y - h}, Max: vg.Point{X: x0 + w, Y: dc.Max.Y}}
	if pl.Rect.Min.Y < 0 {
		pl.Rect.Min.Y, pl.Rect.Max.Y = 0, h
	}
	pl.W = x0 + w + 2*legendMargin
	pl.Covers = f.overlaps(dc, pl.Rect)
	return pl
}

// draw draws the figure on c, which must be pl.W × pl.H for the
// figure's placement pl (render makes such a canvas). It swaps the plot's
// legend out while the plot draws, so a Figure must not be drawn from two
// goroutines at once.
func (f *Figure) draw(c draw.Canvas, pl Placement) {
	lg := f.Plot.Legend
	if len(f.entries) > 0 {
		// Entries added through this package are placed here; a plot
		// wrapped by hand keeps gonum's own legend.
		f.Plot.Legend = plot.NewLegend()
		defer func() { f.Plot.Legend = lg }()
	}
	capH := f.captionHeight()
	main := draw.Crop(c, 0, Width-rightMargin-pl.W, capH, 0)
	label := f.Plot.Y.Label
	restore := f.blankLogYLabel()
	f.Plot.Draw(main)
	restore()
	if _, log := f.Plot.Y.Scale.(plot.LogScale); log && label.Text != "" {
		drawYLabel(c, label.Text, label.TextStyle, main.Min.X, (pl.Data.Min.Y+pl.Data.Max.Y)/2)
	}
	if len(f.entries) > 0 {
		lg.Top, lg.Left, lg.XOffs, lg.YOffs = true, true, 0, 0
		lg.Draw(draw.Canvas{Canvas: c.Canvas, Rectangle: pl.Rect})
	}
	if f.ColorBar != nil {
		strip := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: Width + vg.Points(6), Y: pl.Data.Min.Y - vg.Points(4)},
			Max: vg.Point{X: Width + colorBarWidth, Y: pl.Data.Max.Y + vg.Points(4)},
		}}
		f.ColorBar.Draw(strip)
	}
	f.drawCaption(c, capH)
}

// drawYLabel writes a y axis' label rotated, as gonum does, at the left
// edge x, centred on y.
func drawYLabel(c draw.Canvas, label string, sty text.Style, x, y vg.Length) {
	x += sty.Height(label) - sty.FontExtents().Descent
	sty.Rotation += math.Pi / 2
	c.FillText(sty, vg.Point{X: x, Y: y}, label)
}

// drawCaption writes the caption's lines in the strip of height capH at
// the bottom of c.
func (f *Figure) drawCaption(c draw.Canvas, capH vg.Length) {
	sty := f.captionStyle()
	lh := sty.Rectangle("Ag").Max.Y * 1.25
	for i, line := range f.captionLines() {
		y := capH - vg.Points(3) - vg.Length(i+1)*lh
		c.FillText(sty, vg.Point{X: vg.Points(4), Y: y + sty.FontExtents().Descent}, line)
	}
}

// blankLogYLabel replaces a log y axis' label by a space, which takes the
// same room, until the returned function restores it: gonum pads the data
// area for the label as if it were centred at the arithmetic middle of the
// axis' range, near the top of a log axis, which leaves an empty band
// under the title. draw writes the label itself.
func (f *Figure) blankLogYLabel() (restore func()) {
	if _, log := f.Plot.Y.Scale.(plot.LogScale); !log || f.Plot.Y.Label.Text == "" {
		return func() {}
	}
	text := f.Plot.Y.Label.Text
	f.Plot.Y.Label.Text = " "
	return func() { f.Plot.Y.Label.Text = text }
}

// Drawable is what the render helpers accept: a *Figure (drawn with its
// legend placement, caption and colour bar) or any gonum *plot.Plot.
type Drawable interface {
	Draw(draw.Canvas)
}

// render draws d in a format ("png" at DPI, or "svg").
func render(d Drawable, format string) ([]byte, error) {
	w, h := Width, Height
	var pl Placement
	f, isFig := d.(*Figure)
	if isFig {
		pl = f.LegendPlacement()
		w, h = pl.W, pl.H
	}
	var wt io.WriterTo
	var c vg.CanvasSizer
	switch format {
	case "png":
		img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(DPI), vgimg.UseBackgroundColor(color.White))
		c, wt = img, vgimg.PngCanvas{Canvas: img}
	case "svg":
		svg := vgsvg.New(w, h)
		c, wt = svg, svg
	default:
		return nil, fmt.Errorf("plots: format %q: want png or svg", format)
	}
	if isFig {
		f.draw(draw.New(c), pl)
	} else {
		d.Draw(draw.New(c))
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("plots: writing %s: %w", format, err)
	}
	if format == "svg" {
		// A raster (heat map, colour bar) fills the box gonum gives it, as
		// in the PNG; SVG's default keeps the raster's own aspect, which
		// squeezes a 1-pixel-wide colour bar to a line.
		return bytes.ReplaceAll(b.Bytes(), []byte("<image "), []byte(`<image preserveAspectRatio="none" `)), nil
	}
	return b.Bytes(), nil
}

// PNG renders d as PNG bytes at DPI (for gonbui.DisplayPNG).
func PNG(d Drawable) ([]byte, error) { return render(d, "png") }

// SVG renders d as an SVG document (for gonbui.DisplaySVG).
func SVG(d Drawable) (string, error) {
	b, err := render(d, "svg")
	return string(b), err
}

// Save writes d as dir/name.png and dir/name.svg and returns both paths.
func Save(d Drawable, dir, name string) ([]string, error) {
	var paths []string
	for _, format := range []string{"png", "svg"} {
		b, err := render(d, format)
		if err != nil {
			return paths, fmt.Errorf("plots: %s: %w", name, err)
		}
		path := filepath.Join(dir, name+"."+format)
		if err := atomicfile.WriteBytes(path, b); err != nil {
			return paths, fmt.Errorf("plots: %w", err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// Color returns the i-th colour of the figures' palette (cycling): a
// colour-blind-friendly qualitative palette (Okabe–Ito, then Tol's muted),
// long enough for every memory term.
func Color(i int) color.Color {
	paletteRGB := [...]uint32{
		0x0072B2, 0xE69F00, 0x009E73, 0xCC79A7, 0x56B4E9, 0xD55E00, 0xF0E442,
		0x332288, 0x882255, 0x44AA99, 0x999933, 0xAA4499, 0x888888,
	}
	v := paletteRGB[((i%len(paletteRGB))+len(paletteRGB))%len(paletteRGB)]
	return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255}
}

// lineShape records a line series' geometry for the legend placement.
func (f *Figure) lineShape(name string, xy plotter.XYs) {
	f.addShape(shape{series: name, kind: polyline, xy: xy})
}

// pointShape records glyphs of radius r at xy.
func (f *Figure) pointShape(name string, xy plotter.XYs, r vg.Length) {
	f.addShape(shape{series: name, kind: points, xy: xy, halfW: r})
}
