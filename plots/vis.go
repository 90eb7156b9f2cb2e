package plots

import (
	"fmt"
	"math"
	"math/cmplx"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
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
// (with points) per baseline. A phase line is broken where it wraps
// between −π and π rather than drawn across the plot.
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
		sc, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, fmt.Errorf("plots: vis %s: %w", s.Name, err)
		}
		sc.Color = Color(i)
		sc.GlyphStyle.Radius = vg.Points(2.5)
		var first *plotter.Line
		for _, seg := range splitWraps(xy, part == Phase) {
			if len(seg) < 2 {
				continue
			}
			ln, err := plotter.NewLine(seg)
			if err != nil {
				return nil, fmt.Errorf("plots: vis %s: %w", s.Name, err)
			}
			ln.Color = Color(i)
			p.Add(ln)
			f.lineShape(s.Name, seg)
			if first == nil {
				first = ln
			}
		}
		p.Add(sc)
		f.pointShape(s.Name, xy, sc.GlyphStyle.Radius)
		if first != nil {
			f.legend(s.Name, first, sc)
		} else {
			f.legend(s.Name, sc)
		}
		f.note(s.Name, "line", len(xy))
	}
	if part == Phase {
		p.Y.Min, p.Y.Max = -math.Pi, math.Pi
		p.Y.Tick.Marker = piTicks{}
	}
	p.Add(plotter.NewGrid())
	return f, nil
}

// splitWraps cuts a phase series where consecutive values jump by more
// than π (a wrap through ±π, not a change), so no line crosses the plot;
// other series come back whole.
func splitWraps(xy plotter.XYs, phase bool) []plotter.XYs {
	if !phase {
		return []plotter.XYs{xy}
	}
	var out []plotter.XYs
	start := 0
	for k := 1; k < len(xy); k++ {
		if math.Abs(xy[k].Y-xy[k-1].Y) > math.Pi {
			out = append(out, xy[start:k])
			start = k
		}
	}
	return append(out, xy[start:])
}

// piTicks labels a phase axis at multiples of π/2.
type piTicks struct{}

// Ticks implements plot.Ticker.
func (piTicks) Ticks(lo, hi float64) []plot.Tick {
	names := map[int]string{-2: "−π", -1: "−π/2", 0: "0", 1: "π/2", 2: "π"}
	var ts []plot.Tick
	for k := int(math.Ceil(lo / (math.Pi / 2))); float64(k)*math.Pi/2 <= hi+1e-9; k++ {
		label, ok := names[k]
		if !ok {
			label = fmt.Sprintf("%dπ/2", k)
		}
		ts = append(ts, plot.Tick{Value: float64(k) * math.Pi / 2, Label: label})
	}
	return ts
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
// diverging colour map and a colour bar right of it (the range is also in
// the series name).
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
	f.addShape(shape{series: "heat map", kind: fill})
	// Axes of indices (time index, antenna number) tick on integers only:
	// the cells are centred there.
	if integers(d.X) {
		f.Plot.X.Tick.Marker = linearTicks{Integer: true}
	}
	if integers(d.Y) {
		f.Plot.Y.Tick.Marker = linearTicks{Integer: true}
	}
	cb := plot.New()
	styleAxes(cb)
	cb.HideX()
	cb.Y.Label.Text = part.label()
	cb.Y.Min, cb.Y.Max = pal.Min(), pal.Max()
	cb.Add(&plotter.ColorBar{ColorMap: pal, Vertical: true})
	f.ColorBar = cb
	f.note(fmt.Sprintf("%s %.3g … %.3g", part.label(), lo, hi), "heatmap", len(d.X)*len(d.Y))
	return f, nil
}

// integers reports whether every value is a whole number.
func integers(v []float64) bool {
	for _, x := range v {
		if x != math.Trunc(x) {
			return false
		}
	}
	return len(v) > 0
}
