package plots

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// skyData is an n × n image of a Gaussian blob at (bx, by) on axes of
// ±half, with marks inside and outside.
func skyData(n int, half, bx, by float64) SkyImageData {
	d := SkyImageData{Title: "sky", N: n, XLabel: "RA", YLabel: "Dec", Unit: "Jy/beam"}
	for i := range n {
		c := -half + (float64(i)+0.5)*2*half/float64(n)
		d.X, d.Y = append(d.X, c), append(d.Y, c)
	}
	for y := range n {
		for x := range n {
			d.Pix = append(d.Pix, math.Exp(-((d.X[x]-bx)*(d.X[x]-bx)+(d.Y[y]-by)*(d.Y[y]-by))/2))
		}
	}
	d.Marks = []SkyMark{{"in", bx, by}, {"edge", half, -half}, {"out", 2 * half, 0}}
	return d
}

// TestSkyImage: the image's cells, the colour bar's range (the pixels'),
// the marks on the image (and not the one off it), square pixels and the
// tick labels from the functions given.
func TestSkyImage(t *testing.T) {
	d := skyData(32, 10, 3, -2)
	d.XTick = func(v float64) string { return fmt.Sprintf("ra%g", v) }
	f, err := SkyImage(d)
	if err != nil {
		t.Fatal(err)
	}
	checkFigure(t, f, "sky", "RA", "Dec", map[string]int{"heatmap": 1, "marker": 1})
	if f.Series[0].Points != 32*32 {
		t.Errorf("%d cells, want %d", f.Series[0].Points, 32*32)
	}
	checkPoints(t, f, "sources", [][2]float64{{3, -2}, {10, -10}})
	if len(f.Caption) != 1 || !strings.Contains(f.Caption[0], "2 source(s)") {
		t.Errorf("caption %q, want the 2 sources on the image", f.Caption)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range d.Pix {
		lo, hi = min(lo, v), max(hi, v)
	}
	if cb := f.ColorBar; cb == nil || cb.Y.Min != lo || cb.Y.Max != hi || cb.Y.Label.Text != "Jy/beam" {
		t.Errorf("colour bar %v, want %g … %g Jy/beam", cb, lo, hi)
	}
	// Square pixels: one unit of x and of y take the same length.
	dc := f.Plot.DataCanvas(f.mainCanvas())
	sx := float64(dc.Max.X-dc.Min.X) / (f.Plot.X.Max - f.Plot.X.Min)
	sy := float64(dc.Max.Y-dc.Min.Y) / (f.Plot.Y.Max - f.Plot.Y.Min)
	if math.Abs(sx/sy-1) > 0.01 {
		t.Errorf("a unit of x is %.4g pt, of y %.4g pt: the pixels are not square", sx, sy)
	}
	if f.Plot.Y.Min != -10 || f.Plot.Y.Max != 10 || f.Plot.X.Min > -10 || f.Plot.X.Max < 10 {
		t.Errorf("axes x %g … %g, y %g … %g: want the image's ±10 inside, y exactly", f.Plot.X.Min, f.Plot.X.Max, f.Plot.Y.Min, f.Plot.Y.Max)
	}
	labelled := 0
	for _, tk := range f.Plot.X.Tick.Marker.Ticks(-10, 10) {
		if tk.Label != "" {
			labelled++
			if want := fmt.Sprintf("ra%g", tk.Value); tk.Label != want {
				t.Errorf("x tick at %g labelled %q, want %q", tk.Value, tk.Label, want)
			}
		}
	}
	if labelled == 0 {
		t.Errorf("no labelled x ticks")
	}
	svg, err := SVG(f)
	if err != nil || strings.Count(svg, "<image") != 2 { // the map and the colour bar, one raster each
		t.Errorf("SVG: %v, %d <image> elements, want 2 (a raster map and its colour bar)", err, strings.Count(svg, "<image"))
	}
	// Each raster fills its box (the colour bar is 1 pixel wide).
	if n := strings.Count(svg, `<image preserveAspectRatio="none" `); n != 2 {
		t.Errorf("%d of the SVG's rasters stretch to their box, want 2", n)
	}
}

// TestSkyImageErrors: bad data is refused with what is wrong.
func TestSkyImageErrors(t *testing.T) {
	for _, c := range []struct {
		edit func(*SkyImageData)
		want string
	}{
		{func(d *SkyImageData) { d.N = 1 }, "1 pixels a side"},
		{func(d *SkyImageData) { d.Pix = d.Pix[1:] }, "63 pixels, 8 x and 8 y for a side of 8"},
		{func(d *SkyImageData) { d.Pix[9] = math.NaN() }, "pixel (1, 1) is NaN"},
		{func(d *SkyImageData) { d.X[3] = d.X[2] }, "do not increase"},
	} {
		d := skyData(8, 1, 0, 0)
		c.edit(&d)
		if _, err := SkyImage(d); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
	}
}
