package backendtest

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// TestPlainZenith checks the twin itself against the closed form of one
// zenith source and uniform beams, and that it drops a source on or below
// the horizon, however bright.
func TestPlainZenith(t *testing.T) {
	const freq = 150e6
	crd, err := matvis.NewPrecomputed(1, 3, []float64{0, 1, 0.6, 0, 0, 0, 1, 0, -0.8})
	if err != nil {
		t.Fatal(err)
	}
	ants := [][3]float64{{0, 0, 0}, {14, 0, 0}, {3, -20, 1}}
	sim := NewSim(t, matvis.Config{
		Antennas: ants, Freqs: []float64{freq}, RA: make([]float64, 3), Dec: make([]float64, 3),
		Flux: []float64{3.5, 1e9, 1e9}, Beams: []beam.Beam{beam.Uniform{}}, Coords: crd,
		Options: matvis.Options{Polarized: true},
	})
	got := Plain(t, sim)
	for k, pr := range sim.Pairs {
		du := ants[pr[1]][2] - ants[pr[0]][2]
		want := complex(1.75, 0) * cmplx.Exp(complex(0, 2*math.Pi*freq/beam.SpeedOfLight*du))
		for f := range 4 {
			if v := got[4*k+f]; cmplx.Abs(v-want) > 1e-12 {
				t.Fatalf("pair %v feeds %d: %v, want %v", pr, f, v, want)
			}
		}
	}
}

// TestRelErr: a NaN or a length mismatch never passes.
func TestRelErr(t *testing.T) {
	want := []complex128{1, 2i, -3}
	for _, c := range []struct {
		got  []complex128
		want float64
	}{
		{[]complex128{1, 2i, -3}, 0},
		{[]complex128{1, 2i, -2.7}, 0.1},
		{[]complex128{1, cmplx.NaN(), -3}, math.Inf(1)},
		{[]complex128{1, 2i}, math.Inf(1)},
	} {
		if e := RelErr(c.got, want); math.Abs(e-c.want) > 1e-12 && e != c.want {
			t.Errorf("RelErr(%v) = %g, want %g", c.got, e, c.want)
		}
	}
}

// TestRandomHorizon: Random puts about half the sources below the horizon
// and some exactly on it, for both skies.
func TestRandomHorizon(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sky := range []Sky{SkyPrecomputed, SkyRotation} {
		sim := NewSim(t, Random(t, rng, Shape{NAnt: 3, NSrc: 2000, NFreq: 1, NTime: 2}, sky, BeamsAnalytic, matvis.Options{}))
		for ti := range 2 {
			if v := Visible(t, sim, ti); v < 700 || v > 1100 {
				t.Errorf("sky %d time %d: %d of 2000 visible", sky, ti, v)
			}
		}
	}
}

// TestNewKinds: the analytic beam set already has every registered kind
// (so the suite's simulations are as they were), and from no beams
// newKinds makes one beam per type plus a diagonal-Jones one for each type
// that has the convention: the four types of package beam, three of them
// with it.
func TestNewKinds(t *testing.T) {
	if extra := randomBeams(t, BeamsAnalytic)[6:]; len(extra) != 0 {
		t.Errorf("the analytic set gained %v: a kind is missing from its list", extra)
	}
	got := newKinds(t, nil)
	var kinds []string
	for _, b := range got {
		f, err := b.(beam.Analytic).AnalyticForm(150e6)
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, fmt.Sprintf("%v/%v", f.Kind, f.Diagonal))
	}
	want := "uniform/false uniform/true gaussian/false gaussian/true airy/false airy/true short_dipole/false"
	if strings.Join(kinds, " ") != want {
		t.Errorf("newKinds(nil): %v, want %s", kinds, want)
	}
}
