package nufftgpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomatvis/gomatvis/matvis/nufft"
)

// TestSplitCoords: every coordinate is its first index minus its offset,
// and the offset lies in [−w/2, −w/2 + 1), so that the w grid points
// first … first + w − 1 are exactly those within half a width of it
// (the kernel's support); runs without a device.
func TestSplitCoords(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, w := range []int{2, 4, 7, 13} {
		const n = 1000
		var x [3][]float64
		for d := range 2 {
			for range n {
				x[d] = append(x[d], 5000*rng.Float64()-100)
			}
			x[d] = append(x[d][:n-2], float64(w)/2+3, 17) // on the grid: index and half widths exact
		}
		first, off := splitCoords(x, 2, n, w)
		for d := range 2 {
			for i, v := range x[d] {
				f, o := float64(first[d*n+i]), off[d*n+i]
				if f-o != v && math.Abs(f-o-v) > 1e-12*math.Abs(v) {
					t.Fatalf("w=%d axis %d item %d: first %g − off %g ≠ %g", w, d, i, f, o, v)
				}
				if h := float64(w) / 2; !(o >= -h && o < -h+1) {
					t.Fatalf("w=%d axis %d item %d (x = %g): offset %g outside [%g, %g)", w, d, i, v, o, -h, -h+1)
				}
			}
		}
	}
}

// TestNewRefusesBadArguments: a precision or vector count out of range
// is refused before any device work (no device needed).
func TestNewRefusesBadArguments(t *testing.T) {
	pl, err := nufft.NewPlan([][]float64{{-1, 1}}, [][]float64{{-3, 3}}, nufft.Options{Eps: 1e-6, Sign: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		prec Precision
		nv   int
	}{{0, 1}, {Precision(3), 1}, {Single, 0}, {Double, maxVectors + 1}} {
		if tr, err := NewBatch(nil, pl, tc.prec, tc.nv, 0); err == nil {
			t.Errorf("NewBatch(%v, %d vectors) = %v, want an error", tc.prec, tc.nv, tr)
		} else {
			t.Logf("%v, %d vectors: %v", tc.prec, tc.nv, err)
		}
	}
}
