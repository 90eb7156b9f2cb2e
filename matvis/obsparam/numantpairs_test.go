package obsparam

import (
	"fmt"
	"testing"
)

// TestNumAntPairsCounts: the counting pass gives, for N antennas, the
// N(N+1)/2 candidate pairs (autos included) and of them the number each
// selection keeps, worked by hand — N(N−1)/2 without autos, N autos
// alone, k(k+1)/2 for k antennas listed, the listed bls — and AntPairs,
// its twin, returns that many.
func TestNumAntPairsCounts(t *testing.T) {
	const n = 7
	var ants []Antenna
	for i := range n {
		ants = append(ants, Antenna{Name: fmt.Sprintf("A%d", i), Number: 10 + i})
	}
	for _, tc := range []struct {
		name       string
		sel        Select
		cand, kept int64
	}{
		{"all", Select{}, n * (n + 1) / 2, n * (n + 1) / 2},
		{"no autos", Select{NoAutos: true}, n * (n + 1) / 2, n * (n - 1) / 2},
		{"cross", Select{AntStr: "cross"}, n * (n + 1) / 2, n * (n - 1) / 2},
		{"auto", Select{AntStr: "auto"}, n * (n + 1) / 2, n},
		{"three antennas", Select{AntennaNums: []int{10, 12, 16}}, n * (n + 1) / 2, 6},
		{"three antennas, no autos", Select{AntennaNums: []int{10, 12, 16}, NoAutos: true}, n * (n + 1) / 2, 3},
		{"bls", Select{Bls: [][2]int{{10, 11}, {12, 12}, {13, 15}}}, 3, 3},
		{"bls, no autos", Select{Bls: [][2]int{{10, 11}, {12, 12}, {13, 15}}, NoAutos: true}, 3, 2},
	} {
		c := &Config{Select: tc.sel}
		c.Telescope.Antennas = ants
		cand, kept := c.NumAntPairs()
		if cand != tc.cand || kept != tc.kept {
			t.Errorf("%s: NumAntPairs = %d, %d; want %d, %d", tc.name, cand, kept, tc.cand, tc.kept)
		}
		if got := len(c.AntPairs()); int64(got) != tc.kept {
			t.Errorf("%s: AntPairs gives %d pairs, want %d", tc.name, got, tc.kept)
		}
	}
}
