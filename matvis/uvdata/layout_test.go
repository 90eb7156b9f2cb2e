package uvdata

import (
	"testing"

	"github.com/gomatvis/gomatvis/matvis/astro"
)

// TestLayoutHeaderRefusesInconsistent: a layout read from a part file is
// untrusted; inconsistent lengths are errors, not panics.
func TestLayoutHeaderRefusesInconsistent(t *testing.T) {
	good := func() *Layout {
		return &Layout{TelescopeName: "t", AntNames: []string{"A0", "A1"}, AntNums: []int{0, 1},
			ENU: [][3]float64{{0, 0, 0}, {14, 0, 0}}, Baselines: [][2]int{{0, 0}, {1, 0}, {1, 1}},
			Pols: []int{-5}, Freqs: []float64{1e8, 1.01e8}, Times: []float64{2459845, 2459845.001}, Precision: 2}
	}
	if _, err := good().Header(); err != nil {
		t.Fatalf("good layout: %v", err)
	}
	for name, edit := range map[string]func(l *Layout){
		"integration times": func(l *Layout) { l.IntegrationTime = []float64{10} },
		"channel widths":    func(l *Layout) { l.ChannelWidth = []float64{1, 2, 3} },
		"EOP":               func(l *Layout) { l.EOP = make([]astro.EOP, 3) },
		"baseline":          func(l *Layout) { l.Baselines[1][0] = 7 },
		"positions":         func(l *Layout) { l.ENU = l.ENU[:1] },
	} {
		l := good()
		edit(l)
		if _, err := l.Header(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
