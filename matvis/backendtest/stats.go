package backendtest

import (
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
)

// Stats checks the meaning of a run's Stats on chunked runs of both
// coordinate providers: one chunk sample list per integration in run
// order, chunk indices from 0 within the plan, source counts that add up
// to the sky (NSources) and to the sources above the horizon (NVisible),
// no negative stage time, one wall time per integration.
func Stats(t *testing.T, be matvis.Backend) {
	rng := NewRNG(t, 2)
	for _, sky := range []Sky{SkyPrecomputed, SkyRotation} {
		for _, chunks := range []int{1, 3} {
			sim := NewSim(t, Random(t, rng, Shape{NAnt: 5, NSrc: 900, NFreq: 2, NTime: 3}, sky, BeamsAnalytic, matvis.Options{MinChunks: chunks}))
			res := MustRun(t, be, sim)
			checkStats(t, be, sim, res)
		}
	}
}

func checkStats(t *testing.T, be matvis.Backend, sim *matvis.Simulation, res *matvis.Result) {
	t.Helper()
	st := &res.Stats
	nint := sim.NFreq() * sim.NTime()
	if st.Backend != be.Name() {
		t.Errorf("Stats.Backend %q, backend %q", st.Backend, be.Name())
	}
	if st.MatProdImpl.IsZero() {
		t.Error("Stats.MatProdImpl is empty")
	}
	if len(st.Integrations) != nint {
		t.Errorf("%d integration times for %d integrations", len(st.Integrations), nint)
	}
	if st.Setup < 0 || st.Total <= 0 {
		t.Errorf("setup %v, total %v", st.Setup, st.Total)
	}
	if res.Plan.NChunks < sim.Options.MinChunks {
		t.Errorf("plan of %d chunks, MinChunks %d", res.Plan.NChunks, sim.Options.MinChunks)
	}
	type key struct{ f, t int }
	type sums struct{ samples, src, vis int }
	per := map[key]*sums{}
	var order []key
	for i, c := range st.Chunks {
		k := key{c.Freq, c.Time}
		if c.Freq < 0 || c.Freq >= sim.NFreq() || c.Time < 0 || c.Time >= sim.NTime() {
			t.Fatalf("chunk sample %d of integration (%d, %d): out of range", i, c.Freq, c.Time)
		}
		s := per[k]
		if s == nil {
			if len(order) > 0 && per[order[len(order)-1]].samples == 0 {
				t.Fatalf("integration %v has no sample", order[len(order)-1])
			}
			s = &sums{}
			per[k] = s
			order = append(order, k)
		} else if order[len(order)-1] != k {
			t.Fatalf("chunk sample %d of integration %v after another integration's: not in run order", i, k)
		}
		if c.Chunk != s.samples {
			t.Errorf("integration %v: sample %d has chunk index %d", k, s.samples, c.Chunk)
		}
		if c.NVisible < 0 || c.NVisible > c.NSources {
			t.Errorf("integration %v chunk %d: %d visible of %d sources", k, c.Chunk, c.NVisible, c.NSources)
		}
		for g, d := range c.Stages {
			if d < 0 {
				t.Errorf("integration %v chunk %d: stage %v took %v", k, c.Chunk, matvis.Stage(g), d)
			}
		}
		s.samples++
		s.src += c.NSources
		s.vis += c.NVisible
	}
	if len(per) != nint {
		t.Fatalf("chunk samples for %d integrations, want %d", len(per), nint)
	}
	for k, s := range per {
		if s.samples > max(res.Plan.NChunks, 1) {
			t.Errorf("integration %v: %d chunk samples, the plan has %d chunks", k, s.samples, res.Plan.NChunks)
		}
		if s.src != sim.NSrc() {
			t.Errorf("integration %v: NSources add up to %d, the sky has %d", k, s.src, sim.NSrc())
		}
		if want := Visible(t, sim, k.t); s.vis != want {
			t.Errorf("integration %v: NVisible add up to %d, %d sources are above the horizon", k, s.vis, want)
		}
	}
}
