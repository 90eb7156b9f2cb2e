package matvis

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/matvis/beam"
)

// TestNewRejectsOutOfRange checks the physical ranges: values that are
// finite but absurd (a typo of units) gave NaN visibilities and exit 0.
func TestNewRejectsOutOfRange(t *testing.T) {
	cases := []struct {
		name string
		edit func(c *Config)
		want string
	}{
		{"antenna at 1e308 m", func(c *Config) { c.Antennas[1][0] = 1e308 }, "antennas[1][0] = 1e+308 m"},
		{"antenna just beyond 1e7 m", func(c *Config) { c.Antennas[0][2] = -1.01e7 }, "antennas[0][2]"},
		{"frequency 1.7e308 Hz", func(c *Config) { c.Freqs = []float64{1.7e308} }, "freqs[0] = 1.7e+308 Hz"},
		{"frequency above 1 THz", func(c *Config) { c.Freqs = []float64{2e12} }, "freqs[0]"},
		{"MJD for JD", func(c *Config) { c.Times = []float64{59000} }, "times[0] = 59000 JD"},
		{"NaN time", func(c *Config) { c.Times = []float64{math.NaN()} }, "times[0] = NaN"},
		{"declination beyond the pole", func(c *Config) { c.Dec[1] = 2 }, "dec[1] = 2 rad"},
		{"infinite RA", func(c *Config) { c.RA[0] = math.Inf(-1) }, "ra[0] = -Inf"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := validConfig()
			tc.edit(&cfg)
			_, err := New(cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want mention of %q", err, tc.want)
			}
			if !strings.Contains(tc.name, "NaN") && !strings.Contains(tc.name, "infinite") && !errors.Is(err, ErrOutOfRange) {
				t.Fatalf("error %v does not wrap ErrOutOfRange", err)
			}
		})
	}
	// The edges themselves are accepted.
	cfg := validConfig()
	cfg.Antennas[1] = [3]float64{MaxAntennaDistanceM, -MaxAntennaDistanceM, 0}
	cfg.Freqs = []float64{MaxFreqHz}
	cfg.Times = []float64{2459845.25}
	cfg.Dec = []float64{math.Pi / 2, -math.Pi / 2}
	if _, err := New(cfg); err != nil {
		t.Fatalf("edges refused: %v", err)
	}
}

// manyAntennas is validConfig with n antennas on a line and ntime, nfreq
// channels and times.
func manyAntennas(n, nfreq, ntime int) Config {
	c := validConfig()
	c.Antennas = make([][3]float64, n)
	for i := range c.Antennas {
		c.Antennas[i][0] = float64(i)
	}
	c.Freqs = make([]float64, nfreq)
	for i := range c.Freqs {
		c.Freqs[i] = 1e8 + float64(i)*1e5
	}
	c.Flux = make([]float64, 2*nfreq)
	topo := make([]float64, ntime*6)
	for ti := range ntime {
		copy(topo[ti*6:], []float64{0, 0.1, 0, 0.2, 1, 0.9})
	}
	c.Coords, _ = NewPrecomputed(ntime, 2, topo)
	return c
}

// TestNewSizesMemory checks that New refuses, with the numbers, what
// cannot fit, before allocating it (the 50 000-antenna cases would need
// 40 GB each for the pair list and the output), and chooses the pairs
// accumulator when only that fits.
func TestNewSizesMemory(t *testing.T) {
	cases := []struct {
		name     string
		cfg      func() Config
		wants    []string // in the error; none: accepted
		matprod  MatProd
		maxBytes int64
	}{
		{name: "50000 antennas, all pairs", cfg: func() Config { return manyAntennas(50000, 1, 1) },
			maxBytes: 8 << 30, wants: []string{"50000 antennas, 2500000000 baselines", "output 40 GB", "pair_list 40 GB", "accumulator 40 GB", "7.73 GB may be used (max_memory 8.59 GB"}},
		{name: "50000 antennas, one pair: pairs accumulator chosen", cfg: func() Config {
			c := manyAntennas(50000, 1, 1)
			c.Options.AntPairs = [][2]int{{0, 1}}
			return c
		}, maxBytes: 100 << 20, matprod: MatProdPairs},
		{name: "50000 antennas, one pair, herk asked for", cfg: func() Config {
			c := manyAntennas(50000, 1, 1)
			c.Options.AntPairs = [][2]int{{0, 1}}
			c.Options.MatProd = MatProdHerk
			return c
		}, maxBytes: 100 << 20, wants: []string{"accumulator 40 GB"}},
		{name: "2000 antennas × 50 channels × 50 times", cfg: func() Config { return manyAntennas(2000, 50, 50) },
			maxBytes: 1 << 40, wants: []string{"output 160 GB"}},
		{name: "output just over max_memory", cfg: func() Config { return manyAntennas(100, 4, 4) },
			maxBytes: 2 << 20, wants: []string{"output 2.56 MB", "max_memory"}},
		{name: "output within max_memory", cfg: func() Config { return manyAntennas(100, 4, 4) },
			maxBytes: 8 << 20, matprod: MatProdHerk},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg()
			cfg.Options.MaxMemory = tc.maxBytes
			sim, err := New(cfg)
			if len(tc.wants) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				if sim.Options.MatProd != tc.matprod {
					t.Fatalf("matprod %q, want %q", sim.Options.MatProd, tc.matprod)
				}
				return
			}
			var me *MemoryError
			if !errors.Is(err, ErrTooLarge) || !errors.As(err, &me) {
				t.Fatalf("error %v, want a MemoryError", err)
			}
			for _, w := range tc.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if me.Need <= me.Limit {
				t.Errorf("need %d ≤ limit %d", me.Need, me.Limit)
			}
		})
	}
}

// TestCheckFinite checks the per-integration check names the integration,
// pair and feed element of the first bad value.
func TestCheckFinite(t *testing.T) {
	for _, pol := range []bool{false, true} {
		cfg := validConfig()
		cfg.Options.Polarized = pol
		cfg.Beams = []beam.Beam{beam.ShortDipole{}}
		cfg.Freqs = []float64{1e8, 2e8}
		cfg.Flux = []float64{1, 1, 2, 2}
		sim, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		res := NewResult(sim)
		if err := res.CheckFinite(1, 0); err != nil {
			t.Fatalf("zeros: %v", err)
		}
		q := 0
		if pol {
			q = 1
		}
		res.Set(1, 0, 3, 0, q, complex(math.Inf(1), 0))
		err = res.CheckFinite(1, 0)
		want := "integration (freq 1, time 0): pair 3, feed element " + map[bool]string{false: "0", true: "1"}[pol]
		if !errors.Is(err, ErrNonFinite) || !strings.Contains(err.Error(), want) {
			t.Fatalf("polarized %v: error %v, want %q", pol, err, want)
		}
		if err := res.CheckFinite(0, 0); err != nil {
			t.Fatalf("other integration: %v", err)
		}
	}
}

// TestTimesPerBlock: a simulation whose output is streamed by time
// blocks (Options.OutputTimes) is built when the whole output would not
// fit, and TimesPerBlock gives the longest block that does.
func TestTimesPerBlock(t *testing.T) {
	const nt, nsrc = 400, 2
	topo := make([]float64, nt*3*nsrc)
	for ti := range nt {
		topo[ti*3*nsrc+2*nsrc], topo[ti*3*nsrc+2*nsrc+1] = 1, 1 // both at zenith
	}
	crd, err := NewPrecomputed(nt, nsrc, topo)
	if err != nil {
		t.Fatal(err)
	}
	c := validConfig()
	c.Coords = crd
	c.Antennas = make([][3]float64, 40)
	for a := range c.Antennas {
		c.Antennas[a] = [3]float64{float64(a), 0, 0}
	}
	c.Options = Options{OutputTimes: 1, MemoryBuffer: 0.5}
	free, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	var others, perTime int64
	for _, term := range free.HostBytes() {
		if term.Name == "output" {
			perTime = term.Bytes
		} else {
			others += term.Bytes
		}
	}
	for _, k := range []int{1, 7, 123, nt} {
		c.Options.MaxMemory = 2 * (others + int64(k)*perTime + perTime/2) // MemoryBuffer 0.5
		sim, err := New(c)
		if err != nil {
			t.Fatalf("k=%d: %v", k, err)
		}
		if got := sim.TimesPerBlock(); got != k {
			t.Errorf("budget for %d times: TimesPerBlock = %d", k, got)
		}
		whole := c
		whole.Options.OutputTimes = 0
		_, err = New(whole)
		if k < nt && !errors.Is(err, ErrTooLarge) {
			t.Errorf("budget for %d of %d times, whole output: New says %v, want ErrTooLarge", k, nt, err)
		}
	}
}
