package plots

import (
	"fmt"

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
		bc.Color = Color(si)
		bc.LineStyle.Width = 0
		if below != nil {
			bc.StackOn(below)
		}
		below = bc
		p.Add(bc)
		p.Legend.Add(st, bc)
		f.note(st, "bars", len(vals))
	}
	p.Legend.Top = true
	p.NominalX(names...)
	if len(names) > 8 {
		p.X.Tick.Label.Rotation = 0.8
		p.X.Tick.Label.XAlign = -1
	}
	// Headroom above the tallest bar keeps the legend off the bars.
	tallest := 0.0
	for i := range names {
		h := 0.0
		k := 0
		for _, r := range d.Runs {
			for _, b := range r.Bars {
				if k == i {
					for _, v := range b.Seconds {
						h += v * scale
					}
				}
				k++
			}
		}
		tallest = max(tallest, h)
	}
	p.Y.Min = 0
	if tallest > 0 {
		p.Y.Max = tallest * (1.15 + 0.07*float64(len(d.Stages)))
	}
	return f, nil
}
