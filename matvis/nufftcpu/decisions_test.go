package nufftcpu

import (
	"github.com/gomatvis/gomatvis/matvis/backendtest"
	"github.com/gomatvis/gomatvis/matvis/cpu"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrialKeyNamesEveryField: the trial cache's key tells apart every
// field a measurement depends on (shape's doc: what the two paths' costs
// depend on) and the backend's workers, so a measurement of one shape is
// never read back for another: changing any one field alone changes the
// key, and equal shapes share it.
func TestTrialKeyNamesEveryField(t *testing.T) {
	base := shape{nant: 32, nsrc: 8000, npairs: 528, nfeed: 1, precision: 2, dim: 2, terms: 0, jobs: 1, freq: 150e6}
	b := &Backend{workers: 2}
	key := b.trialKey(base)
	if again := (&Backend{workers: 2}).trialKey(base); again != key {
		t.Fatalf("equal shapes and workers: keys %q and %q differ", key, again)
	}
	for _, c := range []struct {
		field string
		edit  func(*shape)
	}{
		{"nant", func(s *shape) { s.nant++ }},
		{"nsrc", func(s *shape) { s.nsrc++ }},
		{"npairs", func(s *shape) { s.npairs++ }},
		{"nfeed", func(s *shape) { s.nfeed = 2 }},
		{"precision", func(s *shape) { s.precision = 1 }},
		{"dim", func(s *shape) { s.dim = 3 }},
		{"terms", func(s *shape) { s.terms = 4 }},
		{"jobs", func(s *shape) { s.jobs = 2 }},
		{"freq", func(s *shape) { s.freq = 180e6 }},
	} {
		s := base
		c.edit(&s)
		if k := b.trialKey(s); k == key {
			t.Errorf("%s changed: the key %q is unchanged", c.field, k)
		}
	}
	if k := (&Backend{workers: 3}).trialKey(base); k == key {
		t.Errorf("3 workers against 2: the key %q is unchanged", k)
	}
}

// TestDiskTrialRefusesNonPositive: a cached measurement must have both
// times positive (a time of zero, negative or missing is no measurement
// and would make either path look free); such an entry is a miss, and a
// good entry under the same key is a hit.
func TestDiskTrialRefusesNonPositive(t *testing.T) {
	s := shape{nant: 8, nsrc: 100, npairs: 36, nfeed: 1, precision: 2, dim: 2, jobs: 1, freq: 1e8}
	for _, c := range []struct {
		entry string
		hit   bool
	}{
		{`{"nufft_s": 0.5, "direct_s": 0.25}`, true},
		{`{"nufft_s": 0, "direct_s": 0.25}`, false},
		{`{"nufft_s": 0.5, "direct_s": -1}`, false},
		{`{"nufft_s": 0.5}`, false},
		{`{}`, false},
	} {
		b := &Backend{workers: 1, TrialCache: filepath.Join(t.TempDir(), "c.json")}
		body := `{"` + strings.ReplaceAll(b.trialKey(s), `"`, `\"`) + `": ` + c.entry + "}"
		if err := os.WriteFile(b.TrialCache, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		m, ok := b.diskTrial(s)
		if ok != c.hit {
			t.Errorf("entry %s: hit %v (%+v), want %v", c.entry, ok, m, c.hit)
		}
		if ok && (m.nufft != 0.5 || m.direct != 0.25) {
			t.Errorf("entry %s: read back %+v, want nufft 0.5 direct 0.25", c.entry, m)
		}
	}
}

// TestChooseMargins: the model alone decides once one estimate is more
// than clearMargin = 3 times the other (the package doc's 3×, worked by
// hand here, not read from the constant): at 3.3× either way the cheaper
// path is taken without a trial; at 2.7× either way a long run asks for a
// trial and a short one takes the cheaper estimate.
func TestChooseMargins(t *testing.T) {
	for _, c := range []struct {
		nufft, direct float64
		nint          int
		wantNUFFT     bool
		wantTrial     bool
	}{
		{1, 3.3, 100, true, false},
		{3.3, 1, 100, false, false},
		{1, 2.7, 100, false, true},
		{2.7, 1, 100, false, true},
		{1, 2.7, 1, true, false},
		{2.7, 1, 1, false, false},
		// The package doc's minTrialIntegrations: 8 integrations are measured, 7 not.
		{1, 2, 8, false, true},
		{1, 2, 7, true, false},
	} {
		e := estimates{nufft: c.nufft, direct: c.direct, nint: c.nint}
		nufft, why, trial := choose(e, nil)
		if trial != c.wantTrial || (!trial && nufft != c.wantNUFFT) {
			t.Errorf("%+v: transform %v, trial %v (%s); want transform %v, trial %v", e, nufft, trial, why, c.wantNUFFT, c.wantTrial)
		}
	}
}

// TestLowerBoundPrecisionAndChannel: the plan-free lower bound stays a
// lower bound of the model's estimate for a precision-1 run (whose
// transforms run at ε no finer than fp32's), and it is made at the
// highest channel (lowerBound's doc): two channels give the bound of the
// higher alone, not of the lower.
func TestLowerBoundPrecisionAndChannel(t *testing.T) {
	rng := backendtest.NewRNG(t, 44)
	b, err := New(0, 2)
	if err != nil {
		t.Fatal(err)
	}
	c := hexConfig(t, rng, 60, 5000)
	c.Options.Precision = 1
	sim := backendtest.NewSim(t, c)
	lb, err := b.lowerBound(sim)
	if err != nil {
		t.Fatal(err)
	}
	r, err := newRun(b, sim)
	if err != nil {
		t.Fatal(err)
	}
	if e := r.estimates(); lb.nufft > e.nufft*(1+1e-12) {
		t.Errorf("precision 1: lower bound %+v above the model with plans %+v", lb, e)
	}
	bound := func(freqs ...float64) float64 {
		c := hexConfig(t, rng, 60, 5000)
		c.Freqs = freqs
		flux := c.Flux
		for range freqs[1:] {
			c.Flux = append(c.Flux, flux...)
		}
		lb, err := b.lowerBound(backendtest.NewSim(t, c))
		if err != nil {
			t.Fatal(err)
		}
		return lb.nufft
	}
	lo, hi, both := bound(60e6), bound(240e6), bound(240e6, 60e6)
	if lo == hi {
		t.Fatalf("60 and 240 MHz give the same bound %v: the test cannot tell the channels apart", lo)
	}
	if both != hi {
		t.Errorf("channels 240 and 60 MHz: bound %v, want 240 MHz's %v (60 MHz's: %v)", both, hi, lo)
	}
	if both2 := bound(60e6, 240e6); both2 != hi {
		t.Errorf("channels 60 and 240 MHz: bound %v, want 240 MHz's %v", both2, hi)
	}
}

// TestFP32PositionsRounded: a precision-1 run takes the sources' ENU
// positions as float32, as the direct backend does (matvis's fp32
// contract). On a 500 m array rounding a position moves a fringe's phase
// by up to 2π·350 λ·6·10⁻⁸ ≈ 10⁻⁴ rad, which shows in the visibilities
// (about 7·10⁻⁷ of the largest) above the transform's fp32 error (about
// 2·10⁻⁷): the transform's precision-1 visibilities must lie closer to the
// direct product's precision-1 ones (rounded positions) than to its
// precision-2 ones (exact positions), and within the fp32 bar
// (backendtest.Tolerance(1)) of the former.
func TestFP32PositionsRounded(t *testing.T) {
	rng := backendtest.NewRNG(t, 45)
	c := sharedConfig(t, rng, 12, 1500, 1, 500, 0)
	c.Options.Precision = 1
	sim := backendtest.NewSim(t, c)
	be, err := New(1e-12, 2)
	if err != nil {
		t.Fatal(err)
	}
	be.Force = true
	got := backendtest.Vis(backendtest.MustRun(t, be, sim))
	want := backendtest.Vis(backendtest.MustRun(t, cpu.New(), sim))
	c.Options.Precision = 2
	exact := backendtest.Vis(backendtest.MustRun(t, cpu.New(), backendtest.NewSim(t, c)))
	e32, e64 := backendtest.RelErr(got, want), backendtest.RelErr(got, exact)
	t.Logf("max|dV|/max|V|: %.3g from the fp32 direct product, %.3g from the fp64 one (bar %g)", e32, e64, backendtest.Tolerance(1))
	if !(e32 <= backendtest.Tolerance(1)) || !(e32 < e64) {
		t.Errorf("max|dV|/max|V| = %.3g from the fp32 direct product (bar %g), %.3g from the fp64 one: want closer to the fp32", e32, backendtest.Tolerance(1), e64)
	}
}
