package skyview

import (
	"fmt"
	"math"

	"github.com/gomatvis/gomatvis/matvis/imaging"
	"github.com/gomatvis/gomatvis/plots"
)

// deg is degrees per radian.
const deg = 180 / math.Pi

// Figure draws im (placed on the sky by w) with plots.SkyImage: east to
// the left and north up, axes in degrees of direction cosine labelled
// with the RA along the centre row and the Dec along the centre column
// (exact there, a guide elsewhere), a colour bar in Jy/beam and the marks
// that fall on the image.
func Figure(im *imaging.Image, w imaging.WCS, title string, marks []imaging.Mark) (*plots.Figure, error) {
	d := plots.SkyImageData{
		Title: title, N: im.N, Pix: im.Pix, Unit: "Jy/beam",
		XLabel: "RA along the centre row (east ←)", YLabel: "Dec along the centre column",
		XTick: func(v float64) string {
			if math.Abs(v/deg) >= 1 {
				return ""
			}
			ra, _ := w.RADec(-v/deg, 0)
			return fmt.Sprintf("%.1f°", ra*deg)
		},
		YTick: func(v float64) string {
			if math.Abs(v/deg) >= 1 {
				return ""
			}
			_, dec := w.RADec(0, v/deg)
			return fmt.Sprintf("%.1f°", dec*deg)
		},
	}
	// Column x is at −l, row y at m (imaging's pixels): both increase.
	for i := range im.N {
		l, m := im.LM(i, i)
		d.X, d.Y = append(d.X, -l*deg), append(d.Y, m*deg)
	}
	for _, mk := range marks {
		if l, m, ok := w.LM(mk.RA, mk.Dec); ok {
			d.Marks = append(d.Marks, plots.SkyMark{Name: mk.Name, X: -l * deg, Y: m * deg})
		}
	}
	return plots.SkyImage(d)
}

// Title is a view's title: every setting, as the widgets show them, so
// that a figure says what it was drawn for.
func (v *View) Title(what string) string {
	return fmt.Sprintf("%s: %d antennas, %g min, %s, %s", what, v.NAnt, v.SpanMin, v.Weighting, v.Beam)
}

// Figures are the view's dirty image and PSF.
func (v *View) Figures() (dirty, psf *plots.Figure, err error) {
	if dirty, err = Figure(v.Dirty, v.WCS, v.Title("Dirty image"), v.Marks); err != nil {
		return nil, nil, err
	}
	if psf, err = Figure(v.PSF, v.WCS, v.Title("PSF"), nil); err != nil {
		return nil, nil, err
	}
	return dirty, psf, nil
}
