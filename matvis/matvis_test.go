package matvis

import (
	"math"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/matvis/beam"
)

func TestAzZaConvention(t *testing.T) {
	cases := []struct {
		name           string
		e, n           float64
		wantAz, wantZa float64
	}{
		{"zenith", 0, 0, math.Pi / 2, 0},
		{"east horizon", 1, 0, 0, math.Pi / 2},
		{"north horizon", 0, 1, math.Pi / 2, math.Pi / 2},
		{"west horizon", -1, 0, math.Pi, math.Pi / 2},
		{"south horizon", 0, -1, 3 * math.Pi / 2, math.Pi / 2},
		{"beyond unit circle", 0.8, 0.8, math.Pi / 4, math.Pi / 2},
		{"30 deg from zenith, north-east", 0.5 * math.Sqrt(0.5), 0.5 * math.Sqrt(0.5), math.Pi / 4, math.Pi / 6},
	}
	for _, c := range cases {
		az, za := AzZa(c.e, c.n)
		if math.Abs(az-c.wantAz) > 1e-12 || math.Abs(za-c.wantZa) > 1e-12 {
			t.Errorf("%s: (az, za) = (%g, %g), want (%g, %g)", c.name, az, za, c.wantAz, c.wantZa)
		}
		if az < 0 || az >= 2*math.Pi {
			t.Errorf("%s: az %g outside [0, 2π)", c.name, az)
		}
	}
}

func validConfig() Config {
	crd, _ := NewPrecomputed(1, 2, []float64{0, 0.1, 0, 0.2, 1, 0.9})
	return Config{
		Antennas: [][3]float64{{0, 0, 0}, {10, 0, 0}},
		Freqs:    []float64{1e8},
		RA:       []float64{0, 1}, Dec: []float64{0, 0}, Flux: []float64{1, 2},
		Beams:  []beam.Beam{beam.Uniform{}},
		Coords: crd,
	}
}

func TestNewRejects(t *testing.T) {
	cases := []struct {
		name string
		edit func(c *Config)
		want string
	}{
		{"no antennas", func(c *Config) { c.Antennas = nil }, "antennas"},
		{"NaN antenna", func(c *Config) { c.Antennas[1][2] = math.NaN() }, "antennas[1][2] = NaN"},
		{"zero freq", func(c *Config) { c.Freqs = []float64{0} }, "freqs[0] = 0"},
		{"flux length", func(c *Config) { c.Flux = []float64{1} }, "flux"},
		{"negative flux", func(c *Config) { c.Flux = []float64{1, -2} }, "flux[source 1, freq 0] = -2"},
		{"dec length", func(c *Config) { c.Dec = []float64{0} }, "dec"},
		{"beam_idx range", func(c *Config) { c.BeamIdx = []int{0, 1} }, "beam_idx[1] = 1"},
		{"beams vs antennas", func(c *Config) { c.Beams = []beam.Beam{beam.Uniform{}, beam.Uniform{}, beam.Uniform{}} }, "3 beams for 2 antennas"},
		{"precision", func(c *Config) { c.Options.Precision = 3 }, "precision = 3"},
		{"antpair", func(c *Config) { c.Options.AntPairs = [][2]int{{0, 2}} }, "antpairs[0]"},
		{"matprod", func(c *Config) { c.Options.MatProd = "fft" }, "matprod"},
		{"source_buffer", func(c *Config) { c.Options.SourceBuffer = 2 }, "source_buffer = 2"},
		{"no coords", func(c *Config) { c.Coords = nil }, "coords"},
		{"beam unusable at a channel", func(c *Config) {
			c.Beams = []beam.Beam{beam.Gaussian{DiameterM: 1}}
			c.Freqs = []float64{1e6}
		}, "beams[0] (gaussian(diameter=1 m)) at freqs[0] = 1e+06 Hz"},
	}
	for _, c := range cases {
		cfg := validConfig()
		c.edit(&cfg)
		_, err := New(cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want mention of %q", c.name, err, c.want)
		}
	}
	if _, err := New(validConfig()); err != nil {
		t.Fatal(err)
	}
	if _, err := NewPrecomputed(1, 2, []float64{0, 0, 0, 0, math.Inf(1), 0}); err == nil || !strings.Contains(err.Error(), "topo[0, 2, 0]") {
		t.Errorf("Inf in topo: %v", err)
	}
}

func TestPlanMemoryMatchesMatvisRule(t *testing.T) {
	cfg := validConfig()
	cfg.RA = make([]float64, 100000)
	cfg.Dec = make([]float64, 100000)
	cfg.Flux = make([]float64, 100000)
	crd, _ := NewPrecomputed(1, 100000, make([]float64, 300000))
	cfg.Coords = crd
	sim, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	big := sim.PlanMemory(1 << 40)
	if big.NChunks != 1 || !big.Fits || big.SourcesPerChunk != 100000 {
		t.Fatalf("large budget: %+v", big)
	}
	// A budget between the 1-chunk and the 4-chunk totals needs more chunks,
	// and each chunk count's total must then fit.
	t1, _ := sim.MemoryTerms(1)
	var tot1 int64
	for _, x := range t1 {
		tot1 += x.Bytes
	}
	p := sim.PlanMemory(int64(float64(tot1) / 0.9 * 0.6))
	if p.NChunks < 2 || !p.Fits || float64(p.Total) >= 0.9*float64(p.Budget) {
		t.Fatalf("tight budget: %d chunks, total %d of budget %d", p.NChunks, p.Total, p.Budget)
	}
	prev, _ := sim.MemoryTerms(p.NChunks - 1)
	var totPrev int64
	for _, x := range prev {
		totPrev += x.Bytes
	}
	if float64(totPrev) < 0.9*float64(p.Budget) {
		t.Fatalf("%d chunks would have fitted", p.NChunks-1)
	}
	sim.Options.MinChunks = 7
	if p := sim.PlanMemory(1 << 40); p.NChunks != 7 || p.SourcesPerChunk != 14286 {
		t.Fatalf("min_chunks 7: %d chunks of %d", p.NChunks, p.SourcesPerChunk)
	}
}
