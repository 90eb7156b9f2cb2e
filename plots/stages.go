package plots

import (
	"fmt"
	"image/color"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// StageBar is one stacked bar: seconds per stage for one chunk or
// integration of one run.
type StageBar struct {
	Label   string
	Seconds []float64 // one per StageData.Stages entry
}

// StageRun is one run's bars (e.g. "cpu" and "gpu", or an nant sweep).
type StageRun struct {
	Name string
	Bars []StageBar
}

// StageData is the input of StageBreakdown.
type StageData struct {
	Title string
	// Unit is the y axis' time unit: "s" or "ms" (default "s").
	Unit string
	// XLabel names what a bar is (default "integration").
	XLabel string
	Stages []string
	Runs   []StageRun
	// Levels are horizontal lines across the bars, e.g. the least time an
	// integration could take on the machine (the floor).
	Levels []Level
}

// Level is a horizontal line of a stage figure at Seconds, named by Label
// in the legend.
type Level struct {
	Label   string
	Seconds float64
}

// StageBreakdown draws stacked bars of time by stage, one bar per chunk or
// integration, the runs side by side (bars labelled "run: bar" when there
// is more than one run). One bar series per stage.
func StageBreakdown(d StageData) (*Figure, error) {
	scale, unit := 1.0, "s"
	if d.Unit == "ms" {
		scale, unit = 1e3, "ms"
	}
	f := newFigure(d.Title, orDefault(d.XLabel, "integration"), "time ("+unit+")")
	p := f.Plot
	var names []string
	for _, r := range d.Runs {
		for _, b := range r.Bars {
			if len(b.Seconds) != len(d.Stages) {
				return nil, fmt.Errorf("plots: stage bar %q of run %q has %d values for %d stages", b.Label, r.Name, len(b.Seconds), len(d.Stages))
			}
			n := b.Label
			if len(d.Runs) > 1 {
				n = r.Name + ": " + b.Label
			}
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("plots: stage breakdown %q: no bars", d.Title)
	}
	w := vg.Points(max(4, min(40, 360/float64(len(names)))))
	var below *plotter.BarChart
	base := make([]float64, len(names))
	for si, st := range d.Stages {
		vals := make(plotter.Values, 0, len(names))
		for _, r := range d.Runs {
			for _, b := range r.Bars {
				vals = append(vals, b.Seconds[si]*scale)
			}
		}
		bc, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return nil, fmt.Errorf("plots: stage %s: %w", st, err)
		}
		bc.Color = StageColor(st, si)
		bc.LineStyle.Width = 0
		if below != nil {
			bc.StackOn(below)
		}
		below = bc
		p.Add(bc)
		f.legend(Words(st), bc)
		sh := shape{series: st, kind: bars, halfW: w / 2}
		for i, v := range vals {
			sh.xy = append(sh.xy, plotter.XY{X: float64(i), Y: base[i] + v})
			sh.y0 = append(sh.y0, base[i])
			base[i] += v
		}
		f.addShape(sh)
		f.note(st, "bars", len(vals))
	}
	p.NominalX(names...)
	p.X.Tick.Label.Font = fontTick
	if len(names) > 8 {
		p.X.Tick.Label.Rotation = 0.8
		p.X.Tick.Label.XAlign = -1
	}
	tallest := 0.0
	for _, h := range base {
		tallest = max(tallest, h)
	}
	for i, l := range d.Levels {
		if err := f.level(l, i, scale, unit, len(names)); err != nil {
			return nil, err
		}
		tallest = max(tallest, l.Seconds*scale)
	}
	// Headroom for the legend in a top corner (it goes outside when the
	// bars still reach it).
	p.Y.Min = 0
	if tallest > 0 {
		p.Y.Max = tallest * (1.1 + 0.07*float64(len(d.Stages)))
	}
	return f, nil
}

// stageColors fixes a palette index per known stage name, so a stage has
// one colour in every figure (fused stages have their own).
var stageColors = map[string]int{
	"coords": 0, "beam": 1, "tau_z": 2, "matprod": 3, "transfer": 6,
	"beam+tau_z (fused)": 5, "beam+tau_z+matprod (fused)": 7, "other (untimed)": 12,
}

// StageColor is a stage's colour: fixed for the pipeline's stages (by
// name; the text after a " (" is ignored when the full name is unknown),
// the palette's i-th colour after them for others.
func StageColor(name string, i int) color.Color {
	if k, ok := stageColors[name]; ok {
		return Color(k)
	}
	if head, _, ok := strings.Cut(name, " ("); ok {
		if k, ok := stageColors[head]; ok {
			return Color(k)
		}
	}
	return Color(8 + i) // after the pipeline's stages
}

// levelDashes and levelColors tell a stage figure's levels apart.
var (
	levelDashes = [][]vg.Length{{vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}}
	levelColors = []color.Color{color.Black, Color(8)}
)

// level draws l across the n bars, dashed, named with its value.
func (f *Figure) level(l Level, i int, scale float64, unit string, n int) error {
	if !(l.Seconds > 0) {
		return fmt.Errorf("plots: level %q: %g s, must be positive", l.Label, l.Seconds)
	}
	y := l.Seconds * scale
	xy := plotter.XYs{{X: -0.5, Y: y}, {X: float64(n) - 0.5, Y: y}}
	ln, err := plotter.NewLine(xy)
	if err != nil {
		return fmt.Errorf("plots: level %q: %w", l.Label, err)
	}
	ln.Width = vg.Points(1.5)
	ln.Dashes = levelDashes[i%len(levelDashes)]
	ln.Color = levelColors[i%len(levelColors)]
	f.Plot.Add(ln)
	name := fmt.Sprintf("%s %.3g %s", l.Label, y, unit)
	f.legend(name, ln)
	f.lineShape(name, xy)
	f.note(name, "line", 2)
	return nil
}
