package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// MemoryTerm is one named memory contribution at one chunk size.
type MemoryTerm struct {
	Name  string
	Bytes float64
}

// MemoryPoint is the memory model at one chunk size.
type MemoryPoint struct {
	SourcesPerChunk float64
	Terms           []MemoryTerm // the same names in the same order at every point
}

// MemoryData is the input of MemoryVsChunk.
type MemoryData struct {
	Title  string
	Points []MemoryPoint
	// Limit is the memory available (device or host), bytes; 0: none drawn.
	Limit      float64
	LimitLabel string
	// Floor names the term drawn at the bottom of the stack as the flat
	// floor it is (matvis's raw beam grid, "beam_grid").
	Floor string
	// MinShare lumps terms below this share of the largest total into one
	// "other" band (0: 0.5 %), so tiny terms do not crowd the legend.
	MinShare float64
	// Measured are measured peaks drawn as points (e.g. the CPU heap).
	Measured []MeasuredMemory
}

// MeasuredMemory is a measured peak at one chunk size.
type MeasuredMemory struct {
	Label           string
	SourcesPerChunk float64
	Bytes           float64
}

// limitOffScale: a limit more than this many times the largest total is
// named in the title instead of drawn.
const limitOffScale = 2

// measuredGlyphs mark the measured points, one shape each.
var measuredGlyphs = []draw.GlyphDrawer{draw.CrossGlyph{}, draw.RingGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.PlusGlyph{}}

// MemoryVsChunk draws every memory term as a stacked area against sources
// per chunk (log x, GB on a linear y): the floor term at the bottom, then
// terms that do not scale with the chunk, then those that do. The limit is
// a horizontal line, and dashed vertical markers show where the chunk size
// crosses the limit (where chunks stop fitting). Totals far above the
// limit are clipped at 3× the limit so the region that matters stays
// readable.
func MemoryVsChunk(d MemoryData) (*Figure, error) {
	f := newFigure(d.Title, "sources per chunk", "memory (GB)")
	p := f.Plot
	if len(d.Points) < 2 {
		return nil, fmt.Errorf("plots: memory vs chunk: %d points, need at least 2", len(d.Points))
	}
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = logTicks()
	names, totals, maxByTerm, err := memoryTotals(d)
	if err != nil {
		return nil, err
	}
	top := 0.0
	for _, t := range totals {
		top = math.Max(top, t)
	}
	bands := memoryBands(d, names, maxByTerm, top)
	if err := f.drawBands(d, names, bands); err != nil {
		return nil, err
	}
	p.X.Min, p.X.Max = memoryXRange(d)
	p.Y.Min = 0
	clipped := false
	if d.Limit > limitOffScale*top {
		// A limit far above every total would flatten the stack to the
		// axis (a GPU's free memory against a model of a few GB); say
		// where it is instead of drawing it.
		p.Title.Text += fmt.Sprintf("\n(%s: %.3g GB, off the scale: every chunk size fits)", orDefault(d.LimitLabel, "memory available"), d.Limit/gb)
	} else if d.Limit > 0 {
		if clipped, err = f.drawLimit(d, totals, top); err != nil {
			return nil, err
		}
	}
	if len(d.Measured) > 0 {
		if err := f.drawMeasured(d); err != nil {
			return nil, err
		}
	}
	if !clipped {
		// A little headroom; the legend finds its own place when drawn.
		shown := math.Max(top, d.Limit) / gb
		if d.Limit > limitOffScale*top {
			shown = top / gb
		}
		p.Y.Max = shown * 1.08
	}
	p.Add(plotter.NewGrid())
	return f, nil
}

// gb is a gigabyte, the memory figures' unit.
const gb = 1e9

// memoryTotals checks d's points (the same terms in each, positive chunk
// sizes) and returns the term names, each point's total and each term's
// largest value.
func memoryTotals(d MemoryData) (names []string, totals, maxByTerm []float64, err error) {
	names = make([]string, len(d.Points[0].Terms))
	for i, t := range d.Points[0].Terms {
		names[i] = t.Name
	}
	totals = make([]float64, len(d.Points))
	maxByTerm = make([]float64, len(names))
	for i, pt := range d.Points {
		if len(pt.Terms) != len(names) {
			return nil, nil, nil, fmt.Errorf("plots: memory point %d has %d terms, point 0 has %d", i, len(pt.Terms), len(names))
		}
		if !(pt.SourcesPerChunk > 0) {
			return nil, nil, nil, fmt.Errorf("plots: memory point %d: sources per chunk %v must be positive", i, pt.SourcesPerChunk)
		}
		for k, t := range pt.Terms {
			totals[i] += t.Bytes
			maxByTerm[k] = math.Max(maxByTerm[k], t.Bytes)
		}
	}
	return names, totals, maxByTerm, nil
}

// memoryBand is one stacked band of the memory figure: a name and the
// terms it adds up.
type memoryBand struct {
	name string
	idx  []int
}

// memoryBands orders the bands: the floor first, then the rest in their
// given order; terms below d.MinShare (default 0.5 %) of the top total
// merge into "other".
func memoryBands(d MemoryData, names []string, maxByTerm []float64, top float64) []memoryBand {
	share := d.MinShare
	if share == 0 {
		share = 0.005
	}
	var bands []memoryBand
	var other memoryBand
	for k, n := range names {
		switch {
		case n == d.Floor:
			bands = append([]memoryBand{{n, []int{k}}}, bands...)
		case maxByTerm[k] < share*top:
			other.idx = append(other.idx, k)
		default:
			bands = append(bands, memoryBand{n, []int{k}})
		}
	}
	if len(other.idx) > 0 {
		other.name = fmt.Sprintf("other (%d small terms)", len(other.idx))
		bands = append(bands, other)
	}
	return bands
}

// drawBands draws the bands as cumulative filled areas.
func (f *Figure) drawBands(d MemoryData, names []string, bands []memoryBand) error {
	p := f.Plot
	cum := make([]float64, len(d.Points))
	var lines []*plotter.Line
	for bi, b := range bands {
		xy := make(plotter.XYs, len(d.Points))
		for i, pt := range d.Points {
			for _, k := range b.idx {
				cum[i] += pt.Terms[k].Bytes
			}
			xy[i] = plotter.XY{X: pt.SourcesPerChunk, Y: cum[i] / gb}
		}
		ln, err := plotter.NewLine(xy)
		if err != nil {
			return fmt.Errorf("plots: memory band %s: %w", b.name, err)
		}
		col := Color(bi)
		if bi == 0 && len(b.idx) == 1 && names[b.idx[0]] == d.Floor {
			// The floor in neutral grey: it is not something chunking changes.
			col = color.RGBA{0x99, 0x99, 0x99, 255}
		}
		ln.FillColor, ln.Color = col, col
		lines = append(lines, ln)
		f.legend(Words(b.name), ln)
		f.addShape(shape{series: b.name, kind: area, xy: xy})
		f.note(b.name, "area", len(xy))
	}
	// The highest cumulative band is drawn first so each lower one paints
	// over it: the visible strip of each colour is that term's share.
	for i := len(lines) - 1; i >= 0; i-- {
		p.Add(lines[i])
	}
	return nil
}

// memoryXRange spans the points, widened so that a measured point at the
// curve's edge stays inside the axes.
func memoryXRange(d MemoryData) (xmin, xmax float64) {
	xmin, xmax = d.Points[0].SourcesPerChunk, d.Points[0].SourcesPerChunk
	for _, pt := range d.Points {
		xmin, xmax = math.Min(xmin, pt.SourcesPerChunk), math.Max(xmax, pt.SourcesPerChunk)
	}
	for _, m := range d.Measured {
		if m.SourcesPerChunk >= xmax/1.1 {
			xmax = math.Max(xmax, m.SourcesPerChunk*1.15)
		}
		if m.SourcesPerChunk <= xmin*1.1 {
			xmin = math.Min(xmin, m.SourcesPerChunk/1.15)
		}
	}
	return xmin, xmax
}

// drawLimit draws the memory limit across the x range and markers where
// the total crosses it; clipped says the y axis stops at 3× the limit.
func (f *Figure) drawLimit(d MemoryData, totals []float64, top float64) (clipped bool, err error) {
	p := f.Plot
	xmin, xmax := p.X.Min, p.X.Max
	lim := plotter.XYs{{X: xmin, Y: d.Limit / gb}, {X: xmax, Y: d.Limit / gb}}
	ln, err := plotter.NewLine(lim)
	if err != nil {
		return false, fmt.Errorf("plots: memory limit: %w", err)
	}
	ln.Width = vg.Points(2)
	label := orDefault(d.LimitLabel, "memory available")
	p.Add(ln)
	f.legend(fmt.Sprintf("%s (%.3g GB)", label, d.Limit/gb), ln)
	f.lineShape(label, lim)
	f.note(label, "line", 2)
	// Markers where the total crosses the limit, interpolated linearly
	// in (log sources per chunk, bytes) between the two points.
	marks := 0
	for i := 1; i < len(d.Points); i++ {
		a, b := totals[i-1] < d.Limit, totals[i] < d.Limit
		if a == b {
			continue
		}
		l0, l1 := math.Log(d.Points[i-1].SourcesPerChunk), math.Log(d.Points[i].SourcesPerChunk)
		x := math.Exp(l0 + (l1-l0)*(d.Limit-totals[i-1])/(totals[i]-totals[i-1]))
		mxy := plotter.XYs{{X: x, Y: 0}, {X: x, Y: 3 * d.Limit / gb}}
		mk, err := plotter.NewLine(mxy)
		if err != nil {
			return false, fmt.Errorf("plots: memory marker: %w", err)
		}
		// Each marker its own dash pattern and colour: the two ends of the
		// range that fits must not look alike.
		mk.Dashes = markerDashes[marks%len(markerDashes)]
		mk.Color = markerColors[marks%len(markerColors)]
		marks++
		mk.Width = vg.Points(1.5)
		p.Add(mk)
		word := "fits up to"
		if b != (d.Points[i].SourcesPerChunk < d.Points[i-1].SourcesPerChunk) {
			word = "fits down to"
		}
		name := fmt.Sprintf("%s %s sources per chunk", word, formatTick(math.Round(x), 0))
		f.legend(name, mk)
		f.lineShape(name, mxy)
		f.note(name, "marker", 2)
	}
	if top > 3*d.Limit {
		p.Y.Max = 3 * d.Limit / gb
		clipped = true
	}
	return clipped, nil
}

// markerDashes and markerColors tell the memory figure's fit markers
// apart: long dashes in black, then dots in dark blue.
var (
	markerDashes = [][]vg.Length{{vg.Points(6), vg.Points(3)}, {vg.Points(1.5), vg.Points(2.5)}}
	markerColors = []color.Color{color.Black, color.RGBA{0x00, 0x33, 0x99, 0xff}}
)

// drawMeasured marks the measured totals, each with its own glyph.
func (f *Figure) drawMeasured(d MemoryData) error {
	p := f.Plot
	var xy plotter.XYs
	for _, m := range d.Measured {
		xy = append(xy, plotter.XY{X: m.SourcesPerChunk, Y: m.Bytes / gb})
	}
	sc, err := plotter.NewScatter(xy)
	if err != nil {
		return fmt.Errorf("plots: measured memory: %w", err)
	}
	// Each measurement its own glyph (cross, ring, triangle, …): two
	// measurements at one chunk size would otherwise hide each other.
	sc.GlyphStyleFunc = func(i int) draw.GlyphStyle {
		return draw.GlyphStyle{Shape: measuredGlyphs[i%len(measuredGlyphs)], Radius: vg.Points(5), Color: color.Black}
	}
	p.Add(sc)
	for i, m := range d.Measured {
		lg := &plotter.Scatter{GlyphStyle: sc.GlyphStyleFunc(i)}
		f.legend(fmt.Sprintf("%s %.3g GB", m.Label, m.Bytes/gb), lg)
	}
	f.pointShape("measured", xy, vg.Points(5))
	f.note("measured", "scatter", len(xy))
	return nil
}
