package gpu

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// countingCoords is a Coordinates with no matrix rotation (the GPU
// uploads host-made ENU vectors, as for astropy's method) that counts its
// ENU calls per time.
type countingCoords struct {
	matvis.Coordinates
	calls []atomic.Int32
}

func (c *countingCoords) ENU(ti int, e, n, u []float64) error {
	c.calls[ti].Add(1)
	return c.Coordinates.ENU(ti, e, n, u)
}

// TestHostENUOncePerTime: without a matrix rotation the run makes each
// time's ENU vectors on the host once, whatever the number of channels
// (they were remade for every channel: 0.44 s of CPU an integration at
// 10⁶ sources, 2026-12-07), and the visibilities still match the
// plain-loop twin at every channel and time — several times × channels,
// and one time × many channels, where the device keeps one upload.
func TestHostENUOncePerTime(t *testing.T) {
	g := openGPU(t)
	rng := sharedtest.RNG(t, 21)
	for _, c := range []struct{ nfreq, ntime int }{{3, 4}, {5, 1}, {1, 3}} {
		t.Run(fmt.Sprintf("%dx%d", c.nfreq, c.ntime), func(t *testing.T) {
			cfg := matvis.Config{Options: matvis.Options{Precision: 1, MinChunks: 2}}
			for f := range c.nfreq {
				cfg.Freqs = append(cfg.Freqs, 100e6+float64(f)*7.3e6)
			}
			for range 6 {
				cfg.Antennas = append(cfg.Antennas, [3]float64{rng.Float64()*200 - 100, rng.Float64()*200 - 100, 0})
			}
			cfg.Beams = []beam.Beam{beam.Gaussian{SigmaRad: 0.5}}
			addRandomSources(rng, &cfg, 1500+rng.IntN(1000), 0)
			counter := &countingCoords{Coordinates: backendtest.RandomTopo(t, rng, c.ntime, len(cfg.RA)), calls: make([]atomic.Int32, c.ntime)}
			cfg.Coords = counter
			sim, err := matvis.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			want := backendtest.Plain(t, sim)
			for ti := range counter.calls {
				counter.calls[ti].Store(0)
			}
			checkParityWith(t, g, sim, want, fmt.Sprintf("host ENU %d channels × %d times", c.nfreq, c.ntime), nil)
			for ti := range counter.calls {
				if n := counter.calls[ti].Load(); n != 1 {
					t.Errorf("time %d: ENU made %d times on the host, want once", ti, n)
				}
			}
		})
	}
}
