package imaging

import (
	"math"
	"strings"
	"testing"
)

// TestBadInput: every refusal names the field and the value.
func TestBadInput(t *testing.T) {
	good := func() *Vis {
		return &Vis{UVW: [][3]float64{{10, 5, 1}, {-3, 8, 0}}, Freqs: []float64{150e6}, Data: []complex128{1, 2}}
	}
	g := Geometry{N: 32, Cell: 0.01}
	cases := []struct {
		name string
		edit func(v *Vis, g *Geometry, w *Weighting)
		want string
	}{
		{"no rows", func(v *Vis, _ *Geometry, _ *Weighting) { v.UVW = nil }, "no samples (0 rows, 1 channels)"},
		{"short data", func(v *Vis, _ *Geometry, _ *Weighting) { v.Data = v.Data[:1] }, "1 visibilities for 2 rows × 1 channels"},
		{"short weights", func(v *Vis, _ *Geometry, _ *Weighting) { v.Weight = []float64{1} }, "1 weights for 2 rows × 1 channels"},
		{"negative weight", func(v *Vis, _ *Geometry, _ *Weighting) { v.Weight = []float64{1, -1} }, "sample 1's weight -1"},
		{"zero frequency", func(v *Vis, _ *Geometry, _ *Weighting) { v.Freqs[0] = 0 }, "channel 0's frequency 0 Hz"},
		{"NaN uvw", func(v *Vis, _ *Geometry, _ *Weighting) { v.UVW[1][2] = math.NaN() }, "row 1's uvw"},
		{"NaN data", func(v *Vis, _ *Geometry, _ *Weighting) { v.Data[1] = complex(math.Inf(1), 0) }, "flag it (weight 0)"},
		{"all flagged", func(v *Vis, _ *Geometry, _ *Weighting) { v.Weight = []float64{0, 0} }, "every sample has weight 0"},
		{"odd size", func(_ *Vis, g *Geometry, _ *Weighting) { g.N = 33 }, "image size 33: must be even"},
		{"huge cell", func(_ *Vis, g *Geometry, _ *Weighting) { g.Cell = 1 }, "pixel size 1 rad"},
		{"NaN cell", func(_ *Vis, g *Geometry, _ *Weighting) { g.Cell = math.NaN() }, "pixel size NaN rad"},
		{"bad padding", func(_ *Vis, _ *Geometry, w *Weighting) { w.Padding = -2 }, "padding -2"},
	}
	for _, c := range cases {
		v, gg, w := good(), g, Weighting{Mode: Uniform}
		c.edit(v, &gg, &w)
		_, err := Dirty(v, gg, w, Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// TestParseWeighting: the spellings accepted and refused.
func TestParseWeighting(t *testing.T) {
	for s, want := range map[string]Weighting{"natural": {Mode: Natural}, "uniform": {Mode: Uniform}, "briggs:0.5": {Mode: Briggs, Robust: 0.5}, "briggs:-2": {Mode: Briggs, Robust: -2}} {
		got, err := ParseWeighting(s)
		if err != nil || got != want || got.String() != s {
			t.Errorf("ParseWeighting(%q) = %v (%q), %v; want %v", s, got, got.String(), err, want)
		}
	}
	for _, s := range []string{"", "Natural", "briggs", "briggs:", "briggs:NaN", "briggs:20", "robust:0"} {
		if _, err := ParseWeighting(s); err == nil {
			t.Errorf("ParseWeighting(%q) accepted", s)
		}
	}
}
