package beam

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// prefilterLine, the plain definition the production sweeps are checked
// against, replaces the n samples of c (stride apart, starting at c[0]) by
// their cubic B-spline coefficients under mirror-symmetric boundaries. buf
// is scratch space of at least n values. Lines of one sample are left
// alone, as scipy does.
func prefilterLine(c []float64, n, stride int, buf []float64) {
	if n <= 1 {
		return
	}
	line := buf[:n]
	for i := range line {
		line[i] = c[i*stride]
	}
	z := cubicPole
	gain := (1 - z) * (1 - 1/z)
	for i := range line {
		line[i] *= gain
	}
	// Causal initialisation for a mirror-symmetric extension.
	zn1 := math.Pow(z, float64(n-1))
	c0 := line[0] + zn1*line[n-1]
	zi := z
	for i := 1; i < n-1; i++ {
		c0 += zi * (line[i] + zn1*line[n-1-i])
		zi *= z
	}
	line[0] = c0 / (1 - zn1*zn1)
	for i := 1; i < n; i++ {
		line[i] += z * line[i-1]
	}
	// Anti-causal initialisation and backward pass.
	line[n-1] = (z*line[n-2] + line[n-1]) * z / (z*z - 1)
	for i := n - 2; i >= 0; i-- {
		line[i] = z * (line[i+1] - line[i])
	}
	for i := range line {
		c[i*stride] = line[i]
	}
}

// prefilterColumns is the per-line column filter swept row by row: the
// same bits as prefilterLine down each column, on fresh random planes of
// every small shape and of a beam grid's.
func TestPrefilterColumnsMatchesLines(t *testing.T) {
	seed := sharedtest.Seed(t)
	rng := rand.New(rand.NewPCG(seed, 9))
	for _, sh := range [][2]int{{1, 1}, {1, 7}, {2, 1}, {2, 3}, {3, 2}, {5, 5}, {17, 4}, {181, 360}} {
		nrow, ncol := sh[0], sh[1]
		p := make([]float64, nrow*ncol)
		for i := range p {
			p[i] = rng.NormFloat64() * math.Exp(rng.NormFloat64()*5)
		}
		want := append([]float64(nil), p...)
		buf := make([]float64, nrow)
		for j := 0; j < ncol; j++ {
			prefilterLine(want[j:], nrow, ncol, buf)
		}
		prefilterColumns(p, nrow, ncol)
		for i := range p {
			if p[i] != want[i] {
				t.Fatalf("%d×%d (seed %d): element %d is %v, per-line filter %v", nrow, ncol, seed, i, p[i], want[i])
			}
		}
	}
}

// prefilter2D (both passes swept over many lines at once) gives the bits
// of the plain definition: prefilterLine down every column, then along
// every row.
func TestPrefilter2DMatchesLines(t *testing.T) {
	seed := sharedtest.Seed(t)
	rng := rand.New(rand.NewPCG(seed, 10))
	for _, sh := range [][2]int{{1, 1}, {1, 9}, {7, 1}, {2, 3}, {33, 65}, {181, 361}} {
		nrow, ncol := sh[0], sh[1]
		p := make([]float64, nrow*ncol)
		for i := range p {
			p[i] = rng.NormFloat64() * math.Exp(rng.NormFloat64()*5)
		}
		want := append([]float64(nil), p...)
		buf := make([]float64, max(nrow, ncol))
		for j := 0; j < ncol; j++ {
			prefilterLine(want[j:], nrow, ncol, buf)
		}
		for i := 0; i < nrow; i++ {
			prefilterLine(want[i*ncol:], ncol, 1, buf)
		}
		prefilter2D(p, nrow, ncol)
		for i := range p {
			if p[i] != want[i] {
				t.Fatalf("%d×%d (seed %d): element %d is %v, line by line %v", nrow, ncol, seed, i, p[i], want[i])
			}
		}
	}
}
