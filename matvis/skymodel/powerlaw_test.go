package skymodel

import (
	"math"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// TestPowerLawI: a spectral-index sky's PowerLawI gives S_ref, α and
// ln f_ref from which S_ref·exp(α·(ln f − ln f_ref)) is, bit for bit, what
// StokesIAt returns (the formula a backend repeats on its own), with
// ln f_ref = math.Log(f_ref); every other Stokes I model says no.
func TestPowerLawI(t *testing.T) {
	rng := sharedtest.RNG(t, 1)
	const n = 3000
	c := Components{RA: make([]float64, n), Dec: make([]float64, n), Spectral: SpectralIndex,
		RefFreq: make([]float64, n), Index: make([]float64, n)}
	c.Stokes[I] = make([]float64, n)
	for i := range n {
		c.Stokes[I][i], c.RefFreq[i], c.Index[i] = 10*rng.Float64(), 50e6+200e6*rng.Float64(), -3+4*rng.Float64()
	}
	s, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	sref, index, lnRef, ok := s.PowerLawI()
	if !ok || len(sref) != n || len(index) != n || len(lnRef) != n {
		t.Fatalf("PowerLawI of a spectral-index sky: ok %v, lengths %d %d %d", ok, len(sref), len(index), len(lnRef))
	}
	got := make([]float64, n)
	for range 5 {
		f := 40e6 + 300e6*rng.Float64()
		if err := s.StokesIAt(f, got); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if lnRef[i] != math.Log(c.RefFreq[i]) || sref[i] != c.Stokes[I][i] || index[i] != c.Index[i] {
				t.Fatalf("source %d: PowerLawI gives (%v, %v, %v) for S_ref %v, α %v, f_ref %v", i, sref[i], index[i], lnRef[i], c.Stokes[I][i], c.Index[i], c.RefFreq[i])
			}
			if w := sref[i] * math.Exp(index[i]*(math.Log(f)-lnRef[i])); got[i] != w {
				t.Fatalf("source %d at %g Hz: StokesIAt %v, the power law %v", i, f, got[i], w)
			}
		}
	}

	flat := Components{RA: make([]float64, 2), Dec: make([]float64, 2), Spectral: Flat}
	flat.Stokes[I] = []float64{1, 2}
	zeroI := Components{RA: make([]float64, 2), Dec: make([]float64, 2), Spectral: SpectralIndex, RefFreq: []float64{1e8, 1e8}, Index: []float64{-1, 0}}
	zeroI.Stokes[I] = []float64{0, 0}
	zeroI.Stokes[1] = []float64{1, 0}
	for name, c := range map[string]Components{"flat": flat, "zero Stokes I": zeroI} {
		s, err := New(c)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, _, _, ok := s.PowerLawI(); ok {
			t.Errorf("%s: PowerLawI says ok", name)
		}
	}
	s.kelvin = true // a spectral-index map in K·sr: converted after the law
	if _, _, _, ok := s.PowerLawI(); ok {
		t.Error("a sky in K·sr: PowerLawI says ok")
	}
}
