package matvis

import "testing"

// TestTopChannel: the index of the highest frequency, the first of equal
// ones, 0 without channels.
func TestTopChannel(t *testing.T) {
	for _, c := range []struct {
		freqs []float64
		want  int
	}{
		{nil, 0},
		{[]float64{1e8}, 0},
		{[]float64{1e8, 2e8, 1.5e8}, 1},
		{[]float64{3e8, 2e8, 1e8}, 0},
		{[]float64{1e8, 2e8, 2e8}, 1},
		{[]float64{1e8, 1.1e8, 1.2e8, 1.3e8}, 3},
	} {
		s := &Simulation{}
		s.Freqs = c.freqs
		if got := s.TopChannel(); got != c.want {
			t.Errorf("%v: channel %d, want %d", c.freqs, got, c.want)
		}
	}
}
