package plots

import (
	"math"
	"testing"
)

// TestSkyImageMarksOnOblongPixels: a mark is on the image when it falls
// within the image's cells, each cell reaching half a pixel beyond its
// centre: on pixels of 1 (x) by 0.1 (y) the y extent is the centres'
// ±0.05, not ±0.5. Worked by hand: centres x 0…3, y 0…0.3; the image
// covers x −0.5…3.5, y −0.05…0.35.
func TestSkyImageMarksOnOblongPixels(t *testing.T) {
	d := SkyImageData{Title: "oblong", N: 4, X: []float64{0, 1, 2, 3}, Y: []float64{0, 0.1, 0.2, 0.3}, Unit: "Jy"}
	for i := range 16 {
		d.Pix = append(d.Pix, float64(i))
	}
	d.Marks = []SkyMark{
		{"inside", 1, 0.1}, {"y top edge", 2, 0.34}, {"above", 2, 0.4}, {"below", 2, -0.2},
		{"x right edge", 3.4, 0.3}, {"right", 3.6, 0.3},
	}
	f, err := SkyImage(d)
	if err != nil {
		t.Fatal(err)
	}
	checkPoints(t, f, "sources", [][2]float64{{1, 0.1}, {2, 0.34}, {3.4, 0.3}})
}

// TestSkyImageFlat: a flat image (every pixel one value, a blank sky) has
// a colour bar of that value ± 1, the value at its middle: a range of
// width 0 would have no colours, and the value drawn at an end would
// look like the faintest or brightest of a range.
func TestSkyImageFlat(t *testing.T) {
	d := skyData(8, 4, 0, 0)
	for i := range d.Pix {
		d.Pix[i] = 2.5
	}
	f, err := SkyImage(d)
	if err != nil {
		t.Fatal(err)
	}
	if cb := f.ColorBar; cb == nil || cb.Y.Min != 1.5 || cb.Y.Max != 3.5 {
		t.Errorf("colour bar %v … %v, want 1.5 … 3.5", f.ColorBar.Y.Min, f.ColorBar.Y.Max)
	}
	if mid := (f.ColorBar.Y.Min + f.ColorBar.Y.Max) / 2; math.Abs(mid-2.5) > 0 {
		t.Errorf("the flat value 2.5 is not the colour bar's middle %v", mid)
	}
}
