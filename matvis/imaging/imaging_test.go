package imaging

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis/nufft"
)

// randomVis is a small drift-free phased set: rows with |u|, |v| ≤ 60 m,
// |w| ≤ 20 m, channels in 100–200 MHz, random visibilities and weights.
func randomVis(rng *rand.Rand, rows, chans int) *Vis {
	v := &Vis{}
	for range rows {
		v.UVW = append(v.UVW, [3]float64{120 * (rng.Float64() - 0.5), 120 * (rng.Float64() - 0.5), 40 * (rng.Float64() - 0.5)})
	}
	for range chans {
		v.Freqs = append(v.Freqs, 100e6+100e6*rng.Float64())
	}
	for range rows * chans {
		v.Data = append(v.Data, complex(rng.NormFloat64(), rng.NormFloat64()))
		v.Weight = append(v.Weight, rng.Float64())
	}
	return v
}

// maxDiff is max |a − b| over pixels and max |b|.
func maxDiff(a, b *Image) (diff, peak float64) {
	for i := range a.Pix {
		diff = max(diff, math.Abs(a.Pix[i]-b.Pix[i]))
		peak = max(peak, math.Abs(b.Pix[i]))
	}
	return diff, peak
}

// TestNUFFTAgainstDirect: both methods (the w-gridder and the type-3
// NUFFT) equal the plain sum on random
// sets, for every weighting, dirty images and PSFs, wide fields (w-terms
// large) included.
func TestNUFFTAgainstDirect(t *testing.T) {
	rng := sharedtest.RNG(t, 1)
	schemes := []Weighting{{Mode: Natural}, {Mode: Uniform}, {Mode: Briggs, Robust: 0.5}, {Mode: Briggs, Robust: -1}}
	for trial := range 4 {
		v := randomVis(rng, 20+rng.IntN(40), 1+rng.IntN(3))
		g := Geometry{N: 2 * (8 + rng.IntN(16)), Cell: 0.005 + 0.02*rng.Float64()}
		for _, wt := range schemes {
			for _, psf := range []bool{false, true} {
				want, err := Direct(v, g, wt, psf)
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range []Method{WGridding, Type3} {
					got, err := image(v, g, wt, Options{Eps: 1e-12, Method: m}, psf)
					if err != nil {
						t.Fatal(err)
					}
					d, peak := maxDiff(got, want)
					if d > 1e-9*peak || peak == 0 {
						t.Errorf("trial %d %v psf=%v N=%d cell=%g method %d: max|NUFFT − direct| = %.3g of peak %.3g", trial, wt, psf, g.N, g.Cell, m, d, peak)
					}
				}
			}
		}
	}
}

// TestSlabsAgainstDirect: with a grid budget small enough to force the
// samples into slabs of w (checked: more than one), the image still
// equals the plain sum.
func TestSlabsAgainstDirect(t *testing.T) {
	rng := sharedtest.RNG(t, 5)
	v := randomVis(rng, 60, 3)
	for i := range v.UVW {
		v.UVW[i][2] *= 20 // |w| up to 400 m: a deep w axis
	}
	g := Geometry{N: 48, Cell: 0.015}
	wt := Weighting{Mode: Uniform}
	want, err := Direct(v, g, wt, false)
	if err != nil {
		t.Fatal(err)
	}
	pts, _, _, err := prepare(v, g, wt, false)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := targets(g)
	grid, _, err := nufft.Shape(pts, s, nufft.Options{Eps: 1e-12, Sign: -1})
	if err != nil {
		t.Fatal(err)
	}
	whole := grid[0] * grid[1] * grid[2]
	budget := whole * 3 / 4 // one grid for all the samples cannot be used
	got, err := image(v, g, wt, Options{Eps: 1e-12, MaxGrid: budget, Method: Type3}, false)
	if err != nil {
		t.Fatal(err)
	}
	d, peak := maxDiff(got, want)
	t.Logf("one grid %v (%d points); budget %d: max|slabs − direct| = %.3g of the peak", grid, whole, budget, d/peak)
	if d > 1e-9*peak {
		t.Errorf("max|slabs − direct| = %.3g of the peak %.3g", d/peak, peak)
	}
}

// TestCentrePointSource: a point source of apparent flux S at the phase
// centre has V = S on every sample, so its dirty image is S times the
// PSF, and its peak, at the centre pixel, is S (first principles: every
// phase is zero there).
func TestCentrePointSource(t *testing.T) {
	rng := sharedtest.RNG(t, 2)
	const S = 3.7
	v := randomVis(rng, 80, 4)
	for i := range v.Data {
		v.Data[i] = S
	}
	g := Geometry{N: 64, Cell: 0.01}
	for _, wt := range []Weighting{{Mode: Natural}, {Mode: Uniform}, {Mode: Briggs, Robust: 0}} {
		d, err := Dirty(v, g, wt, Options{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := PSF(v, g, wt, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var worst float64
		for i := range d.Pix {
			worst = max(worst, math.Abs(d.Pix[i]-S*p.Pix[i]))
		}
		if worst > 1e-6*S {
			t.Errorf("%v: max|dirty − S·PSF| = %.3g, over 1e-6 of the peak %g", wt, worst, S)
		}
		if c := d.At(g.N/2, g.N/2); math.Abs(c-S) > 1e-6*S {
			t.Errorf("%v: centre pixel %.9g, want S = %g", wt, c, S)
		}
		if c := p.At(g.N/2, g.N/2); math.Abs(c-1) > 1e-6 {
			t.Errorf("%v: PSF peak %.9g, want 1", wt, c)
		}
	}
}

// TestOffCentrePointSource: a point source at random (l0, m0) far from
// the centre (w-terms matter), visibilities S·exp(+2πi(u l0 + v m0 +
// w(n0 − 1))), peaks at its pixel; a parabola through the peak and its
// neighbours puts it within a tenth of a cell of (l0, m0).
func TestOffCentrePointSource(t *testing.T) {
	rng := sharedtest.RNG(t, 3)
	// A dense array (a HERA-like core) so that the main lobe is narrow
	// against the sidelobes.
	v := randomVis(rng, 400, 3)
	const S = 2.5
	g := Geometry{N: 128, Cell: 0.004}
	for trial := range 3 {
		l0 := (rng.Float64() - 0.5) * 0.35
		m0 := (rng.Float64() - 0.5) * 0.35
		n0 := math.Sqrt(1 - l0*l0 - m0*m0)
		nf := len(v.Freqs)
		for j := range v.Data {
			b, f := v.UVW[j/nf], v.Freqs[j%nf]/SpeedOfLight
			v.Data[j] = S * cmplx.Exp(complex(0, 2*math.Pi*f*(b[0]*l0+b[1]*m0+b[2]*(n0-1))))
		}
		v.Weight = nil
		im, err := Dirty(v, g, Weighting{Mode: Natural}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		px, py := argmax(im)
		if px < 1 || py < 1 || px > g.N-2 || py > g.N-2 {
			t.Fatalf("trial %d: the peak is at the edge, pixel (%d, %d)", trial, px, py)
		}
		x0 := float64(g.N/2) - l0/g.Cell
		y0 := float64(g.N/2) + m0/g.Cell
		// The source's own pixel, or, for a source within a tenth of a
		// cell of a pixel boundary (the fit's tolerance below), the one
		// beside it: which of two pixels 0.49 and 0.51 cell away is
		// brighter is the sidelobes', not the position's (seed
		// 7484429321819408188: a source at x 79.49 peaked at 80).
		if math.Abs(float64(px)-x0) > 0.6 || math.Abs(float64(py)-y0) > 0.6 {
			t.Fatalf("trial %d: peak at pixel (%d, %d), the source is at (%.2f, %.2f)", trial, px, py, x0, y0)
		}
		fx := float64(px) + vertex(im.At(px-1, py), im.At(px, py), im.At(px+1, py))
		fy := float64(py) + vertex(im.At(px, py-1), im.At(px, py), im.At(px, py+1))
		if math.Abs(fx-x0) > 0.1 || math.Abs(fy-y0) > 0.1 {
			t.Errorf("trial %d: fitted peak (%.3f, %.3f), source at (%.3f, %.3f): over a tenth of a cell", trial, fx, fy, x0, y0)
		}
		if p := im.At(px, py); p > S*(1+1e-9) || p < 0.5*S {
			t.Errorf("trial %d: peak %g for S = %g", trial, p, S)
		}
	}
}

// argmax is the brightest pixel.
func argmax(im *Image) (x, y int) {
	best := math.Inf(-1)
	for i, p := range im.Pix {
		if p > best {
			best, x, y = p, i%im.N, i/im.N
		}
	}
	return x, y
}

// vertex is the offset of the vertex of the parabola through (−1, a),
// (0, b), (1, c).
func vertex(a, b, c float64) float64 { return 0.5 * (a - c) / (a - 2*b + c) }

// TestWeightsByHand: uniform and Briggs weights on a grid small enough to
// count by hand.
func TestWeightsByHand(t *testing.T) {
	// N = 4, cell 0.1 rad: uv cells of 2.5 wavelengths; f = 2.5c, so a
	// cell is a metre. Samples: two in cell (u ∈ [0,1), v ∈ [0,1)), one at
	// v < 0 mirrored into it, one alone, one beyond the grid (v ≥ 2).
	v := &Vis{
		UVW:   [][3]float64{{0.2, 0.3, 0}, {0.7, 0.1, 0}, {-0.5, -0.5, 0}, {-1.5, 1.2, 0}, {0, 2.5, 0}},
		Freqs: []float64{2.5 * SpeedOfLight},
	}
	g := Geometry{N: 4, Cell: 0.1}
	cases := []struct {
		wt   Weighting
		want []float64
	}{
		{Weighting{Mode: Natural}, []float64{1, 1, 1, 1, 0}},
		{Weighting{Mode: Uniform}, []float64{1. / 3, 1. / 3, 1. / 3, 1, 0}},
		// Σ W² / Σ W = (9 + 1)/4 = 2.5; f² = 25/2.5 = 10 at R = 0.
		{Weighting{Mode: Briggs}, []float64{1. / 31, 1. / 31, 1. / 31, 1. / 11, 0}},
	}
	for _, c := range cases {
		got, err := Weights(v, g, c.wt)
		if err != nil {
			t.Fatal(err)
		}
		for j := range got {
			if math.Abs(got[j]-c.want[j]) > 1e-15 {
				t.Errorf("%v: weight %d = %v, want %v", c.wt, j, got[j], c.want[j])
			}
		}
	}
}
