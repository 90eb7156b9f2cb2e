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

	// The x range covers the points and every ridge point, with a margin.
	xmin, xmax := math.Inf(1), math.Inf(-1)
	ymin, ymax := math.Inf(1), math.Inf(-1)
	var pts plotter.XYLabels
	for _, q := range d.Points {
		if !(q.Intensity > 0 && q.Perf > 0) || math.IsInf(q.Intensity, 0) || math.IsInf(q.Perf, 0) {
			continue
		}
		pts.XYs = append(pts.XYs, plotter.XY{X: q.Intensity, Y: q.Perf})
		pts.Labels = append(pts.Labels, q.Label)
		xmin, xmax = math.Min(xmin, q.Intensity), math.Max(xmax, q.Intensity)
		ymin, ymax = math.Min(ymin, q.Perf), math.Max(ymax, q.Perf)
	}
	peak := 0.0
	for _, c := range d.Compute {
		if c.Value > 0 {
			peak = math.Max(peak, c.Value)
			ymax = math.Max(ymax, c.Value)
			ymin = math.Min(ymin, c.Value)
		}
	}
	for _, b := range d.Bandwidth {
		if b.Value > 0 && peak > 0 {
			ridge := peak / b.Value
			xmin, xmax = math.Min(xmin, ridge), math.Max(xmax, ridge)
		}
	}
	if math.IsInf(xmin, 1) {
		xmin, xmax = 0.01, 100
	}
	// Whole decades, so that the axes end on a labelled tick (gonum pads
	// the data area for a tick label near an end, leaving an empty band).
	xmin, xmax = decadeBelow(xmin/5), decadeAbove(xmax*5)
	if math.IsInf(ymin, 1) {
		ymin, ymax = 1e6, 1e12
	}
	ymin, ymax = ymin/10, decadeAbove(ymax*1.2)
	for _, b := range d.Bandwidth {
		if !(b.Value > 0) {
			continue
		}
		top := ymax
		if peak > 0 {
			top = peak
		}
		// B·I from the left edge up to where it meets the top roof.
		x1 := math.Min(xmax, top/b.Value)
		if err := f.roof(b, "B/s", plotter.XYs{{X: xmin, Y: b.Value * xmin}, {X: x1, Y: b.Value * x1}}); err != nil {
			return nil, err
		}
		ymin = math.Min(ymin, b.Value*xmin)
	}
	for _, c := range d.Compute {
		if !(c.Value > 0) {
			continue
		}
		if err := f.roof(c, "FLOP/s", plotter.XYs{{X: xmin, Y: c.Value}, {X: xmax, Y: c.Value}}); err != nil {
			return nil, err
		}
	}
	if len(pts.XYs) > 0 {
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, fmt.Errorf("plots: roofline points: %w", err)
		}
		sc.GlyphStyle.Shape = draw.CircleGlyph{}
		sc.GlyphStyle.Radius = vg.Points(4)
		sc.GlyphStyle.Color = Color(5)
		p.Add(noPad{sc})
		f.pointShape("stages", pts.XYs, sc.GlyphStyle.Radius)
		f.note("stages", "scatter", len(pts.XYs))
	}
	p.X.Min, p.X.Max = xmin, xmax
	p.Y.Min, p.Y.Max = math.Max(decadeBelow(ymin), 1), ymax
	p.Add(plotter.NewGrid())
	f.Caption = append(aboveRoof(d), d.Notes...)
	if err := f.placeLabels(pts); err != nil {
		return nil, err
	}
	return f, nil
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
