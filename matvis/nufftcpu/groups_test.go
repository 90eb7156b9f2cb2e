package nufftcpu

import (
	"context"
	"math"
	"math/cmplx"
	"strings"
	"sync"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/cpu"
)

// forcedAndDirect runs sim as transforms (forced, at eps, into a
// NaN-poisoned result) and on the direct backend.
func forcedAndDirect(t *testing.T, eps float64, sim *matvis.Simulation, direct matvis.Backend) (got, want *matvis.Result) {
	t.Helper()
	be, err := New(eps, 2)
	if err != nil {
		t.Fatal(err)
	}
	be.Force = true
	return poisoned(t, be, sim), backendtest.MustRun(t, direct, sim)
}

// checkAgainstDirect fails t when the transforms' visibilities got are
// further from the direct backend's want than 10 ε of the peak (1e-10 at
// ε = 1e-12, the bar of issue 29).
func checkAgainstDirect(t *testing.T, got, want *matvis.Result, eps float64) {
	t.Helper()
	bar := 10 * eps
	if eps == 1e-12 {
		bar = 1e-10
	}
	e := backendtest.RelErr(backendtest.Vis(got), backendtest.Vis(want))
	t.Logf("%s: max|dV|/max|V| = %.3g (bar %g)", got.Stats.MatProdImpl.Strategy, e, bar)
	if !(e <= bar) {
		t.Errorf("max|dV|/max|V| = %.3g > %g", e, bar)
	}
}

// poisoned runs sim on be into a result filled with NaN beforehand
// (through SubsetInto's view), failing on any visibility left unwritten.
func poisoned(t *testing.T, be matvis.Backend, sim *matvis.Simulation) *matvis.Result {
	t.Helper()
	whole := matvis.NewResult(sim)
	nan := complex(math.NaN(), math.NaN())
	for i := range whole.Vis128 {
		whole.Vis128[i] = nan
	}
	for i := range whole.Vis64 {
		whole.Vis64[i] = complex64(nan)
	}
	all := matvis.Block{F0: 0, F1: sim.NFreq(), T0: 0, T1: sim.NTime()}
	sub, err := sim.SubsetInto(all, whole)
	if err != nil {
		t.Fatal(err)
	}
	res, err := be.Run(context.Background(), sub)
	if err != nil {
		t.Fatal(err)
	}
	if err := whole.PutBlock(all, res); err != nil {
		t.Fatal(err)
	}
	for i, v := range backendtest.Vis(whole) {
		if cmplx.IsNaN(v) {
			t.Fatalf("visibility %d left unwritten (NaN)", i)
		}
	}
	whole.Stats = res.Stats
	return whole
}

// TestBeamGroups compares runs with two to four beam groups with the
// direct CPU backend on fresh random simulations into poisoned outputs:
// all pairs (the mirrored group pairs) and chosen pairs (a job per
// ordered group pair), unpolarized and polarized, coplanar and with
// w-terms, at several ε; max|ΔV|/max|V| at most 10·ε, 1e-10 at 1e-12.
func TestBeamGroups(t *testing.T) {
	rng := backendtest.NewRNG(t, 50)
	direct := cpu.New()
	beams := []beam.Beam{beam.Gaussian{DiameterM: 14}, beam.ShortDipole{}, beam.Airy{DiameterM: 12}, beam.Gaussian{DiameterM: 9}}
	cases := []struct {
		name   string
		groups int
		pairs  bool
		pol    bool
		dz     float64
		eps    float64
		jobs   int
		list   [][2]int // the pairs, when set
	}{
		{"2 groups 1e-12", 2, false, false, 0, 1e-12, 3, nil},
		{"2 groups 1e-6", 2, false, false, 0, 1e-6, 3, nil},
		{"3 groups polarized 1e-12", 3, false, true, 0, 1e-12, 6, nil},
		{"4 groups polarized 1e-9", 4, false, true, 0, 1e-9, 10, nil},
		{"2 groups chosen pairs 1e-12", 2, true, false, 0, 1e-12, 0, nil},
		{"3 groups chosen pairs polarized 1e-12", 3, true, true, 0, 1e-12, 0, nil},
		{"2 groups w-terms 1e-12", 2, false, false, 0.5, 1e-12, 3, nil},
		{"2 groups w-terms polarized 1e-9", 2, false, true, 0.5, 1e-9, 3, nil},
		{"2 groups reverse listed twice 1e-12", 2, false, true, 0, 1e-12, 0, [][2]int{{0, 1}, {1, 0}, {1, 0}, {3, 3}, {2, 5}, {5, 2}, {4, 7}, {7, 4}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := sharedConfig(t, rng, 10, 1200, 2, 50, tc.dz)
			c.Options.Polarized = tc.pol
			c.Beams = beams[:tc.groups]
			c.BeamIdx = make([]int, len(c.Antennas))
			for a := range c.BeamIdx {
				// Every group gets an antenna; the rest at random.
				c.BeamIdx[a] = a % tc.groups
				if a >= tc.groups {
					c.BeamIdx[a] = rng.IntN(tc.groups)
				}
			}
			if tc.pairs {
				c.Options.AntPairs = [][2]int{{0, 1}, {1, 0}, {3, 3}, {2, 7}, {9, 4}, {5, 9}, {1, 2}, {8, 0}}
			}
			if tc.list != nil {
				c.Options.AntPairs = tc.list
			}
			sim := backendtest.NewSim(t, c)
			got, want := forcedAndDirect(t, tc.eps, sim, direct)
			impl := got.Stats.MatProdImpl
			if !strings.Contains(impl.Strategy, "nufft type 3") || !strings.Contains(impl.Why, "beam groups") {
				t.Fatalf("strategy %q, why %q: want the transform by beam groups", impl.Strategy, impl.Why)
			}
			if tc.jobs > 0 && !strings.Contains(impl.Strategy, "group pairs transformed") {
				t.Errorf("strategy %q", impl.Strategy)
			}
			checkAgainstDirect(t, got, want, tc.eps)
		})
	}
}

// TestJobsOf checks the split of pairs into jobs: G(G+1)/2 jobs with
// mirrors for all pairs, one per ordered group pair otherwise, every
// output pair covered exactly once (as a job's pair or a mirror).
func TestJobsOf(t *testing.T) {
	rng := backendtest.NewRNG(t, 51)
	for _, tc := range []struct {
		groups int
		pairs  [][2]int
		jobs   int
	}{
		{1, nil, 1},
		{2, nil, 3},
		{4, nil, 10},
		{3, [][2]int{{0, 1}, {1, 0}, {2, 2}, {0, 2}, {4, 1}}, 0},
		// Every reverse output, (1, 0) twice: one listing mirrored,
		// the other its own job's.
		{2, [][2]int{{0, 1}, {1, 0}, {1, 0}, {3, 3}, {2, 5}, {5, 2}}, 0},
	} {
		c := sharedConfig(t, rng, 8, 10, 1, 40, 0)
		c.Beams = nil
		c.BeamIdx = make([]int, 8)
		for a := range c.BeamIdx {
			c.BeamIdx[a] = a % tc.groups
		}
		for g := range tc.groups {
			c.Beams = append(c.Beams, beam.Gaussian{DiameterM: 10 + float64(g)})
		}
		c.Options.AntPairs = tc.pairs
		sim := backendtest.NewSim(t, c)
		specs := jobsOf(sim)
		if tc.jobs > 0 && len(specs) != tc.jobs {
			t.Errorf("%d groups: %d jobs, want %d", tc.groups, len(specs), tc.jobs)
		}
		seen := make([]int, len(sim.Pairs))
		for _, js := range specs {
			for k, p := range js.pairs {
				out := k
				if js.out != nil {
					out = js.out[k]
				}
				if sim.Pairs[out] != p || c.BeamIdx[p[0]] != js.beam || c.BeamIdx[p[1]] != js.beam2 {
					t.Fatalf("%d groups: job (%d, %d) holds pair %v as output %d (%v)", tc.groups, js.beam, js.beam2, p, out, sim.Pairs[out])
				}
				seen[out]++
				if js.mirror != nil && js.mirror[k] >= 0 {
					if m := sim.Pairs[js.mirror[k]]; m != [2]int{p[1], p[0]} {
						t.Fatalf("%d groups: pair %v mirrored into %v", tc.groups, p, m)
					}
					seen[js.mirror[k]]++
				}
			}
		}
		for k, n := range seen {
			if n != 1 {
				t.Errorf("%d groups: output pair %d (%v) covered %d times", tc.groups, k, sim.Pairs[k], n)
			}
		}
	}
}

// TestParallel checks that parallel covers [0, n) exactly once, in one
// part below its threshold and in several above it.
func TestParallel(t *testing.T) {
	for _, n := range []int{0, 1, 8191, 8192 * 3, 100003} {
		seen := make([]int32, n)
		parts := 0
		var mu sync.Mutex
		parallel(4, n, func(lo, hi int) {
			mu.Lock()
			parts++
			mu.Unlock()
			for i := lo; i < hi; i++ {
				seen[i]++
			}
		})
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("n=%d: index %d covered %d times", n, i, c)
			}
		}
		if want := max(1, min(4, n/8192)); parts != want {
			t.Errorf("n=%d: %d parts, want %d", n, parts, want)
		}
	}
}
