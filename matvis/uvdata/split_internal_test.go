package uvdata

import (
	"math/cmplx"
	"slices"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/phase"
)

// TestFillSplit: rows laid out on several goroutines are the rows of a
// plain loop over (baseline, channel, pol) reading the result by its
// shape, for polarized and unpolarized results of both precisions and
// any split — fresh random results, the rows poisoned before each run.
func TestFillSplit(t *testing.T) {
	rng := sharedtest.RNG(t, 1)
	const nf, nt, nbl = 5, 3, 300 // 300 baselines: several tiles of 64
	for _, c := range []struct {
		shape     []int
		precision int
		pols      [][2]int
	}{
		{[]int{nf, nt, nbl}, 2, [][2]int{{0, 0}}},
		{[]int{nf, nt, nbl, 2, 2}, 2, [][2]int{{0, 0}, {1, 1}, {0, 1}, {1, 0}}},
		{[]int{nf, nt, nbl, 2, 2}, 1, [][2]int{{1, 1}, {0, 0}}},
	} {
		res := &matvis.Result{Shape: c.shape, Precision: c.precision}
		inner := 1
		if len(c.shape) == 5 {
			inner = 4
		}
		n := nf * nt * nbl * inner
		if c.precision == 1 {
			res.Vis64 = make([]complex64, n)
			for i := range n {
				res.Vis64[i] = complex(rng.Float32(), rng.Float32())
			}
		} else {
			res.Vis128 = make([]complex128, n)
			for i := range n {
				res.Vis128[i] = complex(rng.Float64(), rng.Float64())
			}
		}
		at := func(f, ti, k int, p [2]int) complex128 {
			i := ((f*nt+ti)*nbl + k) * inner
			if inner == 4 {
				i += p[0]*2 + p[1]
			}
			if c.precision == 1 {
				return complex128(res.Vis64[i])
			}
			return res.Vis128[i]
		}
		ti, k0, k1, f0, f1 := 1, 7, 290, 1, 4 // a piece of baselines and channels
		np := len(c.pols)
		want := make([]complex128, 0, (k1-k0)*(f1-f0)*np)
		for k := k0; k < k1; k++ {
			for f := f0; f < f1; f++ {
				for _, p := range c.pols {
					want = append(want, at(f, ti, k, p))
				}
			}
		}
		for _, workers := range []int{1, 2, 3, 5, 100} {
			buf := make([]complex128, len(want))
			for i := range buf {
				buf[i] = cmplx.NaN() // poison
			}
			fillRows(buf, res, ti, k0, k1, f0, f1, c.pols, workers)
			if i := slices.IndexFunc(buf, func(v complex128) bool { return cmplx.IsNaN(v) }); i >= 0 || !slices.Equal(buf, want) {
				t.Fatalf("shape %v, precision %d, %d workers: rows differ from the plain loop's (unwritten at %d)", c.shape, c.precision, workers, i)
			}
		}
	}
}

// TestPhaseSplit: rows phased on several goroutines are the rows phased
// one by one in order, bit for bit, autos' parallel hands made real —
// fresh random rows.
func TestPhaseSplit(t *testing.T) {
	rng := sharedtest.RNG(t, 2)
	const nbl, ntime, nf, np = 10, 4, 6, 4
	p := &phasedRows{w: make([]float64, nbl*ntime), freqs: make([]float64, nf), np: np, nbl: nbl, auto: make([]bool, nbl), parallel: []int{0, 1}}
	for i := range p.w {
		p.w[i] = 50 * (rng.Float64() - 0.5)
	}
	for f := range p.freqs {
		p.freqs[f] = 100e6 + 1e6*float64(f)
	}
	p.auto[0], p.auto[4] = true, true
	bltStart, f0, f1 := 3, 1, 5
	rows := nbl*ntime - bltStart
	per := (f1 - f0) * np
	vis := make([]complex128, rows*per)
	for i := range vis {
		vis[i] = complex(rng.NormFloat64(), rng.NormFloat64())
	}
	want := slices.Clone(vis)
	for r := range rows { // the twin: one row at a time, by the formula
		blt := bltStart + r
		for c := f0; c < f1; c++ {
			ph := phase.WTerm(p.w[blt], p.freqs[c])
			for q := range np {
				v := want[r*per+(c-f0)*np+q] * ph
				if p.auto[blt%nbl] && (q == 0 || q == 1) {
					v = complex(real(v), 0)
				}
				want[r*per+(c-f0)*np+q] = v
			}
		}
	}
	for _, workers := range []int{1, 2, 3, 7, rows + 3} {
		got := slices.Clone(vis)
		p.applyOn(bltStart, f0, f1, got, workers)
		if !slices.Equal(got, want) {
			t.Fatalf("%d workers: phased rows differ from the row-by-row twin", workers)
		}
	}
}
