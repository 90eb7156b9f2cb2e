package nufftcpu

import (
	"context"
	"math/rand/v2"
	"strings"
	"syscall"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/cpu"
	"os"
	"path/filepath"
)

// hexConfig is the benchmark's shape (bench_test.go): nant jittered hex
// antennas, one Gaussian beam, 150 MHz, one time, nsrc sources.
func hexConfig(t testing.TB, rng *rand.Rand, nant, nsrc int) matvis.Config {
	return hexConfigUp(t, rng, nant, nsrc, 0)
}

// hexConfigUp is hexConfig with the antennas' vertical jitter sigmaZ (m).
func hexConfigUp(t testing.TB, rng *rand.Rand, nant, nsrc int, sigmaZ float64) matvis.Config {
	c := matvis.Config{Options: matvis.Options{Precision: 2}}
	c.Antennas = hexArray(rng, nant, 14.6, 0.03, sigmaZ)
	c.Freqs = []float64{150e6}
	c.RA, c.Dec = make([]float64, nsrc), make([]float64, nsrc)
	for range nsrc {
		c.Flux = append(c.Flux, 0.1+10*rng.Float64())
	}
	c.Coords = backendtest.RandomTopo(t, rng, 1, nsrc)
	c.Beams = []beam.Beam{beam.Gaussian{DiameterM: 14}}
	return c
}

// TestChooseIssueShapes checks the chooser's decisions on issue 29's two
// shapes, which the cost model settles without measuring: 8 antennas ×
// 10⁵ sources on the direct product (a trial there would cost more than
// the 5 % the bar allows), 350 × 2·10⁵ as transforms.
func TestChooseIssueShapes(t *testing.T) {
	rng := backendtest.NewRNG(t, 40)
	b, err := New(0, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		nant, nsrc int
		nufft      bool
	}{{8, 100000, false}, {350, 200000, true}} {
		sim := backendtest.NewSim(t, hexConfig(t, rng, tc.nant, tc.nsrc))
		r, err := newRun(b, sim)
		if err != nil {
			t.Fatal(err)
		}
		e := r.estimates()
		nufft, why, trial := choose(e, nil)
		t.Logf("%d × %d: %+v: %s", tc.nant, tc.nsrc, e, why)
		if nufft != tc.nufft || trial {
			t.Errorf("%d antennas × %d sources: transform %v, trial %v (%s), want transform %v without a trial", tc.nant, tc.nsrc, nufft, trial, why, tc.nufft)
		}
	}
}

// TestChooseMeasured checks the decision between the margins: a trial
// is asked for, then the measured faster path wins, and a remembered
// measurement says so.
func TestChooseMeasured(t *testing.T) {
	close := estimates{nufft: 2e-3, direct: 1e-3, nint: minTrialIntegrations}
	if _, _, trial := choose(close, nil); !trial {
		t.Fatal("estimates within the margin: no trial asked for")
	}
	// Too few integrations to earn a trial back: the lower estimate.
	for _, e := range []estimates{{nufft: 2e-3, direct: 1e-3, nint: 1}, {nufft: 1e-3, direct: 2e-3, nint: minTrialIntegrations - 1}} {
		nufft, why, trial := choose(e, nil)
		if trial || nufft != (e.nufft < e.direct) || !strings.Contains(why, "too few to measure") {
			t.Errorf("%+v: transform %v, trial %v, why %q; want the lower estimate, no trial", e, nufft, trial, why)
		}
	}
	for _, tc := range []struct {
		m     measured
		nufft bool
		why   string
	}{
		{measured{nufft: 1e-3, direct: 3e-3}, true, "chooser: measured,"},
		{measured{nufft: 3e-3, direct: 1e-3}, false, "chooser: measured,"},
		{measured{nufft: 1e-3, direct: 3e-3, cached: true}, true, "earlier run"},
	} {
		nufft, why, trial := choose(close, &tc.m)
		if nufft != tc.nufft || trial || !strings.Contains(why, tc.why) {
			t.Errorf("%+v: transform %v, trial %v, why %q; want %v, no trial, %q", tc.m, nufft, trial, why, tc.nufft, tc.why)
		}
	}
	for _, e := range []estimates{{nufft: 1e-3, direct: 3.1e-3, nint: 50}, {nufft: 3.1e-3, direct: 1e-3, nint: 50}} {
		if nufft, why, trial := choose(e, &measured{nufft: 1, direct: 1e-9}); trial || nufft != (e.nufft < e.direct) || !strings.Contains(why, "cost model") {
			t.Errorf("%+v: transform %v, trial %v, why %q: the model should settle it", e, nufft, trial, why)
		}
	}
}

// closeConfig is a shape whose estimates lie within the margin (checked).
func closeConfig(t *testing.T, rng *rand.Rand, b *Backend) matvis.Config {
	// Two channels × four times: enough integrations to be measured.
	c := sharedConfig(t, rng, 32, 8000, 4, 40, 0)
	r, err := newRun(b, backendtest.NewSim(t, c))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, trial := choose(r.estimates(), nil); !trial {
		t.Fatalf("32 × 8000: estimates %+v no longer within the margin; pick another shape", r.estimates())
	}
	return c
}

// TestChooserTrial runs a close shape with injected measurements: the
// faster path is taken, its visibilities agree with the direct backend's
// (the transform's first integration, the trial, kept), the measurement
// is remembered for the shape, and the run says what decided.
func TestChooserTrial(t *testing.T) {
	rng := backendtest.NewRNG(t, 41)
	direct := cpu.New()
	for _, tc := range []struct {
		m     measured
		nufft bool
	}{{measured{nufft: 1e-3, direct: 2e-3}, true}, {measured{nufft: 2e-3, direct: 1e-3}, false}} {
		b, err := New(0, 2)
		if err != nil {
			t.Fatal(err)
		}
		calls := 0
		b.measure = func(ctx context.Context, r *run) (measured, error) {
			calls++
			if err := r.loop(ctx, 1); err != nil {
				return measured{}, err
			}
			return tc.m, nil
		}
		sim := backendtest.NewSim(t, closeConfig(t, rng, b))
		want := backendtest.MustRun(t, direct, sim)
		for i, say := range []string{"chooser: measured,", "earlier run"} {
			got := backendtest.MustRun(t, b, sim)
			why := got.Stats.MatProdImpl.Why
			if strings.HasPrefix(why, "direct product: ") == tc.nufft || !strings.Contains(why, say) {
				t.Errorf("run %d, %+v: why %q, want the transform %v and %q", i, tc.m, why, tc.nufft, say)
			}
			if e := backendtest.RelErr(backendtest.Vis(got), backendtest.Vis(want)); !(e <= 1e-10) {
				t.Errorf("run %d: differs from the direct backend by %.3g", i, e)
			}
		}
		if calls != 1 {
			t.Errorf("%d trials for two runs of one shape, want 1", calls)
		}
	}
}

// TestTrialMeasures runs the real trial once on a close shape: both
// times are positive and finite and the run completes with the direct
// backend's visibilities (which path won is the machine's business).
func TestTrialMeasures(t *testing.T) {
	rng := backendtest.NewRNG(t, 42)
	b, err := New(0, 2)
	if err != nil {
		t.Fatal(err)
	}
	sim := backendtest.NewSim(t, closeConfig(t, rng, b))
	got := backendtest.MustRun(t, b, sim)
	m := b.remembered(shape{32, 8000, len(sim.Pairs), 1, 2, 2, 0, 1, 150e6})
	if m == nil || !(m.nufft > 0 && m.direct > 0) || m.nufft > 10 || m.direct > 10 {
		t.Fatalf("measurement %+v", m)
	}
	t.Logf("measured %+v: %s", *m, got.Stats.MatProdImpl.Why)
	want := backendtest.MustRun(t, cpu.New(), sim)
	if e := backendtest.RelErr(backendtest.Vis(got), backendtest.Vis(want)); !(e <= 1e-10) {
		t.Errorf("differs from the direct backend by %.3g", e)
	}
}

// TestLowerBound checks the plan-free estimate against the cost model's
// once the plans are made: never above it (unpolarized, polarized, two
// beam groups, w-terms), and a run with many antennas and few sources
// goes to the direct product on it alone, saying so.
func TestLowerBound(t *testing.T) {
	rng := backendtest.NewRNG(t, 43)
	b, err := New(0, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(*matvis.Config)
	}{
		{"unpolarized", func(*matvis.Config) {}},
		{"polarized", func(c *matvis.Config) { c.Options.Polarized = true }},
		{"two beam groups", func(c *matvis.Config) {
			c.Beams = append(c.Beams, beam.Airy{DiameterM: 12})
			c.BeamIdx = make([]int, len(c.Antennas))
			c.BeamIdx[3] = 1
		}},
		{"w-terms", func(c *matvis.Config) {
			for a := range c.Antennas {
				c.Antennas[a][2] = 0.05 * rng.NormFloat64()
			}
		}},
	} {
		c := hexConfig(t, rng, 60, 5000)
		tc.edit(&c)
		sim := backendtest.NewSim(t, c)
		lb, err := b.lowerBound(sim)
		if err != nil {
			t.Fatal(err)
		}
		r, err := newRun(b, sim)
		if err != nil {
			t.Fatal(err)
		}
		if e := r.estimates(); lb.nufft > e.nufft*(1+1e-12) || lb.direct != e.direct {
			t.Errorf("%s: lower bound %+v, the model with plans %+v", tc.name, lb, e)
		}
	}
	sim := backendtest.NewSim(t, hexConfig(t, rng, 350, 300))
	res := backendtest.MustRun(t, b, sim)
	if why := res.Stats.MatProdImpl.Why; !strings.Contains(why, "direct product: chooser: cost model") || !strings.Contains(why, "before any plan") {
		t.Errorf("350 antennas × 300 sources: why %q, want the direct product before any plan", why)
	}
}

// TestTrialCache: a close call measured by one backend is kept in its
// trial cache and taken, unmeasured, by a second backend (another
// process's) given the same file, which then takes the same path; a
// backend without a cache file measures again; an unreadable cache, or a
// FIFO in its place, is only a miss.
func TestTrialCache(t *testing.T) {
	rng := backendtest.NewRNG(t, 43)
	file := filepath.Join(t.TempDir(), "choices.json")
	var sim *matvis.Simulation
	trials := 0
	open := func(cache string) *Backend {
		b, err := New(0, 2)
		if err != nil {
			t.Fatal(err)
		}
		b.TrialCache = cache
		b.measure = func(ctx context.Context, r *run) (measured, error) {
			trials++
			if err := r.loop(ctx, 1); err != nil {
				return measured{}, err
			}
			return measured{nufft: 1e-3, direct: 2e-3}, nil
		}
		if sim == nil {
			sim = backendtest.NewSim(t, closeConfig(t, rng, b))
		}
		return b
	}
	for i, c := range []struct {
		cache  string
		trials int
		say    string
	}{{file, 1, "chooser: measured,"}, {file, 1, "earlier run"}, {"", 2, "chooser: measured,"}} {
		got := backendtest.MustRun(t, open(c.cache), sim)
		why := got.Stats.MatProdImpl.Why
		if trials != c.trials || !strings.Contains(why, c.say) || strings.HasPrefix(why, "direct product: ") {
			t.Errorf("backend %d: %d trials so far (want %d), why %q (want the transform and %q)", i, trials, c.trials, why, c.say)
		}
	}
	if err := os.WriteFile(file, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	backendtest.MustRun(t, open(file), sim)
	if trials != 3 {
		t.Errorf("an unreadable cache: %d trials, want it measured again (3)", trials)
	}
	// A FIFO in its place (nobody writing it) is a miss, not a stall.
	fifo := filepath.Join(t.TempDir(), "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	backendtest.MustRun(t, open(fifo), sim)
	if trials != 4 {
		t.Errorf("a FIFO for a cache: %d trials, want it measured again (4)", trials)
	}
}
