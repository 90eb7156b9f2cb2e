package gpu

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
)

// TestChunkSampleCounts: however an integration's visible sources are cut
// into chunks, its samples' NSources add up to the sky and their NVisible
// to the visible sources (the meaning matvis.ChunkSample documents and
// the CPU follows).
func TestChunkSampleCounts(t *testing.T) {
	for _, c := range []struct{ nsrc, nvis, nchunk, bufSrc int }{
		{1000, 480, 1, 1000}, {1000, 480, 3, 400}, {1000, 0, 2, 500}, {7, 7, 7, 1}, {5000, 2501, 4, 300},
	} {
		r := &run{runShape: runShape{nsrc: c.nsrc, nchunk: c.nchunk, bufSrc: c.bufSrc}}
		size, count := r.chunkPlan(c.nvis)
		var samples []matvis.ChunkSample
		for ci := range count {
			samples = append(samples, r.chunkSample(0, 0, ci, min(size, c.nvis-ci*size), c.nvis, matvis.StageTimes{}))
		}
		if count == 0 {
			samples = append(samples, r.chunkSample(0, 0, 0, 0, 0, matvis.StageTimes{}))
		}
		var src, vis int
		for _, s := range samples {
			if s.NVisible > s.NSources {
				t.Errorf("%+v: sample %+v has more visible than sources", c, s)
			}
			src += s.NSources
			vis += s.NVisible
		}
		if src != c.nsrc || vis != c.nvis {
			t.Errorf("%+v: samples add up to %d sources, %d visible", c, src, vis)
		}
	}
}

// TestMatProdImplNamesMethod: the Gram-product description names the
// method asked for, so that pairs, done on the device as the full product
// and an extraction, is not silently taken for herk.
// With the tensor-core product restricted to some tiles, the description
// says how many.
func TestMatProdImplNamesMethod(t *testing.T) {
	for _, mp := range []matvis.MatProd{matvis.MatProdHerk, matvis.MatProdPairs} {
		for _, tiles := range [][2]int{{0, 0}, {3, 3}, {2, 21}} {
			sim := &matvis.Simulation{Pairs: [][2]int{{0, 1}, {1, 1}}}
			sim.Options.MatProd = mp
			r := &run{sim: sim}
			r.tilesComputed, r.tilesTotal = tiles[0], tiles[1]
			g := matvis.GramImpl{Strategy: "cuBLAS cherk", Why: "forced"}
			r.describeMatProd(&g)
			if g.MatProd != mp || (mp == matvis.MatProdPairs) != (g.ExtractedPairs == len(sim.Pairs)) {
				t.Errorf("%s: %+v", mp, g)
			}
			s := g.String()
			if !strings.HasPrefix(s, string(mp)) || !strings.Contains(s, "cuBLAS cherk (forced)") {
				t.Errorf("%s: %q", mp, s)
			}
			restricted := tiles[0] < tiles[1]
			if want := fmt.Sprintf("%d of the Gram product's %d tiles", tiles[0], tiles[1]); strings.Contains(s, want) != restricted {
				t.Errorf("%s, tiles %v: %q (restricted %v)", mp, tiles, s, restricted)
			}
		}
	}
}
