package matvis

import (
	"testing"

	"github.com/gomatvis/gomatvis/matvis/beam"
)

// TestLateResultHeldBound: holding never costs more than a quarter of
// the result (maxHeld's doc, below 512 MiB): with 8 channels' integrations
// of equal size, a quarter is 2 integrations (worked by hand: 8/4), and
// never fewer than 1 with 2 channels (2/4 rounds down to 0).
func TestLateResultHeldBound(t *testing.T) {
	for _, c := range []struct {
		nfreq, want int
	}{{8, 2}, {2, 1}} {
		cfg := validConfig()
		cfg.Beams = []beam.Beam{beam.ShortDipole{}}
		cfg.Freqs, cfg.Flux = nil, nil
		for f := range c.nfreq {
			cfg.Freqs = append(cfg.Freqs, 1e8+float64(f)*1e6)
			cfg.Flux = append(cfg.Flux, 1, 2)
		}
		sim, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if sim.NTime() != 1 {
			t.Fatalf("validConfig has %d times; the hand count assumes 1", sim.NTime())
		}
		l := NewLateResult(sim, true)
		if l.maxHeld != c.want {
			t.Errorf("%d channels: maxHeld %d, want %d", c.nfreq, l.maxHeld, c.want)
		}
		l.Wait()
	}
}

// TestLateResultSubsetHasStorage: a simulation made by SubsetInto writes
// into its whole result's memory, so its late result has its storage at
// once even when asked for a background allocation, and a put lands in
// the whole result.
func TestLateResultSubsetHasStorage(t *testing.T) {
	s := lateSim(t, 2, false)
	whole := NewResult(s)
	sub, err := s.SubsetInto(Block{F0: 1, F1: 2, T0: 0, T1: 1}, whole)
	if err != nil {
		t.Fatal(err)
	}
	l := NewLateResult(sub, true)
	if !l.got {
		t.Fatal("a SubsetInto simulation's late result waits for a background allocation")
	}
	v := make([]complex128, l.perIntegration)
	v[0] = 7
	if err := l.Put128(0, 0, v); err != nil {
		t.Fatal(err)
	}
	l.Wait()
	if got := whole.At(1, 0, 0, 0, 0); got != 7 {
		t.Errorf("the whole result's channel 1: %v, want 7 put through the subset", got)
	}
}

// TestLateResultManyHeldAcrossTimes: on a grid of 3 channels × 2 times
// (so that an integration's place f·ntime + t differs from t·nfreq + f),
// every integration put before the storage exists — all 6 held — is at
// its place after Wait, element by element.
func TestLateResultManyHeldAcrossTimes(t *testing.T) {
	cfg := validConfig()
	cfg.Beams = []beam.Beam{beam.ShortDipole{}}
	crd, err := NewPrecomputed(2, 2, []float64{0, 0.1, 0, 0.2, 1, 0.9, 0.1, 0.1, 0.2, 0.2, 0.9, 0.9})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Coords = crd
	cfg.Freqs = []float64{1e8, 1.1e8, 1.2e8}
	cfg.Flux = []float64{1, 1, 1, 2, 2, 2}
	cfg.Options.Precision = 2
	sim, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if sim.NFreq() != 3 || sim.NTime() != 2 {
		t.Fatalf("grid %d × %d, want 3 × 2", sim.NFreq(), sim.NTime())
	}
	l, release := gatedLateResult(sim)
	want := map[int][]complex128{}
	for k := range 6 {
		vals := make([]complex128, l.perIntegration)
		for j := range vals {
			vals[j] = complex(float64(k+1), float64(j))
		}
		want[k] = vals
		if err := l.Put128(k/sim.NTime(), k%sim.NTime(), vals); err != nil {
			t.Fatal(err)
		}
	}
	if l.Held() != 6 {
		t.Fatalf("%d held before the storage, want 6", l.Held())
	}
	release()
	res := l.Wait()
	if l.Held() != 0 {
		t.Fatalf("%d held after Wait", l.Held())
	}
	checkLateValues(t, res, sim, want)
}
