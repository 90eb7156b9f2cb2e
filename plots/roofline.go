package plots

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Ceiling is one roof of a roofline: a bandwidth (bytes/s) or a compute
// rate (FLOP/s).
type Ceiling struct {
	Name  string
	Value float64
	// Measured ceilings are drawn solid, datasheet ones dashed.
	Measured bool
}

// RooflinePoint is one stage placed on the roofline.
type RooflinePoint struct {
	Label string
	// Intensity is FLOPs per byte moved; Perf is FLOP/s achieved.
	Intensity, Perf float64
}

// RooflineData is the input of Roofline.
type RooflineData struct {
	Title     string
	Bandwidth []Ceiling // bytes/s
	Compute   []Ceiling // FLOP/s
	Points    []RooflinePoint
	// AboveRoof explains, in the caption, why a point can sit above the
	// highest measured compute roof (e.g. the roof is one library call
	// timed alone at another shape); it is shown only when one does.
	AboveRoof string
	// Notes are further caption lines (e.g. the floor per integration).
	Notes []string
}

// Roofline draws a log-log roofline: each bandwidth ceiling as the slope
// B·I capped by the highest compute ceiling, each compute ceiling as a
// horizontal roof, and one labelled point per stage. Points and ceilings
// that are not positive cannot be shown on log axes and are left out
// (the figure's Series say what was drawn).
func Roofline(d RooflineData) (*Figure, error) {
	f := newFigure(d.Title, "arithmetic intensity (FLOP/byte)", "performance (FLOP/s)")
	p := f.Plot
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = logTicks(), logTicks()
	pts, r := rooflineExtent(d)
	ymin, err := f.drawRoofs(d, r)
	if err != nil {
		return nil, err
	}
	if err := f.drawStages(pts); err != nil {
		return nil, err
	}
	p.X.Min, p.X.Max = r.xmin, r.xmax
	p.Y.Min, p.Y.Max = math.Max(decadeBelow(ymin), 1), r.ymax
	p.Add(plotter.NewGrid())
	f.Caption = append(aboveRoof(d), d.Notes...)
	if err := f.placeLabels(pts); err != nil {
		return nil, err
	}
	return f, nil
}

// rooflineRange is a roofline's axes: x and y from min to max, and the
// highest compute roof (0: none).
type rooflineRange struct{ xmin, xmax, ymin, ymax, peak float64 }

// rooflineExtent is the stages' points (finite and positive ones) and the
// axes that cover them and every ridge point, with a margin, in whole
// decades so that the axes end on a labelled tick (gonum pads the data
// area for a tick label near an end, leaving an empty band).
func rooflineExtent(d RooflineData) (plotter.XYLabels, rooflineRange) {
	r := rooflineRange{xmin: math.Inf(1), xmax: math.Inf(-1), ymin: math.Inf(1), ymax: math.Inf(-1)}
	var pts plotter.XYLabels
	for _, q := range d.Points {
		if !(q.Intensity > 0 && q.Perf > 0) || math.IsInf(q.Intensity, 0) || math.IsInf(q.Perf, 0) {
			continue
		}
		pts.XYs = append(pts.XYs, plotter.XY{X: q.Intensity, Y: q.Perf})
		pts.Labels = append(pts.Labels, q.Label)
		r.xmin, r.xmax = math.Min(r.xmin, q.Intensity), math.Max(r.xmax, q.Intensity)
		r.ymin, r.ymax = math.Min(r.ymin, q.Perf), math.Max(r.ymax, q.Perf)
	}
	for _, c := range d.Compute {
		if c.Value > 0 {
			r.peak = math.Max(r.peak, c.Value)
			r.ymax = math.Max(r.ymax, c.Value)
			r.ymin = math.Min(r.ymin, c.Value)
		}
	}
	for _, b := range d.Bandwidth {
		if b.Value > 0 && r.peak > 0 {
			ridge := r.peak / b.Value
			r.xmin, r.xmax = math.Min(r.xmin, ridge), math.Max(r.xmax, ridge)
		}
	}
	if math.IsInf(r.xmin, 1) {
		r.xmin, r.xmax = 0.01, 100
	}
	r.xmin, r.xmax = decadeBelow(r.xmin/5), decadeAbove(r.xmax*5)
	if math.IsInf(r.ymin, 1) {
		r.ymin, r.ymax = 1e6, 1e12
	}
	r.ymin, r.ymax = r.ymin/10, decadeAbove(r.ymax*1.2)
	return pts, r
}

// drawRoofs draws each bandwidth roof B·I from the left edge up to where
// it meets the top compute roof, and each compute roof across; it returns
// the y axis's bottom, lowered to show every bandwidth roof's start.
func (f *Figure) drawRoofs(d RooflineData, r rooflineRange) (float64, error) {
	ymin := r.ymin
	for _, b := range d.Bandwidth {
		if !(b.Value > 0) {
			continue
		}
		top := r.ymax
		if r.peak > 0 {
			top = r.peak
		}
		x1 := math.Min(r.xmax, top/b.Value)
		if err := f.roof(b, "B/s", plotter.XYs{{X: r.xmin, Y: b.Value * r.xmin}, {X: x1, Y: b.Value * x1}}); err != nil {
			return 0, err
		}
		ymin = math.Min(ymin, b.Value*r.xmin)
	}
	for _, c := range d.Compute {
		if !(c.Value > 0) {
			continue
		}
		if err := f.roof(c, "FLOP/s", plotter.XYs{{X: r.xmin, Y: c.Value}, {X: r.xmax, Y: c.Value}}); err != nil {
			return 0, err
		}
	}
	return ymin, nil
}

// drawStages draws the stages' points.
func (f *Figure) drawStages(pts plotter.XYLabels) error {
	if len(pts.XYs) == 0 {
		return nil
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return fmt.Errorf("plots: roofline points: %w", err)
	}
	sc.GlyphStyle.Shape = draw.CircleGlyph{}
	sc.GlyphStyle.Radius = vg.Points(4)
	sc.GlyphStyle.Color = Color(5)
	f.Plot.Add(noPad{sc})
	f.pointShape("stages", pts.XYs, sc.GlyphStyle.Radius)
	f.note("stages", "scatter", len(pts.XYs))
	return nil
}

// placeLabels writes each point's label beside it: right and above, or
// where that would overlap an earlier label, below, then left. The axes'
// ranges and the caption must be final (they fix where points land).
func (f *Figure) placeLabels(pts plotter.XYLabels) error {
	restore := f.blankLogYLabel() // as when drawn
	dc := f.Plot.DataCanvas(f.mainCanvas())
	restore()
	tx, ty := f.Plot.Transforms(&dc)
	var taken []vg.Rectangle
	for i, q := range pts.XYs {
		one := plotter.XYLabels{XYs: plotter.XYs{q}, Labels: []string{pts.Labels[i]}}
		lb, err := plotter.NewLabels(one)
		if err != nil {
			return fmt.Errorf("plots: roofline labels: %w", err)
		}
		sty := lb.TextStyle[0]
		sty.Font = fontTick
		lb.TextStyle[0] = sty
		w := sty.Width(pts.Labels[i])
		at := vg.Point{X: tx(q.X), Y: ty(q.Y)}
		var box vg.Rectangle
		for _, off := range []vg.Point{{X: 6, Y: 2}, {X: 6, Y: -13}, {X: -8 - w, Y: 2}, {X: -8 - w, Y: -13}} {
			lb.Offset = off
			r := sty.Rectangle(pts.Labels[i])
			box = vg.Rectangle{Min: at.Add(off).Add(r.Min), Max: at.Add(off).Add(r.Max)}
			if !slices.ContainsFunc(taken, func(t vg.Rectangle) bool { return rectsMeet(t, box) }) {
				break
			}
		}
		taken = append(taken, box)
		f.Plot.Add(noPad{lb})
		f.addShape(shape{series: "stage labels", kind: labels, xy: one.XYs, labels: one.Labels, offset: lb.Offset, style: sty})
	}
	if len(pts.XYs) > 0 {
		f.note("stage labels", "labels", len(pts.Labels))
	}
	return nil
}

// aboveRoof is the caption for points above every measured compute roof:
// which, by how much, and d.AboveRoof's reason.
func aboveRoof(d RooflineData) []string {
	var roof Ceiling
	for _, c := range d.Compute {
		if c.Measured && c.Value > roof.Value {
			roof = c
		}
	}
	if roof.Value <= 0 {
		return nil
	}
	var out []string
	for _, q := range d.Points {
		if q.Perf > roof.Value {
			out = append(out, fmt.Sprintf("%s runs at %s, %.0f %% above the measured roof (%s).",
				q.Label, siUnit(q.Perf, "FLOP/s"), 100*(q.Perf/roof.Value-1), roof.Name))
		}
	}
	if len(out) > 0 && d.AboveRoof != "" {
		out = append(out, d.AboveRoof)
	}
	return out
}

// roof draws ceiling c along xy in the next series colour, dashed unless
// measured, and names it in the legend with its value in unit.
func (f *Figure) roof(c Ceiling, unit string, xy plotter.XYs) error {
	ln, err := plotter.NewLine(xy)
	if err != nil {
		return fmt.Errorf("plots: roofline %s: %w", c.Name, err)
	}
	ln.Color = Color(len(f.Series))
	ln.Width = vg.Points(1.5)
	if !c.Measured {
		ln.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	}
	f.Plot.Add(noPad{ln})
	name := fmt.Sprintf("%s %s", c.Name, siUnit(c.Value, unit))
	f.legend(name, ln)
	f.lineShape(name, xy)
	f.note(name, "line", 2)
	return nil
}

// siUnit formats v with an SI prefix: 2.3e11, "FLOP/s" → "230 GFLOP/s".
func siUnit(v float64, unit string) string {
	prefixes := []string{"", "k", "M", "G", "T", "P"}
	i := 0
	for math.Abs(v) >= 1000 && i < len(prefixes)-1 {
		v /= 1000
		i++
	}
	return fmt.Sprintf("%.3g %s%s", v, prefixes[i], unit)
}

// noPad draws a plotter without giving the plot glyph boxes: gonum pads
// the data area for glyphs with a linear solve that, on these log axes,
// leaves wide empty bands (a single glyph shrinks the area by a fifth),
// and the roofline's axes already have a decade of margin. Axis ranges
// are set explicitly, so no data range is needed either.
type noPad struct{ plot.Plotter }

// decadeBelow and decadeAbove round a positive value to a power of ten.
func decadeBelow(v float64) float64 { return math.Pow(10, math.Floor(math.Log10(v))) }
func decadeAbove(v float64) float64 { return math.Pow(10, math.Ceil(math.Log10(v))) }
