package imaging

import (
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// TestWGridAgainstType3: the w-gridder equals the type-3 transform (its
// slower twin, itself checked against the plain sum) on random seeded
// sets that exercise its cases: a compact uv grid and one whose samples
// reach the grid's edge (wrapped), sizes that are not a multiple of the
// FFT batch, w deep enough for many planes, one worker and several
// (the planes split among them), and the accuracy the CLI uses.
func TestWGridAgainstType3(t *testing.T) {
	rng := sharedtest.RNG(t, 11)
	cases := []struct {
		name    string
		n       int
		cell    float64 // radians; 0.04 puts 60 m baselines at the grid's edge at 200 MHz
		wscale  float64
		workers int
		eps     float64
	}{
		{"compact, 1 worker", 64, 0.004, 1, 1, 1e-8},
		{"compact, deep w, 3 workers", 70, 0.006, 10, 3, 1e-8},
		{"edge of the grid (wrapped)", 36, 0.035, 1, 2, 1e-8},
		{"wide field", 100, 0.009, 4, 2, 1e-7},
	}
	for _, c := range cases {
		v := randomVis(rng, 30+rng.IntN(40), 1+rng.IntN(3))
		for i := range v.UVW {
			v.UVW[i][2] *= c.wscale
		}
		g := Geometry{N: c.n, Cell: c.cell * (0.9 + 0.2*rng.Float64())}
		for _, wt := range []Weighting{{Mode: Natural}, {Mode: Briggs, Robust: 0.3}} {
			for _, psf := range []bool{false, true} {
				want, err := image(v, g, wt, Options{Eps: 1e-12, Method: Type3}, psf)
				if err != nil {
					t.Fatal(err)
				}
				got, err := image(v, g, wt, Options{Eps: c.eps, Method: WGridding, Workers: c.workers}, psf)
				if err != nil {
					t.Fatal(err)
				}
				d, peak := maxDiff(got, want)
				t.Logf("%s %v psf=%v: max|w-gridder − type-3| = %.3g of the peak", c.name, wt, psf, d/peak)
				if d > 1e-6*peak || peak == 0 {
					t.Errorf("%s %v psf=%v N=%d cell=%g: max|w-gridder − type-3| = %.3g of the peak %.3g, over 1e-6", c.name, wt, psf, g.N, g.Cell, d/peak, peak)
				}
			}
		}
	}
}

// TestWGridBudget: Auto falls back to the type-3 transform when the
// w-gridder's planes do not fit Options.MaxGrid (the same image), and
// WGridding then refuses, naming the budget.
func TestWGridBudget(t *testing.T) {
	rng := sharedtest.RNG(t, 12)
	v := randomVis(rng, 30, 2)
	// A fine small field: the w-gridder's screens (N² points) outweigh
	// the type-3 transform's grid (the field × the uv extent).
	g := Geometry{N: 256, Cell: 0.0005}
	wt := Weighting{Mode: Natural}
	want, err := image(v, g, wt, Options{Eps: 1e-10, Method: Type3}, false)
	if err != nil {
		t.Fatal(err)
	}
	pts, c, _, err := prepare(v, g, wt, false)
	if err != nil {
		t.Fatal(err)
	}
	wg, err := newWGrid(pts, c, g, Options{Eps: 1e-10, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	budget := wg.workerPoints() - 1 // one worker's planes do not fit
	got, err := image(v, g, wt, Options{Eps: 1e-10, MaxGrid: budget}, false)
	if err != nil {
		t.Fatal(err)
	}
	if d, peak := maxDiff(got, want); d > 1e-8*peak {
		t.Errorf("Auto under a small budget: %.3g of the peak from the type-3 image", d/peak)
	}
	if _, err := image(v, g, wt, Options{Eps: 1e-10, MaxGrid: budget, Method: WGridding}, false); err == nil {
		t.Errorf("WGridding under a %d-point budget: no error", budget)
	} else {
		t.Log(err)
	}
}

// TestSpread7: the unrolled spreading of the width-7 kernel equals the
// loop's (its twin) on random weights, positions and strengths.
func TestSpread7(t *testing.T) {
	rng := sharedtest.RNG(t, 13)
	const nu, nv, kw = 20, 15, 7
	for range 50 {
		wu, wv := make([]float64, kw), make([]float64, kw)
		iu, iv := make([]int, kw), make([]int, kw)
		u0, v0 := rng.IntN(nu-kw+1), rng.IntN(nv-kw+1)
		for a := range kw {
			wu[a], wv[a] = rng.Float64(), rng.Float64()
			iu[a], iv[a] = u0+a, v0+a
		}
		c := complex(rng.NormFloat64(), rng.NormFloat64())
		want, got := make([]complex128, nu*nv), make([]complex128, nu*nv)
		for i := range want {
			want[i] = complex(rng.NormFloat64(), rng.NormFloat64())
		}
		copy(got, want)
		cr, ci := real(c), imag(c)
		for b, y := range iv { // the loop, as spread runs it for other widths
			for a, k := range wu {
				want[y*nu+iu[a]] += complex(cr*wv[b]*k, ci*wv[b]*k)
			}
		}
		spread(got, nu, c, wu, wv, iu, iv)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("cell %d: unrolled %v, loop %v", i, got[i], want[i])
			}
		}
	}
}
