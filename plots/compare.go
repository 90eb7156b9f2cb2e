package plots

import (
	"fmt"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// CompareData is the input of Comparison: two or more implementations'
// time per integration, each as stacked stages, on one configuration.
type CompareData struct {
	Title string
	// Unit is "s" or "ms" (default "s").
	Unit string
	// Stages is the union of every bar's stages, in stacking order.
	Stages []string
	// Bars are one per implementation (Label, Seconds per stage: 0 for a
	// stage it does not have). The first is the reference the others'
	// speed-up is computed against.
	Bars []StageBar
	// Caption says where the numbers come from.
	Caption []string
}

// Comparison draws the implementations' stacked stage bars side by side
// with each bar's total above it and, above every bar after the first,
// the speed-up against the first as a ratio ("34.7× faster").
func Comparison(d CompareData) (*Figure, error) {
	if len(d.Bars) < 2 {
		return nil, fmt.Errorf("plots: comparison %q: %d bars, need at least 2", d.Title, len(d.Bars))
	}
	f, err := StageBreakdown(StageData{Title: d.Title, Unit: d.Unit, XLabel: " ", Stages: d.Stages,
		Runs: []StageRun{{Name: "", Bars: d.Bars}}})
	if err != nil {
		return nil, err
	}
	scale, unit := 1.0, "s"
	if d.Unit == "ms" {
		scale, unit = 1e3, "ms"
	}
	totals := make([]float64, len(d.Bars))
	for i, b := range d.Bars {
		for _, v := range b.Seconds {
			totals[i] += v
		}
		if !(totals[i] > 0) {
			return nil, fmt.Errorf("plots: comparison bar %q: total %g, must be positive", b.Label, totals[i])
		}
	}
	var lb plotter.XYLabels
	for i, t := range totals {
		text := fmt.Sprintf("%.3g %s", t*scale, unit)
		if i > 0 {
			text += "\n" + ratioText(totals[0]/t)
		}
		lb.XYs = append(lb.XYs, plotter.XY{X: float64(i), Y: t * scale})
		lb.Labels = append(lb.Labels, text)
	}
	tl, err := plotter.NewLabels(lb)
	if err != nil {
		return nil, fmt.Errorf("plots: comparison labels: %w", err)
	}
	for i := range tl.TextStyle {
		tl.TextStyle[i].Font = fontLabel
		tl.TextStyle[i].XAlign = -0.5
		tl.TextStyle[i].YAlign = 0
	}
	tl.Offset = vg.Point{Y: vg.Points(3)}
	f.Plot.Add(noPad{tl})
	f.addShape(shape{series: "totals", kind: labels, xy: lb.XYs, labels: lb.Labels, offset: tl.Offset, style: tl.TextStyle[0]})
	f.note("totals", "labels", len(lb.Labels))
	// Room above the tallest bar for two lines of text.
	f.Plot.Y.Max = maxOf(totals) * scale * 1.3
	// Room left and right of the outer bars for their labels.
	f.Plot.X.Min, f.Plot.X.Max = -0.5, float64(len(d.Bars))-0.5
	f.Plot.X.Label.Text = ""
	f.Caption = d.Caption
	return f, nil
}

// ratioText says how many times less time a bar takes than the reference.
func ratioText(r float64) string {
	if r >= 1 {
		return fmt.Sprintf("%.3g× faster", r)
	}
	return fmt.Sprintf("%.3g× slower", 1/r)
}

func maxOf(v []float64) float64 {
	m := v[0]
	for _, x := range v[1:] {
		m = max(m, x)
	}
	return m
}
