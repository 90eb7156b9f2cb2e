package gpu

import (
	"testing"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/matvis"
)

// TestDevMemPeak: the accounting keeps the peak of the live allocations
// with its breakdown by term at that moment, not the sum of everything
// ever allocated.
func TestDevMemPeak(t *testing.T) {
	m := devMem{live: map[cuda.DevicePtr]allocRec{}, liveTerm: map[string]int64{}}
	steps := []struct {
		track bool
		p     cuda.DevicePtr
		term  string
		n     int64
	}{
		{true, 1, "a", 10}, {true, 2, "b", 20}, {false, 1, "", 0}, {true, 3, "a", 5}, {true, 4, "c", 4}, {false, 2, "", 0}, {true, 5, "b", 1},
	}
	for _, s := range steps {
		if s.track {
			m.track(s.p, s.term, s.n)
		} else {
			m.untrack(s.p)
		}
	}
	if m.mem.AllocatedPeakBytes != 30 {
		t.Errorf("peak %d, want 30", m.mem.AllocatedPeakBytes)
	}
	want := []matvis.MemoryTerm{{Name: "a", Bytes: 10}, {Name: "b", Bytes: 20}}
	if len(m.mem.AllocatedTerms) != len(want) {
		t.Fatalf("terms at the peak %v, want %v", m.mem.AllocatedTerms, want)
	}
	for i := range want {
		if m.mem.AllocatedTerms[i] != want[i] {
			t.Errorf("terms at the peak %v, want %v", m.mem.AllocatedTerms, want)
		}
	}
	if m.liveBytes != 10 {
		t.Errorf("live %d bytes, want 10", m.liveBytes)
	}
}
