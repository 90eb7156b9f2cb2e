package plots

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// LineSeries is one named curve.
type LineSeries struct {
	Name string
	X, Y []float64
	// Dashed draws the curve dashed (a model, a limit).
	Dashed bool
}

// LinesData is the input of Lines: curves against one x axis.
type LinesData struct {
	Title, XLabel, YLabel string
	Series                []LineSeries
	// LogX draws x on a log scale (every x must then be positive).
	LogX bool
	// YMin, YMax fix the y range when YMax > YMin.
	YMin, YMax float64
}

// Lines draws each series as a line in the palette's next colour: the
// plain curve figure of the notebooks (beam cuts, chunk counts), with the
// same fonts, ticks and legend placement as the others.
func Lines(d LinesData) (*Figure, error) {
	f := newFigure(d.Title, d.XLabel, d.YLabel)
	p := f.Plot
	if d.LogX {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks()
	}
	for i, s := range d.Series {
		if len(s.X) != len(s.Y) || len(s.X) == 0 {
			return nil, fmt.Errorf("plots: line %q: %d x for %d y", s.Name, len(s.X), len(s.Y))
		}
		xy := make(plotter.XYs, len(s.X))
		for k := range s.X {
			if d.LogX && !(s.X[k] > 0) {
				return nil, fmt.Errorf("plots: line %q: x = %g on a log axis", s.Name, s.X[k])
			}
			xy[k] = plotter.XY{X: s.X[k], Y: s.Y[k]}
		}
		ln, err := plotter.NewLine(xy)
		if err != nil {
			return nil, fmt.Errorf("plots: line %q: %w", s.Name, err)
		}
		ln.Color, ln.Width = Color(i), vg.Points(1.5)
		if s.Dashed {
			ln.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		p.Add(ln)
		f.legend(s.Name, ln)
		f.lineShape(s.Name, xy)
		f.note(s.Name, "line", len(xy))
	}
	if d.YMax > d.YMin {
		p.Y.Min, p.Y.Max = d.YMin, d.YMax
	}
	p.Add(plotter.NewGrid())
	return f, nil
}
