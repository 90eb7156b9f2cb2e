package nufftcpu

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/cpu"
)

// sharedConfig is a random Stokes-I simulation with one Gaussian beam for
// every antenna: antennas in a side-metre square, up coordinates within
// ±dz/2 (0: coplanar), sources uniform on the sphere (backendtest's, a
// tenth exactly on the horizon).
func sharedConfig(t testing.TB, rng *rand.Rand, nant, nsrc, ntime int, side, dz float64) matvis.Config {
	c := matvis.Config{Options: matvis.Options{Precision: 2}}
	for range nant {
		c.Antennas = append(c.Antennas, [3]float64{side * (rng.Float64() - 0.5), side * (rng.Float64() - 0.5), dz * (rng.Float64() - 0.5)})
	}
	c.Freqs = []float64{110e6, 150e6}
	c.RA = make([]float64, nsrc)
	c.Dec = make([]float64, nsrc)
	for range nsrc * len(c.Freqs) {
		c.Flux = append(c.Flux, 0.1+10*rng.Float64())
	}
	c.Coords = backendtest.RandomTopo(t, rng, ntime, nsrc)
	c.Beams = []beam.Beam{beam.Gaussian{DiameterM: 14}}
	return c
}

// directCase is one case of TestAgainstDirect.
type directCase struct {
	name     string
	nant     int
	side, dz float64
	pairs    bool
	eps      float64
	wantDim  int
	opt      matvis.Options
	bm       beam.Beam
	w        WTerms
}

// againstDirectCases are TestAgainstDirect's shapes, ε and w-terms.
func againstDirectCases() []directCase {
	dipole := beam.ShortDipole{}
	return []directCase{
		{"coplanar 1e-12", 12, 60, 0, false, 1e-12, 2, matvis.Options{}, nil, WAuto},
		{"coplanar 1e-9", 12, 60, 0, false, 1e-9, 2, matvis.Options{}, nil, WAuto},
		{"coplanar 1e-6", 12, 60, 0, false, 1e-6, 2, matvis.Options{}, nil, WAuto},
		{"coplanar 1e-3", 12, 60, 0, false, 1e-3, 2, matvis.Options{}, nil, WAuto},
		{"w-terms 3-D 1e-12", 10, 30, 1, false, 1e-12, 3, matvis.Options{}, nil, W3D},
		{"w-terms 3-D 1e-6", 10, 30, 1, false, 1e-6, 3, matvis.Options{}, nil, W3D},
		{"w-terms Jacobi-Anger 1e-12", 10, 30, 1, false, 1e-12, 2, matvis.Options{}, nil, WJacobiAnger},
		{"w-terms Jacobi-Anger 1e-6", 10, 30, 1, false, 1e-6, 2, matvis.Options{}, nil, WJacobiAnger},
		{"w-terms Jacobi-Anger polarized pairs 1e-12", 10, 60, 0.1, true, 1e-12, 2, matvis.Options{Polarized: true}, dipole, WJacobiAnger},
		{"w-terms auto 1e-12", 10, 60, 0.06, false, 1e-12, 0, matvis.Options{}, nil, WAuto},
		{"chosen pairs 1e-12", 12, 60, 0, true, 1e-12, 2, matvis.Options{}, nil, WAuto},
		{"repeated reverse pairs 1e-12", 12, 60, 0, false, 1e-12, 2, matvis.Options{AntPairs: [][2]int{{0, 1}, {1, 0}, {1, 0}, {2, 2}, {3, 4}, {4, 3}, {3, 4}}}, nil, WAuto},
		{"polarized repeated reverse pairs 1e-12", 12, 60, 0, false, 1e-12, 2, matvis.Options{Polarized: true, AntPairs: [][2]int{{0, 1}, {1, 0}, {1, 0}, {2, 2}, {3, 4}, {4, 3}, {3, 4}}}, dipole, WAuto},
		{"polarized dipole 1e-12", 10, 60, 0, false, 1e-12, 2, matvis.Options{Polarized: true}, dipole, WAuto},
		{"polarized gaussian pairs 1e-9", 10, 60, 0, true, 1e-9, 2, matvis.Options{Polarized: true}, nil, WAuto},
		{"polarized w-terms 1e-12", 8, 30, 1, false, 1e-12, 3, matvis.Options{Polarized: true}, dipole, W3D},
		{"polarized w-terms Jacobi-Anger 1e-12", 8, 30, 1, false, 1e-12, 2, matvis.Options{Polarized: true}, dipole, WJacobiAnger},
		{"fp32", 12, 60, 0, false, 1e-12, 2, matvis.Options{Precision: 1}, nil, WAuto},
		{"fp32 polarized", 10, 60, 0.5, false, 1e-12, 3, matvis.Options{Precision: 1, Polarized: true}, dipole, W3D},
	}
}

// TestAgainstDirect compares the transform with the direct CPU backend on
// fresh random simulations: coplanar (2-D transform) and not (3-D), all
// pairs and chosen pairs, unpolarized and polarized, at several ε:
// max|ΔV|/max|V| must be at most 10·ε, and at most 1e-10 at ε = 1e-12. In
// precision 1 both sides round to complex64 and the direct one computes
// in float32: the bar is the suite's float32 one.
func TestAgainstDirect(t *testing.T) {
	rng := backendtest.NewRNG(t, 29)
	direct := cpu.New()
	for _, tc := range againstDirectCases() {
		t.Run(tc.name, func(t *testing.T) {
			c := sharedConfig(t, rng, tc.nant, 1500, 2, tc.side, tc.dz)
			prec := 2
			if tc.opt.Precision == 1 {
				prec = 1
			}
			c.Options = tc.opt
			c.Options.Precision = prec
			if tc.bm != nil {
				c.Beams = []beam.Beam{tc.bm}
			}
			if tc.pairs {
				c.Options.AntPairs = [][2]int{{0, 1}, {1, 0}, {3, 3}, {2, 7}, {9, 4}, {5, 9}}
			}
			sim := backendtest.NewSim(t, c)
			be, err := New(tc.eps, 2)
			if err != nil {
				t.Fatal(err)
			}
			// These shapes are small enough for the direct product to be
			// estimated faster; the transform is what is tested.
			be.Force, be.W = true, tc.w
			got := backendtest.MustRun(t, be, sim)
			want := backendtest.MustRun(t, direct, sim)
			impl := got.Stats.MatProdImpl
			if !strings.Contains(impl.Strategy, "nufft type 3") || !strings.Contains(impl.Strategy, map[int]string{0: "-D", 2: "2-D", 3: "3-D"}[tc.wantDim]) {
				t.Fatalf("strategy %q (why %q), want the %d-D transform", impl.Strategy, impl.Why, tc.wantDim)
			}
			if ja := strings.Contains(impl.Strategy, "Jacobi"); ja != (tc.w == WJacobiAnger) && tc.w != WAuto {
				t.Errorf("strategy %q for w-terms %d", impl.Strategy, tc.w)
			}
			// Unpolarized with every reverse pair: two terms a transform.
			packed := strings.Contains(impl.Strategy, "Jacobi") && !tc.opt.Polarized && !tc.pairs
			if got := strings.Contains(impl.Strategy, "two a transform"); got != packed {
				t.Errorf("strategy %q: packed %v, want %v", impl.Strategy, got, packed)
			}
			bar := 10 * tc.eps
			switch {
			case prec == 1:
				bar = backendtest.Tolerance(1)
			case tc.eps == 1e-12:
				bar = 1e-10
			}
			e := backendtest.RelErr(backendtest.Vis(got), backendtest.Vis(want))
			t.Logf("%s: max|dV|/max|V| = %.3g (bar %g)", impl.Strategy, e, bar)
			if !(e <= bar) {
				t.Errorf("max|dV|/max|V| = %.3g > %g", e, bar)
			}
			if !got.Complete() || got.Stats.Backend != "nufftcpu" || got.Precision != prec {
				t.Errorf("complete %v, backend %q, precision %d", got.Complete(), got.Stats.Backend, got.Precision)
			}
		})
	}
}

// TestFallback checks that what the transform does not cover runs on the
// direct backend, with the same visibilities, and says why.
func TestFallback(t *testing.T) {
	rng := backendtest.NewRNG(t, 30)
	direct := cpu.New()
	be, err := New(0, 2)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		edit   func(*matvis.Config)
		reason string
	}{
		{"five beams", func(c *matvis.Config) {
			c.BeamIdx = make([]int, len(c.Antennas))
			for b := 1; b < 5; b++ {
				c.Beams = append(c.Beams, beam.Gaussian{DiameterM: 9 + float64(b)})
				c.BeamIdx[b] = b
			}
		}, "5 different beams (more than 4 beam groups)"},
		{"huge grid", func(c *matvis.Config) { c.Antennas[0][0] = 3e5 }, "grid too large"},
		{"min chunks", func(c *matvis.Config) { c.Options.MinChunks = 2 }, "MinChunks = 2"},
		{"estimated slower", func(*matvis.Config) {}, "the transform is estimated"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := sharedConfig(t, rng, 6, 400, 1, 40, 0)
			tc.edit(&c)
			sim := backendtest.NewSim(t, c)
			got := backendtest.MustRun(t, be, sim)
			want := backendtest.MustRun(t, direct, sim)
			if why := got.Stats.MatProdImpl.Why; !strings.Contains(why, "direct product: ") || !strings.Contains(why, tc.reason) {
				t.Errorf("why %q, want the direct product because %q", why, tc.reason)
			}
			if got.Stats.Backend != be.Name() {
				t.Errorf("backend %q", got.Stats.Backend)
			}
			if e := backendtest.RelErr(backendtest.Vis(got), backendtest.Vis(want)); !(e <= 1e-15) {
				t.Errorf("differs from the direct backend by %.3g", e)
			}
		})
	}
}

// TestTwoEqualBeams checks that two equal beam values count as one shared
// beam.
func TestTwoEqualBeams(t *testing.T) {
	rng := backendtest.NewRNG(t, 31)
	c := sharedConfig(t, rng, 6, 300, 1, 40, 0)
	c.Beams = []beam.Beam{beam.Gaussian{DiameterM: 14}, beam.Gaussian{DiameterM: 14}}
	c.BeamIdx = []int{0, 1, 0, 1, 1, 0}
	if ok, why := Eligible(backendtest.NewSim(t, c)); !ok {
		t.Errorf("equal beams not eligible: %s", why)
	}
}

// TestProgressAndCancel checks progress reports, the chunk samples, and
// that a run cancelled after its first integration keeps that one.
func TestProgressAndCancel(t *testing.T) {
	rng := backendtest.NewRNG(t, 32)
	c := sharedConfig(t, rng, 8, 500, 3, 40, 0)
	be, err := New(1e-9, 2)
	if err != nil {
		t.Fatal(err)
	}
	be.Force = true
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var seen []matvis.Progress
	c.Options.Progress = func(p matvis.Progress) {
		seen = append(seen, p)
		cancel()
	}
	sim := backendtest.NewSim(t, c)
	res, err := be.Run(ctx, sim)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want cancellation", err)
	}
	if len(seen) != 1 || seen[0] != (matvis.Progress{Done: 1, Total: 6}) {
		t.Errorf("progress %v, want one report of 1 of 6", seen)
	}
	if res == nil || !res.Done[0] || res.Done[1] {
		t.Fatalf("done %v, want only the first integration", res.Done)
	}
	want := backendtest.MustRun(t, cpu.New(), backendtest.NewSim(t, func() matvis.Config { c.Options.Progress = nil; return c }()))
	n := len(sim.Pairs)
	if e := backendtest.RelErr(res.Vis128[:n], want.Vis128[:n]); !(e <= 1e-8) {
		t.Errorf("the finished integration differs from the direct one by %.3g", e)
	}
	if len(res.Stats.Chunks) != 1 || res.Stats.Chunks[0].NVisible <= 0 || res.Stats.Chunks[0].NVisible > 500 {
		t.Errorf("chunk samples %+v", res.Stats.Chunks)
	}
	st := res.Stats.Chunks[0].Stages
	for _, g := range []matvis.Stage{matvis.StageCoords, matvis.StageTauZ, matvis.StageMatProd} {
		if st[g] <= 0 {
			t.Errorf("stage %v took %v", g, st[g])
		}
	}
}

// TestNewErrors checks New's bad arguments.
func TestNewErrors(t *testing.T) {
	for _, tc := range []struct {
		eps     float64
		workers int
		want    string
	}{{1e-20, 0, "eps = 1e-20"}, {0.5, 0, "eps = 0.5"}, {1e-6, -2, "workers = -2"}} {
		if _, err := New(tc.eps, tc.workers); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%g, %d): %v, want %q", tc.eps, tc.workers, err, tc.want)
		}
	}
}

// TestReversePairs checks the reverse-pair index on lists with and
// without every reverse.
func TestReversePairs(t *testing.T) {
	got := reversePairs([][2]int{{0, 1}, {2, 2}, {1, 0}, {3, 1}, {1, 3}})
	want := []int{2, 1, 0, 4, 3}
	if len(got) != len(want) {
		t.Fatalf("reverse %v, want %v", got, want)
	}
	for k := range want {
		if got[k] != want[k] {
			t.Fatalf("reverse %v, want %v", got, want)
		}
	}
	if rev := reversePairs([][2]int{{0, 1}, {1, 0}, {2, 0}}); rev != nil {
		t.Errorf("reverse %v with (0, 2) missing, want nil", rev)
	}
}

// TestMemoryFallback gives a budget that holds what every backend needs
// but not the transform's plan: the run falls back to the direct product
// and says so; with room for the plan, the plan's terms are reported.
func TestMemoryFallback(t *testing.T) {
	rng := backendtest.NewRNG(t, 33)
	c := sharedConfig(t, rng, 8, 400, 1, 40, 0)
	var need int64
	for _, term := range backendtest.NewSim(t, c).HostBytes() {
		need += term.Bytes
	}
	be, err := New(0, 2)
	if err != nil {
		t.Fatal(err)
	}
	be.Force = true
	c.Options.MaxMemory = int64(float64(need+64<<10) / 0.9)
	res := backendtest.MustRun(t, be, backendtest.NewSim(t, c))
	if why := res.Stats.MatProdImpl.Why; !strings.Contains(why, "direct product: the transform's memory does not fit") {
		t.Errorf("budget %d B for %d B: why %q, want the memory fall-back", c.Options.MaxMemory, need, why)
	}
	c.Options.MaxMemory = int64(float64(need+256<<20) / 0.9)
	res = backendtest.MustRun(t, be, backendtest.NewSim(t, c))
	if !strings.Contains(res.Stats.MatProdImpl.Strategy, "nufft") || res.Plan.Term("nufft plan") <= 0 || res.Plan.Total <= res.Plan.Term("nufft plan") {
		t.Errorf("ample budget: strategy %q, plan %+v", res.Stats.MatProdImpl.Strategy, res.Plan)
	}
}

// TestNoVisibleSource checks an integration whose sources are all below
// the horizon or on it: every visibility is zero, as in the direct sum.
func TestNoVisibleSource(t *testing.T) {
	rng := backendtest.NewRNG(t, 35)
	c := sharedConfig(t, rng, 6, 50, 1, 40, 0)
	topo := make([]float64, 3*50)
	for s := range 50 {
		e, n := rng.Float64()-0.5, rng.Float64()-0.5
		u := -rng.Float64() * math.Sqrt(1-e*e-n*n)
		if s%5 == 0 {
			u = 0
		}
		topo[s], topo[50+s], topo[100+s] = e, n, u
	}
	p, err := matvis.NewPrecomputed(1, 50, topo)
	if err != nil {
		t.Fatal(err)
	}
	c.Coords = p
	be, err := New(0, 2)
	if err != nil {
		t.Fatal(err)
	}
	be.Force = true
	res := backendtest.MustRun(t, be, backendtest.NewSim(t, c))
	if !strings.Contains(res.Stats.MatProdImpl.Strategy, "nufft") {
		t.Fatalf("strategy %q", res.Stats.MatProdImpl.Strategy)
	}
	for i, v := range res.Vis128 {
		if v != 0 {
			t.Fatalf("visibility %d = %v with no source above the horizon", i, v)
		}
	}
	if n := res.Stats.Chunks[0].NVisible; n != 0 {
		t.Errorf("%d visible sources", n)
	}
}
