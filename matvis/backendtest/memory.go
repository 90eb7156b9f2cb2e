package backendtest

import (
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
)

// MemoryBudget checks Options.MaxMemory and MemoryBuffer: a budget of
// half what one chunk needs gives a plan of several chunks, a smaller
// usable fraction of it no fewer, and both the twin's visibilities and
// consistent per-chunk stats.
func MemoryBudget(t *testing.T, be matvis.Backend) {
	rng := NewRNG(t, 9)
	c := Random(t, rng, Shape{NAnt: 6, NSrc: 3000, NFreq: 1, NTime: 2}, SkyPrecomputed, BeamsGridded, matvis.Options{Polarized: true})
	oneChunk := NewSim(t, c).PlanMemory(1 << 40)
	if oneChunk.NChunks != 1 {
		t.Fatalf("a 1 TiB budget gives %d chunks", oneChunk.NChunks)
	}
	c.Options.MaxMemory = oneChunk.Total / 2
	prev := 0
	for _, buffer := range []float64{0.9, 0.5} {
		c.Options.MemoryBuffer = buffer
		sim := NewSim(t, c)
		res := MustRun(t, be, sim)
		checkResultShape(t, sim, res)
		checkStats(t, be, sim, res)
		if res.Plan.NChunks < 2 || res.Plan.NChunks < prev {
			t.Errorf("max memory %d B (one chunk needs %d B), memory buffer %g: %d chunks (%d with more of the budget)",
				c.Options.MaxMemory, oneChunk.Total, buffer, res.Plan.NChunks, prev)
		}
		prev = res.Plan.NChunks
		t.Logf("%s: max memory %d B, memory buffer %g: %d chunks", be.Name(), c.Options.MaxMemory, buffer, res.Plan.NChunks)
		checkTwin(t, be, sim, res)
	}
}
