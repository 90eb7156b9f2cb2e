package plots

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// shape is the geometry of one drawn series in data coordinates, kept so
// that the legend can be placed where it covers nothing and a test can
// check that it does.
type shape struct {
	series string
	kind   shapeKind
	xy     plotter.XYs
	// bars: per point X is the category, and the bar spans y0[i] … xy[i].Y.
	y0     []float64
	halfW  vg.Length // bars: half the bar width; points: the glyph radius
	offset vg.Point  // bars: the x offset; labels: the text offset
	labels []string
	style  text.Style // labels
}

type shapeKind int

const (
	polyline shapeKind = iota // a line through xy
	area                      // everything below the line through xy
	points                    // glyphs of radius halfW at xy
	bars                      // rectangles
	labels                    // texts at xy + offset
	fill                      // the whole data area (a heat map)
)

// addShape records a drawn series' geometry.
func (f *Figure) addShape(s shape) { f.shapes = append(f.shapes, s) }

// legendMargin is the gap kept between the legend and the data or the
// data area's edge.
const legendMargin = vg.Length(4)

// legendSize is the extent of the legend's entries (gonum's own
// Legend.Rectangle swaps left and right, so it is not used).
func legendSize(l *plot.Legend, n []string) (w, h vg.Length) {
	enth := vg.Length(0)
	for _, s := range n {
		enth = max(enth, l.TextStyle.Rectangle(s).Max.Y)
	}
	for i, s := range n {
		w = max(w, l.ThumbnailWidth+l.TextStyle.Rectangle(" "+s).Max.X)
		h += enth
		if i > 0 {
			h += l.Padding
		}
	}
	return w, h + l.TextStyle.FontExtents().Descent
}

// corner is a legend position inside the data area.
type corner struct{ top, left bool }

// corners lists the inside positions in the order they are tried.
var corners = [...]corner{{true, false}, {true, true}, {false, false}, {false, true}}

// legendRect is the legend's box in corner k of the data canvas dc.
func legendRect(dc draw.Canvas, w, h vg.Length, k corner) vg.Rectangle {
	var r vg.Rectangle
	if k.left {
		r.Min.X = dc.Min.X + legendMargin
	} else {
		r.Min.X = dc.Max.X - legendMargin - w
	}
	if k.top {
		r.Min.Y = dc.Max.Y - legendMargin - h
	} else {
		r.Min.Y = dc.Min.Y + legendMargin
	}
	r.Max = vg.Point{X: r.Min.X + w, Y: r.Min.Y + h}
	return r
}

// overlaps names the series whose drawn geometry meets r (a rectangle on
// canvas dc, grown by the legend margin).
func (f *Figure) overlaps(dc draw.Canvas, r vg.Rectangle) []string {
	r.Min.X -= legendMargin
	r.Min.Y -= legendMargin
	r.Max.X += legendMargin
	r.Max.Y += legendMargin
	tx, ty := f.Plot.Transforms(&dc)
	var out []string
	for _, s := range f.shapes {
		if s.hits(r, dc, tx, ty) {
			out = append(out, s.series)
		}
	}
	return out
}

// hits reports whether s drawn on dc meets r.
func (s shape) hits(r vg.Rectangle, dc draw.Canvas, tx, ty func(float64) vg.Length) bool {
	switch s.kind {
	case fill:
		return true
	case polyline:
		for i := 1; i < len(s.xy); i++ {
			a := vg.Point{X: tx(s.xy[i-1].X), Y: ty(s.xy[i-1].Y)}
			b := vg.Point{X: tx(s.xy[i].X), Y: ty(s.xy[i].Y)}
			if segmentHits(a, b, r) {
				return true
			}
		}
		return len(s.xy) == 1 && inRect(vg.Point{X: tx(s.xy[0].X), Y: ty(s.xy[0].Y)}, r)
	case area:
		return areaHits(s.xy, r, dc, tx, ty)
	case points:
		for _, q := range s.xy {
			x, y := tx(q.X), ty(q.Y)
			g := vg.Rectangle{Min: vg.Point{X: x - s.halfW, Y: y - s.halfW}, Max: vg.Point{X: x + s.halfW, Y: y + s.halfW}}
			if rectsMeet(g, r) {
				return true
			}
		}
	case bars:
		for i, q := range s.xy {
			x := tx(q.X) + s.offset.X
			b := vg.Rectangle{Min: vg.Point{X: x - s.halfW, Y: ty(s.y0[i])}, Max: vg.Point{X: x + s.halfW, Y: ty(q.Y)}}
			if rectsMeet(b, r) {
				return true
			}
		}
	case labels:
		for i, q := range s.xy {
			t := s.style.Rectangle(s.labels[i])
			p := vg.Point{X: tx(q.X) + s.offset.X, Y: ty(q.Y) + s.offset.Y}
			b := vg.Rectangle{Min: p.Add(t.Min), Max: p.Add(t.Max)}
			if rectsMeet(b, r) {
				return true
			}
		}
	}
	return false
}

// areaHits reports whether the region between the bottom of dc and the
// line through xy meets r: where the line's x range and r's overlap, the
// line's highest point there is above r's bottom.
func areaHits(xy plotter.XYs, r vg.Rectangle, dc draw.Canvas, tx, ty func(float64) vg.Length) bool {
	if r.Min.Y < dc.Min.Y {
		return true
	}
	for i := 1; i < len(xy); i++ {
		ax, bx := tx(xy[i-1].X), tx(xy[i].X)
		ay, by := ty(xy[i-1].Y), ty(xy[i].Y)
		if ax > bx {
			ax, bx, ay, by = bx, ax, by, ay
		}
		lo, hi := max(ax, r.Min.X), min(bx, r.Max.X)
		if lo > hi {
			continue
		}
		at := func(x vg.Length) vg.Length {
			if bx == ax {
				return max(ay, by)
			}
			return ay + (by-ay)*(x-ax)/(bx-ax)
		}
		if max(at(lo), at(hi)) > r.Min.Y {
			return true
		}
	}
	return false
}

func inRect(p vg.Point, r vg.Rectangle) bool {
	return p.X >= r.Min.X && p.X <= r.Max.X && p.Y >= r.Min.Y && p.Y <= r.Max.Y
}

func rectsMeet(a, b vg.Rectangle) bool {
	a = normRect(a)
	return a.Min.X <= b.Max.X && b.Min.X <= a.Max.X && a.Min.Y <= b.Max.Y && b.Min.Y <= a.Max.Y
}

func normRect(a vg.Rectangle) vg.Rectangle {
	if a.Min.X > a.Max.X {
		a.Min.X, a.Max.X = a.Max.X, a.Min.X
	}
	if a.Min.Y > a.Max.Y {
		a.Min.Y, a.Max.Y = a.Max.Y, a.Min.Y
	}
	return a
}

// segmentHits reports whether the segment ab meets r (Liang–Barsky
// clipping). Non-finite coordinates (off a log axis) never meet.
func segmentHits(a, b vg.Point, r vg.Rectangle) bool {
	for _, v := range []vg.Length{a.X, a.Y, b.X, b.Y} {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return false
		}
	}
	t0, t1 := 0.0, 1.0
	dx, dy := float64(b.X-a.X), float64(b.Y-a.Y)
	for _, e := range [4][2]float64{
		{-dx, float64(a.X - r.Min.X)}, {dx, float64(r.Max.X - a.X)},
		{-dy, float64(a.Y - r.Min.Y)}, {dy, float64(r.Max.Y - a.Y)},
	} {
		p, q := e[0], e[1]
		if p == 0 {
			if q < 0 {
				return false
			}
			continue
		}
		t := q / p
		if p < 0 {
			t0 = max(t0, t)
		} else {
			t1 = min(t1, t)
		}
		if t0 > t1 {
			return false
		}
	}
	return true
}
