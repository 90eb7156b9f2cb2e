package imaging

import (
	"fmt"
	"image/color"
	"math"

	"bytes"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// The figure: a square map and a colour-bar strip right of it, at the
// resolution of the repository's other figures (plots.DPI); drawn here
// rather than through plots.Figure, whose fixed 16 × 10 cm canvas would
// stretch the sky.
const (
	mapSide  = 13 * vg.Centimeter
	barWidth = 2.2 * vg.Centimeter
	pngDPI   = 192
)

// Mark is a source to mark on a plot (ICRS, radians).
type Mark struct {
	Name    string
	RA, Dec float64
}

// heatGrid is an image as gonum's GridXYZ: X is −l and Y is m, in
// degrees of direction cosine, so that X grows with the pixel column and
// east (+l) is left, as in the FITS file.
type heatGrid struct{ im *Image }

func (g heatGrid) Dims() (c, r int)   { return g.im.N, g.im.N }
func (g heatGrid) Z(c, r int) float64 { return g.im.At(c, r) }
func (g heatGrid) X(c int) float64    { l, _ := g.im.LM(c, 0); return -l * 180 / math.Pi }
func (g heatGrid) Y(r int) float64    { _, m := g.im.LM(0, r); return m * 180 / math.Pi }

// skyTicks labels the −l (or m) axis with the RA (or Dec) of the points
// along the centre row (column): exact there, a guide elsewhere.
type skyTicks struct {
	w   WCS
	dec bool
}

func (t skyTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label == "" {
			continue
		}
		d := ticks[i].Value * math.Pi / 180
		if math.Abs(d) >= 1 {
			ticks[i].Label = ""
			continue
		}
		var ra, dec float64
		if t.dec {
			ra, dec = t.w.RADec(0, d)
			ticks[i].Label = fmt.Sprintf("%.1f°", dec*180/math.Pi)
		} else {
			ra, _ = t.w.RADec(-d, 0)
			ticks[i].Label = fmt.Sprintf("%.1f°", ra*180/math.Pi)
		}
	}
	return ticks
}

// PlotPNG draws im as a heat map with east to the left and north up, a
// colour bar in Jy/beam, axes labelled with the RA and Dec through the
// centre, and the marks that fall on the image as open circles.
func PlotPNG(im *Image, w WCS, title string, marks []Mark) ([]byte, error) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range im.Pix {
		lo, hi = min(lo, v), max(hi, v)
	}
	if !(hi > lo) {
		lo, hi = lo-1, lo+1
	}
	pal := moreland.ExtendedBlackBody()
	pal.SetMin(lo)
	pal.SetMax(hi)
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "RA along the centre row (east ←)"
	p.Y.Label.Text = "Dec along the centre column"
	p.X.Tick.Marker = skyTicks{w: w}
	p.Y.Tick.Marker = skyTicks{w: w, dec: true}
	hm := plotter.NewHeatMap(heatGrid{im}, pal.Palette(255))
	// One raster image, not a rectangle per pixel (whose anti-aliased
	// edges draw a mesh over the map).
	hm.Rasterized = true
	p.Add(hm)
	if pts := markPoints(im, w, marks); len(pts) > 0 {
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, fmt.Errorf("imaging: plot: %w", err)
		}
		s.GlyphStyle = draw.GlyphStyle{Color: color.RGBA{G: 220, B: 255, A: 255}, Radius: vg.Points(5), Shape: draw.RingGlyph{}}
		p.Add(s)
		p.Title.Text += fmt.Sprintf("\n○ %d sky-model sources", len(pts))
	}
	cb := plot.New()
	cb.HideX()
	cb.Y.Label.Text = "Jy/beam"
	cb.Y.Min, cb.Y.Max = lo, hi
	cb.Add(&plotter.ColorBar{ColorMap: pal, Vertical: true})
	img := vgimg.NewWith(vgimg.UseWH(mapSide+barWidth, mapSide), vgimg.UseDPI(pngDPI), vgimg.UseBackgroundColor(color.White))
	c := draw.New(img)
	p.Draw(draw.Crop(c, 0, -barWidth, 0, 0))
	cb.Draw(draw.Crop(c, mapSide+vg.Points(4), 0, vg.Points(40), -vg.Points(30)))
	var b bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&b); err != nil {
		return nil, fmt.Errorf("imaging: plot: %w", err)
	}
	return b.Bytes(), nil
}

// markPoints are the marks on the image, at (−l, m) in degrees.
func markPoints(im *Image, w WCS, marks []Mark) plotter.XYs {
	half := float64(im.N/2) * im.Cell
	var pts plotter.XYs
	for _, mk := range marks {
		l, m, ok := w.LM(mk.RA, mk.Dec)
		if !ok || math.Abs(l) > half || math.Abs(m) > half {
			continue
		}
		pts = append(pts, plotter.XY{X: -l * 180 / math.Pi, Y: m * 180 / math.Pi})
	}
	return pts
}
