package cpu

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// sortByColumnTwin is sortByColumn as a comparison sort of the keys
// (column + 1)<<32 | position: the order the counting sort must give.
func sortByColumnTwin(grid beam.PlaneGrid, vis []int, az, za []float64) ([]int, []float64, []float64) {
	keys := make([]uint64, len(vis))
	for s := range vis {
		col := grid.Cell(az[s], za[s])
		if col >= 0 {
			col %= grid.NAz
		}
		keys[s] = uint64(col+1)<<32 | uint64(s)
	}
	slices.Sort(keys)
	sv, sa, sz := make([]int, len(vis)), make([]float64, len(vis)), make([]float64, len(vis))
	for i, key := range keys {
		s := int(key & (1<<32 - 1))
		sv[i], sa[i], sz[i] = vis[s], az[s], za[s]
	}
	return sv, sa, sz
}

// TestSortByColumnMatchesTwin: the counting sort puts fresh random
// directions (some below the horizon, outside the grid) in the twin's
// order, over several blocks and workers.
func TestSortByColumnMatchesTwin(t *testing.T) {
	rng := sharedtest.RNG(t, 1)
	g, err := beam.NewGriddedFromAnalytic(beam.Airy{DiameterM: 14}, []float64{150e6}, 72, 37)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := g.At(150e6, beam.Mode{Polarized: true})
	if err != nil {
		t.Fatal(err)
	}
	grid := rb.(*beam.GriddedResponse).Grid()
	for _, k := range []int{2, 1000, 3<<16 + 5} {
		vis, az, za := make([]int, k), make([]float64, k), make([]float64, k)
		for s := range k {
			vis[s] = 3*s + rng.IntN(3)
			az[s], za[s] = 2*math.Pi*rng.Float64(), 0.6*math.Pi*rng.Float64()
		}
		r := &run{ctx: context.Background(), b: &Backend{workers: 3}, used: []bool{true}}
		gv, ga, gz := r.sortByColumn(vis, az, za, []beam.Response{rb})
		wv, wa, wz := sortByColumnTwin(grid, vis, az, za)
		if !slices.Equal(gv, wv) || !slices.Equal(ga, wa) || !slices.Equal(gz, wz) {
			t.Fatalf("k=%d: the counting sort's order differs from the comparison sort's", k)
		}
	}
}
