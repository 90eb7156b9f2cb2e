package backendtest

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// optionCase is one run of PlainLoop: a random simulation of a shape, sky
// and beam set, with options.
type optionCase struct {
	name  string
	sh    Shape
	sky   Sky
	beams BeamSet
	o     matvis.Options
	// pairs draws Options.AntPairs: random ones, a reversed pair and an
	// auto-correlation.
	pairs bool
	// spread scales the antenna positions (Random's 100 m square) when
	// set: on 20 km baselines the float32 rounding of the ENU vectors in
	// precision 1 turns phases by about 1e-3 rad, far over the bars, so
	// that a backend that does not round them as matvis does fails.
	spread float64
}

func optionCases() []optionCase {
	// 1400 sources: over 512 above the horizon, so that the CPU
	// backend splits its per-source stages over at least two workers.
	small := Shape{NAnt: 6, NSrc: 1400, NFreq: 2, NTime: 2}
	return []optionCase{
		{name: "unpolarized fp64", sh: small, o: matvis.Options{Precision: 2}},
		{name: "unpolarized fp32", sh: small, o: matvis.Options{Precision: 1}},
		{name: "polarized fp64", sh: small, o: matvis.Options{Precision: 2, Polarized: true}},
		{name: "polarized fp32", sh: small, o: matvis.Options{Precision: 1, Polarized: true}},
		{name: "feed y", sh: small, o: matvis.Options{Feed: beam.FeedY}},
		{name: "feed y fp32", sh: small, o: matvis.Options{Precision: 1, Feed: beam.FeedY}},
		{name: "gridded polarized fp64", sh: small, beams: BeamsGridded, o: matvis.Options{Precision: 2, Polarized: true}},
		{name: "gridded polarized fp32", sh: small, beams: BeamsGridded, o: matvis.Options{Precision: 1, Polarized: true}},
		{name: "gridded unpolarized fp32 3 chunks", sh: small, beams: BeamsGridded, o: matvis.Options{Precision: 1, MinChunks: 3}},
		{name: "rotation sky polarized fp64", sh: small, sky: SkyRotation, o: matvis.Options{Precision: 2, Polarized: true}},
		{name: "rotation sky gridded fp32 2 chunks", sh: small, sky: SkyRotation, beams: BeamsGridded, o: matvis.Options{Precision: 1, Polarized: true, MinChunks: 2}},
		{name: "4 chunks", sh: small, o: matvis.Options{MinChunks: 4}},
		{name: "one source a chunk", sh: Shape{NAnt: 4, NSrc: 60, NFreq: 1, NTime: 2}, o: matvis.Options{Polarized: true, MinChunks: 60}},
		{name: "source buffer 0.5", sh: small, o: matvis.Options{MinChunks: 2, SourceBuffer: 0.5}},
		{name: "antpairs herk", sh: small, pairs: true, o: matvis.Options{Polarized: true, MatProd: matvis.MatProdHerk}},
		{name: "antpairs pairs", sh: small, pairs: true, o: matvis.Options{Polarized: true, MatProd: matvis.MatProdPairs}},
		{name: "antpairs pairs fp32 chunked", sh: small, pairs: true, beams: BeamsGridded, o: matvis.Options{Precision: 1, MatProd: matvis.MatProdPairs, MinChunks: 3}},
		{name: "all pairs pairs", sh: small, o: matvis.Options{MatProd: matvis.MatProdPairs}},
		{name: "20 km fp32", sh: small, spread: 200, o: matvis.Options{Precision: 1}},
		{name: "20 km polarized fp32", sh: small, spread: 200, sky: SkyRotation, o: matvis.Options{Precision: 1, Polarized: true}},
		{name: "20 km fp64", sh: small, spread: 200, o: matvis.Options{Precision: 2}},
	}
}

// PlainLoop runs fresh random simulations, one per option case, and
// compares every visibility with the plain-loop twin.
func PlainLoop(t *testing.T, be matvis.Backend) {
	rng := NewRNG(t, 1)
	for _, oc := range optionCases() {
		t.Run(oc.name, func(t *testing.T) {
			o := oc.o
			if oc.pairs {
				o.AntPairs = randomPairs(rng, oc.sh.NAnt)
			}
			c := Random(t, rng, oc.sh, oc.sky, oc.beams, o)
			if oc.spread > 0 {
				for a := range c.Antennas {
					for k := range c.Antennas[a] {
						c.Antennas[a][k] *= oc.spread
					}
				}
			}
			sim := NewSim(t, c)
			res := MustRun(t, be, sim)
			checkResultShape(t, sim, res)
			if got, want := res.Stats.MatProdImpl.MatProd, sim.Options.MatProd; got != want {
				t.Errorf("Stats.MatProdImpl %q names the matrix product %q, not %q that was asked for", res.Stats.MatProdImpl, got, want)
			}
			checkTwin(t, be, sim, res)
		})
	}
}

// randomPairs draws antenna pairs with a repeat, a reversed pair and an
// auto-correlation among them.
func randomPairs(rng *rand.Rand, nant int) [][2]int {
	var p [][2]int
	for range 7 {
		p = append(p, [2]int{rng.IntN(nant), rng.IntN(nant)})
	}
	return append(p, [2]int{1, 1}, [2]int{2, 0}, [2]int{0, 2}, p[0])
}

// checkResultShape checks what every successful result must hold.
func checkResultShape(t *testing.T, sim *matvis.Simulation, res *matvis.Result) {
	t.Helper()
	if !res.Complete() {
		t.Errorf("a run without error left integrations not done: %v", res.Done)
	}
	if len(res.Done) != sim.NFreq()*sim.NTime() {
		t.Errorf("len(Done) = %d, want nfreq·ntimes = %d", len(res.Done), sim.NFreq()*sim.NTime())
	}
	if res.Precision != sim.Options.Precision {
		t.Errorf("result precision %d, want %d", res.Precision, sim.Options.Precision)
	}
	want := sim.OutputShape()
	if len(res.Shape) != len(want) {
		t.Fatalf("shape %v, want %v", res.Shape, want)
	}
	for i := range want {
		if res.Shape[i] != want[i] {
			t.Fatalf("shape %v, want %v", res.Shape, want)
		}
	}
}

// NewSim is matvis.New(c), failing t on an error.
func NewSim(t testing.TB, c matvis.Config) *matvis.Simulation {
	t.Helper()
	sim, err := matvis.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return sim
}

// MustRun runs sim on be, failing t on an error.
func MustRun(t testing.TB, be matvis.Backend, sim *matvis.Simulation) *matvis.Result {
	t.Helper()
	res, err := be.Run(context.Background(), sim)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
