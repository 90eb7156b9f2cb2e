// Package plots draws gomatvis's figures with gonum/plot: a roofline, stage
// breakdowns, memory against chunk size, scaling, and visibility views.
//
// Each figure is a function from plain data to a *Figure, which embeds the
// *plot.Plot (so everything gonum/plot offers applies) and lists the series
// it drew, so that tests can check a figure's data and labels without
// comparing pixels. PNG, SVG and the bytes for a notebook display (GoNB's
// gonbui.DisplayPNG / DisplaySVG) come from the helpers here; this package
// does not depend on GoNB.
package plots

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strconv"

	"github.com/gomatvis/gomatvis/internal/atomicfile"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// Series describes one thing a figure drew.
type Series struct {
	// Name is the legend entry (or the label of an unlabelled element).
	Name string
	// Kind is "line", "scatter", "bars", "area", "labels", "heatmap" or
	// "marker".
	Kind string
	// Points is the number of data points (bars, cells) it holds.
	Points int
}

// Figure is a plot and the series drawn on it.
type Figure struct {
	*plot.Plot
	Series []Series
}

// Default figure size.
const (
	Width  = 16 * vg.Centimeter
	Height = 10 * vg.Centimeter
)

func newFigure(title, xlabel, ylabel string) *Figure {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	return &Figure{Plot: p}
}

func (f *Figure) note(name, kind string, n int) {
	f.Series = append(f.Series, Series{Name: name, Kind: kind, Points: n})
}

// Count returns the number of series of a kind ("" counts all).
func (f *Figure) Count(kind string) int {
	n := 0
	for _, s := range f.Series {
		if kind == "" || s.Kind == kind {
			n++
		}
	}
	return n
}

// render draws p in a format ("png" or "svg") at the default size.
func render(p *plot.Plot, format string) ([]byte, error) {
	w, err := p.WriterTo(Width, Height, format)
	if err != nil {
		return nil, fmt.Errorf("plots: %s: %w", format, err)
	}
	var b bytes.Buffer
	if _, err := w.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("plots: writing %s: %w", format, err)
	}
	return b.Bytes(), nil
}

// PNG renders p as PNG bytes (for gonbui.DisplayPNG).
func PNG(p *plot.Plot) ([]byte, error) { return render(p, "png") }

// SVG renders p as an SVG document (for gonbui.DisplaySVG).
func SVG(p *plot.Plot) (string, error) {
	b, err := render(p, "svg")
	return string(b), err
}

// Save writes p as dir/name.png and dir/name.svg and returns both paths.
func Save(p *plot.Plot, dir, name string) ([]string, error) {
	var paths []string
	for _, format := range []string{"png", "svg"} {
		b, err := render(p, format)
		if err != nil {
			return paths, fmt.Errorf("plots: %s: %w", name, err)
		}
		path := filepath.Join(dir, name+"."+format)
		if err := atomicfile.WriteBytes(path, b); err != nil {
			return paths, fmt.Errorf("plots: %w", err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// Color returns the i-th colour of the figures' palette (cycling): a
// colour-blind-friendly qualitative palette (Okabe–Ito, then Tol's muted),
// long enough for every memory term.
func Color(i int) color.Color {
	paletteRGB := [...]uint32{
		0x0072B2, 0xE69F00, 0x009E73, 0xCC79A7, 0x56B4E9, 0xD55E00, 0xF0E442,
		0x332288, 0x882255, 0x44AA99, 0x999933, 0xAA4499, 0x888888,
	}
	v := paletteRGB[((i%len(paletteRGB))+len(paletteRGB))%len(paletteRGB)]
	return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255}
}

// logTicks labels 1, 2 and 5 times each power of ten when the axis spans
// less than two decades (gonum's LogTicks would label one value or none
// there) and every power of ten otherwise.
func logTicks() plot.Ticker {
	return plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		if !(lo > 0 && hi > lo) {
			return nil
		}
		if math.Log10(hi/lo) >= 2 {
			return plot.LogTicks{Prec: -1}.Ticks(lo, hi)
		}
		var ts []plot.Tick
		for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
			p := math.Pow(10, e)
			for m := 1; m <= 9; m++ {
				v := float64(m) * p
				if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
					continue
				}
				t := plot.Tick{Value: v}
				if m == 1 || m == 2 || m == 5 {
					t.Label = strconv.FormatFloat(v, 'g', 3, 64)
				}
				ts = append(ts, t)
			}
		}
		return ts
	})
}
