package matvis

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// pairSim is a simulation of the given antennas (positions 10·a metres
// east and a metres north, so that each antenna is recognisable by its
// position), beams, beam_idx and antpairs, over nsrc sources.
func pairSim(t testing.TB, nant int, beams []beam.Beam, beamIdx []int, pairs [][2]int, nsrc int, o Options) *Simulation {
	t.Helper()
	c := Config{Freqs: []float64{110e6, 150e6}, Beams: beams, BeamIdx: beamIdx, Options: o}
	c.Options.AntPairs = pairs
	c.Antennas = make([][3]float64, nant)
	for a := range nant {
		c.Antennas[a] = [3]float64{10 * float64(a), float64(a), 0}
	}
	c.RA, c.Dec = make([]float64, nsrc), make([]float64, nsrc)
	c.Flux = make([]float64, nsrc*len(c.Freqs))
	topo := make([]float64, 3*nsrc)
	for s := range nsrc {
		c.Flux[s*2], c.Flux[s*2+1] = 1, 2
		za := 1.5 * float64(s) / float64(nsrc)
		topo[s], topo[2*nsrc+s] = math.Sin(za), math.Cos(za)
	}
	crd, err := NewPrecomputed(1, nsrc, topo)
	if err != nil {
		t.Fatal(err)
	}
	c.Coords = crd
	sim, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	return sim
}

// TestOverPairAntennas checks the reduced simulation's antennas, beams,
// beam map and pairs against what each case's pairs use, worked out by
// hand.
func TestOverPairAntennas(t *testing.T) {
	gauss := func(s float64) beam.Beam { return beam.Gaussian{SigmaRad: s} }
	grid, err := beam.NewGriddedFromAnalytic(beam.Airy{DiameterM: 14}, []float64{100e6, 125e6, 150e6, 200e6}, 36, 19)
	if err != nil {
		t.Fatal(err)
	}
	b0, b1, b2 := gauss(0.3), gauss(0.4), gauss(0.5)
	cases := []struct {
		name    string
		nant    int
		beams   []beam.Beam
		beamIdx []int
		pairs   [][2]int
		reduced bool
		// The expected reduced simulation: original antennas in order,
		// beams (as indices into the original list), beam of each
		// reduced antenna, pairs in reduced indices.
		ants     []int
		beams2   []int
		beamOf   []int
		pairsOut [][2]int
	}{
		{name: "all pairs", nant: 4, beams: []beam.Beam{b0}, reduced: false},
		{name: "antpairs naming every antenna", nant: 3, beams: []beam.Beam{b0}, pairs: [][2]int{{0, 1}, {2, 2}}, reduced: false},
		{name: "one pair of a large array", nant: 50, beams: []beam.Beam{b0}, pairs: [][2]int{{31, 7}},
			reduced: true, ants: []int{7, 31}, beams2: []int{0}, beamOf: []int{0, 0}, pairsOut: [][2]int{{1, 0}}},
		{name: "auto-correlation", nant: 9, beams: []beam.Beam{b0}, pairs: [][2]int{{4, 4}},
			reduced: true, ants: []int{4}, beams2: []int{0}, beamOf: []int{0}, pairsOut: [][2]int{{0, 0}}},
		{name: "repeats, autos and both orientations", nant: 8, beams: []beam.Beam{b0}, pairs: [][2]int{{5, 2}, {2, 5}, {5, 5}, {5, 2}, {0, 2}},
			reduced: true, ants: []int{0, 2, 5}, beams2: []int{0}, beamOf: []int{0, 0, 0}, pairsOut: [][2]int{{2, 1}, {1, 2}, {2, 2}, {2, 1}, {0, 1}}},
		// One beam per antenna (beam_idx null): only the pairs' beams stay.
		{name: "a beam per antenna", nant: 3, beams: []beam.Beam{b0, b1, grid}, pairs: [][2]int{{2, 0}},
			reduced: true, ants: []int{0, 2}, beams2: []int{0, 2}, beamOf: []int{0, 1}, pairsOut: [][2]int{{1, 0}}},
		// beam_idx: antennas 1 and 6 share beam 2, antenna 3 has beam 0;
		// beam 1 is left out and beam 2 becomes 1.
		{name: "beam_idx pruned", nant: 7, beams: []beam.Beam{b0, b1, b2}, beamIdx: []int{1, 2, 1, 0, 1, 1, 2}, pairs: [][2]int{{6, 1}, {3, 6}},
			reduced: true, ants: []int{1, 3, 6}, beams2: []int{0, 2}, beamOf: []int{1, 0, 1}, pairsOut: [][2]int{{2, 0}, {1, 2}}},
		// Every beam still used: the list is kept as it is.
		{name: "beam_idx every beam used", nant: 6, beams: []beam.Beam{b0, grid}, beamIdx: []int{1, 0, 0, 1, 0, 0}, pairs: [][2]int{{3, 2}},
			reduced: true, ants: []int{2, 3}, beams2: []int{0, 1}, beamOf: []int{0, 1}, pairsOut: [][2]int{{1, 0}}},
	}
	for _, pol := range []bool{false, true} {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s polarized=%v", c.name, pol), func(t *testing.T) {
				var seen []Progress
				o := Options{Polarized: pol, Precision: 1, MinChunks: 2, Progress: func(p Progress) { seen = append(seen, p) }}
				s := pairSim(t, c.nant, c.beams, c.beamIdx, c.pairs, 30, o)
				r, ok := s.OverPairAntennas()
				if ok != c.reduced {
					t.Fatalf("reduced = %v, want %v", ok, c.reduced)
				}
				if !ok {
					if r != s {
						t.Fatal("not reduced, but a simulation other than s came back")
					}
					if n := len(s.PairAntennas()); n != c.nant {
						t.Fatalf("PairAntennas: %d antennas, want all %d", n, c.nant)
					}
					return
				}
				if got := s.PairAntennas(); !slices.Equal(got, c.ants) {
					t.Errorf("PairAntennas = %v, want %v", got, c.ants)
				}
				if r.NAnt() != len(c.ants) {
					t.Fatalf("%d antennas, want %d", r.NAnt(), len(c.ants))
				}
				for i, a := range c.ants {
					if r.Antennas[i] != s.Antennas[a] {
						t.Errorf("antenna %d at %v, want antenna %d's %v", i, r.Antennas[i], a, s.Antennas[a])
					}
				}
				if len(r.Beams) != len(c.beams2) {
					t.Fatalf("%d beams, want %d", len(r.Beams), len(c.beams2))
				}
				for i, b := range c.beams2 {
					if r.Beams[i] != c.beams[b] {
						t.Errorf("beam %d is %v, want beams[%d] = %v", i, r.Beams[i], b, c.beams[b])
					}
				}
				if !slices.Equal(r.BeamOf, c.beamOf) || !slices.Equal(r.BeamIdx, c.beamOf) {
					t.Errorf("BeamOf %v, BeamIdx %v, want %v", r.BeamOf, r.BeamIdx, c.beamOf)
				}
				// Each reduced antenna has the beam its original had.
				for i, a := range c.ants {
					if r.Beams[r.BeamOf[i]] != s.Beams[s.BeamOf[a]] {
						t.Errorf("antenna %d (was %d): beam %v, want %v", i, a, r.Beams[r.BeamOf[i]], s.Beams[s.BeamOf[a]])
					}
				}
				if !slices.Equal(r.Pairs, c.pairsOut) || !slices.Equal(r.Options.AntPairs, c.pairsOut) {
					t.Errorf("pairs %v (antpairs %v), want %v", r.Pairs, r.Options.AntPairs, c.pairsOut)
				}
				// The pairs still name the same antennas, pair for pair.
				for k, p := range r.Pairs {
					if r.Antennas[p[0]] != s.Antennas[s.Pairs[k][0]] || r.Antennas[p[1]] != s.Antennas[s.Pairs[k][1]] {
						t.Errorf("pair %d: %v, which is not %v", k, p, s.Pairs[k])
					}
				}
				if !slices.Equal(s.Pairs, c.pairs) {
					t.Errorf("s's pairs changed to %v", s.Pairs)
				}
				// Everything else is s's.
				if !slices.Equal(r.OutputShape(), s.OutputShape()) || r.Mode != s.Mode || r.NSrc() != s.NSrc() ||
					r.NFreq() != s.NFreq() || r.NTime() != s.NTime() || r.Coords != s.Coords || &r.Flux[0] != &s.Flux[0] ||
					r.Options.Precision != s.Options.Precision || r.Options.MatProd != s.Options.MatProd ||
					r.Options.MinChunks != 2 || r.SkyPolarized() != s.SkyPolarized() {
					t.Errorf("reduced simulation differs beyond antennas, beams and pairs: %+v", r.Options)
				}
				r.Options.Progress(Progress{Done: 1, Total: 2})
				if len(seen) != 1 {
					t.Error("the Progress callback is not s's")
				}
				// The memory model sees the reduced sizes.
				mc, full := r.MemoryConfig(), s.MemoryConfig()
				if mc.NAnt != len(c.ants) || mc.NBeam != len(c.beams2) || mc.NPairs != len(c.pairs) || full.NAnt != c.nant {
					t.Errorf("memory config: %d antennas, %d beams, %d pairs (full: %d antennas)", mc.NAnt, mc.NBeam, mc.NPairs, full.NAnt)
				}
				var wantPix int64
				for _, b := range c.beams2 {
					if c.beams[b] == beam.Beam(grid) {
						wantPix = 36 * 19
					}
				}
				if mc.BeamGridPixels != wantPix {
					t.Errorf("beam grid pixels %d, want %d", mc.BeamGridPixels, wantPix)
				}
				// Reducing again changes nothing.
				if r2, again := r.OverPairAntennas(); again || r2 != r {
					t.Error("a reduced simulation reduced again")
				}
			})
		}
	}
}

// TestOverPairAntennasResult: the reduced simulation's result has s's
// shape, and one made by SubsetInto writes into the whole result as s's
// block would.
func TestOverPairAntennasResult(t *testing.T) {
	for _, pol := range []bool{false, true} {
		s := pairSim(t, 40, []beam.Beam{beam.Uniform{}}, nil, [][2]int{{3, 9}, {9, 9}, {9, 3}}, 10, Options{Polarized: pol})
		whole := NewResult(s)
		sub, err := s.SubsetInto(Block{F0: 1, F1: 2, T0: 0, T1: 1}, whole)
		if err != nil {
			t.Fatal(err)
		}
		r, ok := sub.OverPairAntennas()
		if !ok || r.NAnt() != 2 {
			t.Fatalf("polarized=%v: reduced %v to %d antennas, want 2", pol, ok, r.NAnt())
		}
		res := NewResult(r)
		if !slices.Equal(res.Shape, sub.OutputShape()) || len(res.Done) != 1 {
			t.Fatalf("polarized=%v: result shape %v, %d done flags; want %v, 1", pol, res.Shape, len(res.Done), sub.OutputShape())
		}
		for k := range 3 {
			res.Set(0, 0, k, 1, 0, complex(float64(k+1), 0))
		}
		for k := range 3 {
			if got := whole.At(1, 0, k, 1, 0); got != complex(float64(k+1), 0) {
				t.Errorf("polarized=%v: pair %d of channel 1 in the whole result is %v, not what the block wrote", pol, k, got)
			}
		}
	}
}

// TestHugeArrayFewPairs: 150 000 antennas with one pair (issue 28) are a
// simulation of two antennas (one for an auto-correlation) whose memory
// plan is a few arrays over the sources, where the full array's Gram
// accumulator alone is (nfeed·150 000)² complex values (360 GB in fp64).
func TestHugeArrayFewPairs(t *testing.T) {
	const nant, nsrc = 150_000, 1000
	rng := sharedtest.RNG(t, 28)
	for _, c := range []struct {
		pol      bool
		pair     [2]int
		perAnt   bool // one beam per antenna instead of one for all
		wantAnts int
	}{
		{false, [2]int{rng.IntN(nant), rng.IntN(nant)}, false, 2},
		{true, [2]int{nant - 1, 0}, false, 2},
		{true, [2]int{77_777, 77_777}, false, 1},
		{false, [2]int{12, 149_000}, true, 2},
	} {
		if c.pair[0] == c.pair[1] && c.wantAnts == 2 {
			c.pair[1] = (c.pair[0] + 1) % nant
		}
		t.Run(fmt.Sprintf("pair %v polarized=%v beam per antenna=%v", c.pair, c.pol, c.perAnt), func(t *testing.T) {
			beams := []beam.Beam{beam.Gaussian{SigmaRad: 0.4}}
			if c.perAnt {
				beams = make([]beam.Beam, nant)
				for a := range beams {
					beams[a] = beam.Gaussian{SigmaRad: 0.2 + 0.5*float64(a)/nant}
				}
			}
			s := pairSim(t, nant, beams, nil, [][2]int{c.pair}, nsrc, Options{Polarized: c.pol, Precision: 2})
			r, ok := s.OverPairAntennas()
			if !ok || r.NAnt() != c.wantAnts || len(r.Pairs) != 1 {
				t.Fatalf("reduced %v to %d antennas, %d pairs; want %d, 1", ok, r.NAnt(), len(r.Pairs), c.wantAnts)
			}
			if r.Antennas[r.Pairs[0][0]] != s.Antennas[c.pair[0]] || r.Antennas[r.Pairs[0][1]] != s.Antennas[c.pair[1]] {
				t.Fatalf("pair %v at %v, %v; want antennas %v's", r.Pairs[0], r.Antennas[r.Pairs[0][0]], r.Antennas[r.Pairs[0][1]], c.pair)
			}
			wantBeams := 1
			if c.perAnt {
				wantBeams = c.wantAnts
			}
			if len(r.Beams) != wantBeams {
				t.Fatalf("%d beams, want %d", len(r.Beams), wantBeams)
			}
			// By hand, fp64 (8-byte reals, 16-byte complex), nf feeds =
			// axes, nb ≤ 2 beams, na ≤ 2 antennas, one chunk of nsrc
			// sources: per source flux 8, three coordinate arrays 3·24,
			// the chunk's flux 8, exp(iτ) na·16, interpolated beams
			// nb·nf²·16, Z nf²·na·16 — at most 8+72+8+32+128+128 = 376 B
			// polarized —, and the fixed antpos, eq2top and the
			// (nf·na)² Gram of at most 16 complex values.
			bound := int64(400*nsrc + 1024)
			plan := r.PlanMemory(4 << 30)
			if !plan.Fits || plan.NChunks != 1 || plan.Total > bound {
				t.Errorf("reduced plan: fits %v, %d chunks, %d B; want one chunk of at most %d B", plan.Fits, plan.NChunks, plan.Total, bound)
			}
			nf := int64(s.NFeed())
			if full := s.PlanMemory(4 << 30); full.Fits || full.Term(TermVis) < (nf*nant)*(nf*nant)*16 {
				t.Errorf("full plan: fits %v, vis %d B; want a Gram of (%d·%d)² complex128 that does not fit", full.Fits, full.Term(TermVis), nf, nant)
			}
			// Host: the output (2 channels × 1 time × 1 pair × nf²
			// complex128), the pair list, an accumulator of (nf·na)²
			// values and the per-chunk arrays: far under 1 MB.
			var host int64
			for _, term := range r.HostBytes() {
				host += term.Bytes
			}
			if host > 1<<20 {
				t.Errorf("reduced host memory %d B: %v", host, r.HostBytes())
			}
			if err := r.CheckHostMemory(); err != nil {
				t.Error(err)
			}
		})
	}
}
