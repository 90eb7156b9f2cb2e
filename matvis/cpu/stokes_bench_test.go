package cpu

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// stokesBenchSky is a flat full-Stokes sky (20 % linear, 5 % circular).
type stokesBenchSky struct{ s [4][]float64 }

func (p stokesBenchSky) StokesAt(_ float64, k int, dst []float64) error {
	copy(dst, p.s[k])
	return nil
}
func (p stokesBenchSky) StokesIAt(f float64, dst []float64) error { return p.StokesAt(f, 0, dst) }
func (p stokesBenchSky) Polarized() bool                          { return true }

type benchBasis struct{ ns, nt int }

func (b benchBasis) NSources() int { return b.ns }
func (b benchBasis) NTimes() int   { return b.nt }
func (b benchBasis) Basis(ti int, c, s []float64) error {
	for i := range c {
		s[i], c[i] = math.Sincos(float64(i) * 0.37)
	}
	return nil
}

// BenchmarkStokes compares one integration of a Stokes-I sky with the same
// sky carrying Q, U, V (the [stokes] issue's CPU bar: ≤ 2.5×): 64
// antennas, 20 000 sources, a polarized analytic beam.
func BenchmarkStokes(b *testing.B) {
	const nant, nsrc = 64, 20000
	rng := rand.New(rand.NewPCG(1, 2))
	c := matvis.Config{Freqs: []float64{150e6}, Beams: []beam.Beam{beam.ShortDipole{}}, Options: matvis.Options{Polarized: true}}
	for range nant {
		c.Antennas = append(c.Antennas, [3]float64{rng.Float64() * 100, rng.Float64() * 100, 0})
	}
	topo := make([]float64, 3*nsrc)
	var sky stokesBenchSky
	for k := range sky.s {
		sky.s[k] = make([]float64, nsrc)
	}
	for s := range nsrc {
		z := rng.Float64()
		phi := 2 * math.Pi * rng.Float64()
		r := math.Sqrt(1 - z*z)
		topo[s], topo[nsrc+s], topo[2*nsrc+s] = r*math.Cos(phi), r*math.Sin(phi), z
		i := 1 + rng.Float64()
		sky.s[0][s], sky.s[1][s], sky.s[2][s], sky.s[3][s] = i, 0.2*i*math.Cos(phi), 0.2*i*math.Sin(phi), 0.05*i
		c.RA, c.Dec = append(c.RA, 0), append(c.Dec, 0)
		c.Flux = append(c.Flux, i)
	}
	var err error
	if c.Coords, err = matvis.NewPrecomputed(1, nsrc, topo); err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, c matvis.Config) {
		sim, err := matvis.New(c)
		if err != nil {
			b.Fatal(err)
		}
		be := New()
		for b.Loop() {
			if _, err := be.Run(context.Background(), sim); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("I", func(b *testing.B) { run(b, c) })
	c.Flux, c.Sky, c.PolBasis = nil, sky, benchBasis{nsrc, 1}
	b.Run("IQUV", func(b *testing.B) { run(b, c) })
}
