package matvis

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// powerSky is a power-law sky worked the plain way, with some sources
// forced to a value (a NaN, a negative flux) to test the checks.
type powerSky struct {
	ref, idx []float64
	f0       float64
	forced   map[int]float64
}

func (p powerSky) StokesIAt(f float64, dst []float64) error {
	for i := range dst {
		dst[i] = p.ref[i] * math.Pow(f/p.f0, p.idx[i])
		if v, ok := p.forced[i]; ok {
			dst[i] = v
		}
	}
	return nil
}

// TestFluxMaxAt: the parallel pass gives every source's flux as FluxAt
// does and the largest |flux| as a plain serial loop finds it, for a flux
// table and a spectral sky, into a poisoned buffer; a sky with bad fluxes
// in several workers' shares is refused naming the first bad source, as
// FluxAt names it. The largest flux is planted in the first and in the
// last worker's share in turn.
func TestFluxMaxAt(t *testing.T) {
	rng := sharedtest.RNG(t, 11)
	const nsrc, nfreq = 100003, 3
	ra, dec := make([]float64, nsrc), make([]float64, nsrc)
	table := make([]float64, nsrc*nfreq)
	ref, idx := make([]float64, nsrc), make([]float64, nsrc)
	for i := range nsrc {
		ra[i], dec[i] = 6.283*rng.Float64(), -1.5+3*rng.Float64()
		ref[i], idx[i] = 10*rng.ExpFloat64(), -3+2*rng.Float64()
	}
	for i := range table {
		table[i] = 5 * rng.Float64()
	}
	// The two bad sources in the first and last quarters: different
	// workers' shares on two cores or more.
	first, second := rng.IntN(nsrc/4), nsrc-1-rng.IntN(nsrc/4)
	coords := rigid{lat: -0.5, lst: []float64{0}, ra: ra, dec: dec}
	for _, tc := range []struct {
		name string
		cfg  func(*Config)
		bad  int // the first bad source, −1 for none
	}{
		{"table", func(c *Config) { c.Flux = table }, -1},
		{"power law", func(c *Config) { c.Sky = powerSky{ref: ref, idx: idx, f0: 1.5e8} }, -1},
		{"largest first", func(c *Config) {
			c.Sky = powerSky{ref: ref, idx: idx, f0: 1.5e8, forced: map[int]float64{1: 1e9}}
		}, -1},
		{"largest last", func(c *Config) {
			c.Sky = powerSky{ref: ref, idx: idx, f0: 1.5e8, forced: map[int]float64{nsrc - 2: 1e9}}
		}, -1},
		{"NaN and negative", func(c *Config) {
			c.Sky = powerSky{ref: ref, idx: idx, f0: 1.5e8, forced: map[int]float64{second: math.NaN(), first: -1e-3}}
		}, first},
		{"infinite", func(c *Config) {
			c.Sky = powerSky{ref: ref, idx: idx, f0: 1.5e8, forced: map[int]float64{second: math.Inf(1)}}
		}, second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Antennas: [][3]float64{{0, 0, 0}, {14, 0, 0}}, Freqs: []float64{1e8, 1.5e8, 2e8}, RA: ra, Dec: dec,
				Coords: coords, Beams: []beam.Beam{beam.Gaussian{SigmaRad: 0.3}}}
			tc.cfg(&cfg)
			sim, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			// Repeated: the workers' shares are combined in the order
			// they finish, which differs from call to call.
			for k := range 8 * nfreq {
				fi := k % nfreq
				want := make([]float64, nsrc)
				wantErr := sim.FluxAt(fi, want)
				got := make([]float64, nsrc)
				for i := range got {
					got[i] = math.NaN()
				}
				m, err := sim.FluxMaxAt(fi, got)
				if tc.bad >= 0 {
					if err == nil || wantErr == nil || err.Error() != wantErr.Error() || !strings.Contains(err.Error(), fmt.Sprintf("source %d ", tc.bad)) {
						t.Fatalf("channel %d: error %v, FluxAt's %v, want source %d named", fi, err, wantErr, tc.bad)
					}
					continue
				}
				if err != nil || wantErr != nil {
					t.Fatalf("channel %d: %v (FluxAt: %v)", fi, err, wantErr)
				}
				serial := 0.0
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("channel %d source %d: %v, FluxAt %v", fi, i, got[i], want[i])
					}
					if want[i] > serial {
						serial = want[i]
					}
				}
				if m != serial {
					t.Errorf("channel %d: max %v, a serial loop finds %v", fi, m, serial)
				}
			}
		})
	}
}
