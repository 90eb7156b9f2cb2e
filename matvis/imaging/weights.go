package imaging

import (
	"fmt"
	"math"
)

// uvGrid is WSClean's weight grid: N × N/2 cells of the half plane
// v ≥ 0, cells of 1/(N·Cell) wavelengths, u = 0 at column N/2.
type uvGrid struct {
	n    int
	cell float64 // N·Cell: wavelengths × this = cells
	sum  []float64
}

// index is the cell of (u, v) in wavelengths, or −1 outside the grid
// (floor, as WSClean's uvToXY).
func (g *uvGrid) index(u, v float64) int {
	if v < 0 {
		u, v = -u, -v
	}
	x := math.Floor(u*g.cell + float64(g.n/2))
	y := math.Floor(v * g.cell)
	if x < 0 || x >= float64(g.n) || y >= float64(g.n/2) {
		return -1
	}
	return int(y)*g.n + int(x)
}

// Weights returns every sample's imaging weight ω (C-ordered as v.Data):
// its natural weight times the scheme's factor, 0 for samples outside
// the uv grid (see the package comment).
func Weights(v *Vis, g Geometry, wt Weighting) ([]float64, error) {
	if err := v.check(false); err != nil {
		return nil, err
	}
	if err := g.check(); err != nil {
		return nil, err
	}
	if !(wt.Padding >= 0 && wt.Padding <= 10) {
		return nil, fmt.Errorf("imaging: padding %v: must be from 1 to 10 (0: none)", wt.Padding)
	}
	pn := PaddedSize(g.N, wt.Padding)
	grid := &uvGrid{n: pn, cell: float64(pn) * g.Cell, sum: make([]float64, pn*pn/2)}
	nf := len(v.Freqs)
	cells := make([]int, v.samples())
	var total float64
	for j := range cells {
		b, f := v.UVW[j/nf], v.Freqs[j%nf]/SpeedOfLight
		cells[j] = grid.index(b[0]*f, b[1]*f)
		if cells[j] >= 0 {
			w := natural(v, j)
			grid.sum[cells[j]] += w
			total += w
		}
	}
	factor := schemeFactor(grid.sum, total, wt)
	out := make([]float64, len(cells))
	for j, c := range cells {
		if c >= 0 {
			out[j] = natural(v, j) * factor(grid.sum[c])
		}
	}
	return out, nil
}

// natural is sample j's natural weight.
func natural(v *Vis, j int) float64 {
	if v.Weight == nil {
		return 1
	}
	return v.Weight[j]
}

// schemeFactor returns the factor a sample in a cell of summed weight W
// is multiplied by.
func schemeFactor(sum []float64, total float64, wt Weighting) func(W float64) float64 {
	switch wt.Mode {
	case Uniform:
		return func(W float64) float64 {
			if W == 0 {
				return 0
			}
			return 1 / W
		}
	case Briggs:
		var sq float64
		for _, W := range sum {
			sq += W * W
		}
		num := 5 * math.Pow(10, -wt.Robust)
		f2 := num * num / (sq / total)
		return func(W float64) float64 { return 1 / (1 + W*f2) }
	}
	return func(float64) float64 { return 1 }
}
