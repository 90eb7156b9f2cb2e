package plots

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// ScalingPoint is one run of a scaling sweep.
type ScalingPoint struct {
	NSrc, NAnt int
	Seconds    float64 // time per integration
}

// ScalingData is the input of Scaling.
type ScalingData struct {
	Title string
	// Vary is "nsrc" or "nant": the x axis.
	Vary string
	// Runs are named groups of points (e.g. "cpu", "gpu").
	Runs map[string][]ScalingPoint
}

// ModelCoefficient fits t = c·N_src·N_ant² to points in the least-squares
// sense of log t (the geometric mean of t / (N_src·N_ant²)).
func ModelCoefficient(pts []ScalingPoint) float64 {
	s, n := 0.0, 0
	for _, q := range pts {
		if q.Seconds > 0 && q.NSrc > 0 && q.NAnt > 0 {
			s += math.Log(q.Seconds / (float64(q.NSrc) * float64(q.NAnt) * float64(q.NAnt)))
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return math.Exp(s / float64(n))
}

// Scaling draws time per integration against N_src or N_ant on log axes:
// per run, the measured points joined by a line and, dashed, the
// N_src·N_ant² model fitted to that run.
func Scaling(d ScalingData) (*Figure, error) {
	var xl string
	switch d.Vary {
	case "nsrc":
		xl = "sources N_src"
	case "nant":
		xl = "antennas N_ant"
	default:
		return nil, fmt.Errorf("plots: scaling: vary = %q: want nsrc or nant", d.Vary)
	}
	f := newFigure(d.Title, xl, "time per integration (s)")
	p := f.Plot
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = logTicks(), logTicks()
	names := make([]string, 0, len(d.Runs))
	for n := range d.Runs {
		names = append(names, n)
	}
	sort.Strings(names)
	for ri, name := range names {
		pts := append([]ScalingPoint(nil), d.Runs[name]...)
		x := func(q ScalingPoint) float64 {
			if d.Vary == "nsrc" {
				return float64(q.NSrc)
			}
			return float64(q.NAnt)
		}
		sort.Slice(pts, func(i, j int) bool { return x(pts[i]) < x(pts[j]) })
		var meas, model plotter.XYs
		c := ModelCoefficient(pts)
		for _, q := range pts {
			if !(q.Seconds > 0) || !(x(q) > 0) {
				continue
			}
			meas = append(meas, plotter.XY{X: x(q), Y: q.Seconds})
			model = append(model, plotter.XY{X: x(q), Y: c * float64(q.NSrc) * float64(q.NAnt) * float64(q.NAnt)})
		}
		if len(meas) == 0 {
			continue
		}
		ln, sc, err := plotter.NewLinePoints(meas)
		if err != nil {
			return nil, fmt.Errorf("plots: scaling %s: %w", name, err)
		}
		ln.Color, sc.Color = Color(ri), Color(ri)
		p.Add(ln, sc)
		f.legend(name+" measured", ln, sc)
		f.lineShape(name+" measured", meas)
		f.pointShape(name+" measured", meas, sc.GlyphStyle.Radius)
		f.note(name+" measured", "scatter", len(meas))
		ml, err := plotter.NewLine(model)
		if err != nil {
			return nil, fmt.Errorf("plots: scaling model %s: %w", name, err)
		}
		ml.Color = Color(ri)
		ml.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(ml)
		lbl := fmt.Sprintf("%s model %.3g s·N_src·N_ant²", name, c)
		f.legend(lbl, ml)
		f.lineShape(lbl, model)
		f.note(lbl, "line", len(model))
	}
	if f.Count("") == 0 {
		return nil, fmt.Errorf("plots: scaling %q: no positive points", d.Title)
	}
	p.Add(plotter.NewGrid())
	return f, nil
}
