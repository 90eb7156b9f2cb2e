package backendtest

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
)

// powerLaw is a Spectrum with S = S0·(f/f0)^α per source.
type powerLaw struct {
	s0, alpha []float64
	f0        float64
}

func (p powerLaw) StokesIAt(f float64, dst []float64) error {
	for s := range dst {
		dst[s] = p.s0[s] * math.Pow(f/p.f0, p.alpha[s])
	}
	return nil
}

// SkySpectrum checks that a sky given as a spectral model (Config.Sky)
// gives exactly the visibilities of the same fluxes written out as a
// table, and that a model turning NaN is an error naming the source and
// the channel.
func SkySpectrum(t *testing.T, be matvis.Backend) {
	rng := NewRNG(t, 7)
	for _, o := range []matvis.Options{{Polarized: true, MinChunks: 2}, {Precision: 1}} {
		c := Random(t, rng, Shape{NAnt: 5, NSrc: 600, NFreq: 3, NTime: 2}, SkyPrecomputed, BeamsGridded, o)
		nf := len(c.Freqs)
		pl := powerLaw{f0: 100e6}
		for range c.RA {
			pl.s0 = append(pl.s0, 0.1+rng.Float64()*10)
			pl.alpha = append(pl.alpha, -2+rng.Float64()*2)
		}
		for s := range c.RA {
			for fi, f := range c.Freqs {
				c.Flux[s*nf+fi] = pl.s0[s] * math.Pow(f/pl.f0, pl.alpha[s])
			}
		}
		table := MustRun(t, be, NewSim(t, c))
		c.Flux, c.Sky = nil, pl
		spec := MustRun(t, be, NewSim(t, c))
		checkSameVis(t, table, spec)
		pl.s0[7] = math.NaN()
		_, err := be.Run(context.Background(), NewSim(t, c))
		if err == nil || !strings.Contains(err.Error(), "source 7") || !strings.Contains(err.Error(), "freqs[0]") {
			t.Fatalf("NaN flux from the spectrum: error %v, want one naming source 7 at freqs[0]", err)
		}
	}
}

// checkSameVis checks that two runs of the same visibilities, by table and
// by spectrum, agree exactly. A backend that times its paths at start-up
// (the GPU's fused kernel) may have taken a different one for each: then
// they agree to rounding.
func checkSameVis(t *testing.T, table, spec *matvis.Result) {
	t.Helper()
	want, got := Vis(table), Vis(spec)
	if table.Stats.MatProdImpl.Fused != spec.Stats.MatProdImpl.Fused {
		if e := RelErr(got, want); !(e <= Tolerance(table.Precision)) {
			t.Fatalf("spectrum vs table (different Gram paths): max|ΔV|/max|V| = %g", e)
		}
		return
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("V[%d] = %v from the spectrum, %v from the table", i, got[i], want[i])
		}
	}
}
