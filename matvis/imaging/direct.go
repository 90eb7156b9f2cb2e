package imaging

import "math"

// Direct is Dirty (or PSF when psf is set) by the plain sum over samples
// and pixels: O(samples × pixels), the reference the NUFFT path is tested
// against.
func Direct(v *Vis, g Geometry, wt Weighting, psf bool) (*Image, error) {
	pts, c, sum, err := prepare(v, g, wt, psf)
	if err != nil {
		return nil, err
	}
	im := &Image{Geometry: g, Pix: make([]float64, g.N*g.N), WeightSum: sum}
	for y := range g.N {
		for x := range g.N {
			l, m := g.LM(x, y)
			if l*l+m*m >= 1 {
				continue
			}
			n1 := math.Sqrt(1-l*l-m*m) - 1
			var acc float64
			for j := range c {
				ph := -2 * math.Pi * (pts[0][j]*l + pts[1][j]*m + pts[2][j]*n1)
				s, co := math.Sincos(ph)
				acc += real(c[j])*co - imag(c[j])*s
			}
			im.Pix[y*g.N+x] = acc / sum
		}
	}
	return im, nil
}
