package plots

import (
	"fmt"
	"math"
	"math/cmplx"

	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
)

// Part selects what of a complex visibility is drawn.
type Part int

// Parts of a visibility.
const (
	Amplitude Part = iota // |V|
	Phase                 // arg V, radians
)

func (pt Part) value(v complex128) float64 {
	if pt == Phase {
		return cmplx.Phase(v)
	}
	return cmplx.Abs(v)
}

func (pt Part) label() string {
	if pt == Phase {
		return "phase (rad)"
	}
	return "amplitude (Jy)"
}

// VisSeries is one baseline's visibilities along an axis.
type VisSeries struct {
	Name string
	V    []complex128
}

// VisData is the input of VisLines: visibilities of several baselines
// against frequency or time.
type VisData struct {
	Title  string
	X      []float64
	XLabel string // e.g. "frequency (MHz)" or "time (JD − 2460000)"
	Series []VisSeries
}

// VisLines draws the amplitude or phase of each series against X, one line
// (with points) per baseline.
func VisLines(d VisData, part Part) (*Figure, error) {
	f := newFigure(d.Title, d.XLabel, part.label())
	p := f.Plot
	for i, s := range d.Series {
		if len(s.V) != len(d.X) {
			return nil, fmt.Errorf("plots: vis series %q has %d values for %d x", s.Name, len(s.V), len(d.X))
		}
		xy := make(plotter.XYs, len(s.V))
		for k, v := range s.V {
			xy[k] = plotter.XY{X: d.X[k], Y: part.value(v)}
		}
		ln, sc, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, fmt.Errorf("plots: vis %s: %w", s.Name, err)
		}
		ln.Color, sc.Color = Color(i), Color(i)
		p.Add(ln, sc)
		p.Legend.Add(s.Name, ln, sc)
		f.note(s.Name, "line", len(xy))
	}
	if part == Phase {
		p.Y.Min, p.Y.Max = -math.Pi, math.Pi
	}
	p.Add(plotter.NewGrid())
	return f, nil
}

// WaterfallData is a 2-D array of visibilities: V[row][col] with rows
// along Y (e.g. time) and columns along X (e.g. frequency or baseline).
type WaterfallData struct {
	Title          string
	X, Y           []float64
	XLabel, YLabel string
	V              [][]complex128
}

type waterGrid struct {
	x, y []float64
	z    [][]float64
}

func (g waterGrid) Dims() (c, r int)   { return len(g.x), len(g.y) }
func (g waterGrid) Z(c, r int) float64 { return g.z[r][c] }
func (g waterGrid) X(c int) float64    { return g.x[c] }
func (g waterGrid) Y(r int) float64    { return g.y[r] }

// Waterfall draws the amplitude or phase of V as a heat map with a
// diverging colour map (the range is in the series name).
func Waterfall(d WaterfallData, part Part) (*Figure, error) {
	f := newFigure(d.Title, d.XLabel, d.YLabel)
	if len(d.Y) != len(d.V) || len(d.Y) == 0 || len(d.X) == 0 {
		return nil, fmt.Errorf("plots: waterfall %q: %d rows for %d y values and %d x values", d.Title, len(d.V), len(d.Y), len(d.X))
	}
	z := make([][]float64, len(d.V))
	lo, hi := math.Inf(1), math.Inf(-1)
	for r, row := range d.V {
		if len(row) != len(d.X) {
			return nil, fmt.Errorf("plots: waterfall row %d has %d values for %d x", r, len(row), len(d.X))
		}
		z[r] = make([]float64, len(row))
		for c, v := range row {
			z[r][c] = part.value(v)
			lo, hi = math.Min(lo, z[r][c]), math.Max(hi, z[r][c])
		}
	}
	pal := moreland.SmoothBlueRed()
	if hi > lo {
		pal.SetMin(lo)
		pal.SetMax(hi)
	} else {
		pal.SetMin(lo - 1)
		pal.SetMax(lo + 1)
	}
	hm := plotter.NewHeatMap(waterGrid{d.X, d.Y, z}, pal.Palette(255))
	f.Plot.Add(hm)
	// gonum/plot has no colour bar on the same canvas; the title carries
	// the scale instead.
	f.Plot.Title.Text = fmt.Sprintf("%s\n%s: %.3g (blue) to %.3g (red)", d.Title, part.label(), lo, hi)
	f.note(fmt.Sprintf("%s %.3g … %.3g", part.label(), lo, hi), "heatmap", len(d.X)*len(d.Y))
	return f, nil
}
