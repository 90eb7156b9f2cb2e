package nufftcpu

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/cpu"
)

// stokesTable is a full-Stokes sky with fixed Stokes parameters per
// source, the same at every frequency.
type stokesTable [4][]float64

func (s stokesTable) StokesAt(_ float64, k int, dst []float64) error {
	copy(dst, s[k])
	return nil
}
func (s stokesTable) StokesIAt(f float64, dst []float64) error { return s.StokesAt(f, 0, dst) }
func (s stokesTable) Polarized() bool                          { return true }

// angleTable is a matvis.PolBasis of fixed angles per time and source.
type angleTable struct {
	nt, ns int
	x      []float64
}

func (b angleTable) NSources() int { return b.ns }
func (b angleTable) NTimes() int   { return b.nt }
func (b angleTable) Basis(ti int, c, s []float64) error {
	for i := range c {
		s[i], c[i] = math.Sincos(b.x[ti*b.ns+i])
	}
	return nil
}

// randomStokesSky gives c a random full-Stokes sky (polarized fractions
// up to 1, a few over-polarized sources, which the transform takes like
// any other) and random basis angles.
func randomStokesSky(rng *rand.Rand, c *matvis.Config, ntime int) {
	n := len(c.RA)
	var st stokesTable
	for k := range st {
		st[k] = make([]float64, n)
	}
	for s := range n {
		i := 0.1 + 10*rng.Float64()
		frac := rng.Float64()
		if s%9 == 4 {
			frac += 1
		}
		th, ph := math.Acos(2*rng.Float64()-1), 2*math.Pi*rng.Float64()
		st[0][s], st[1][s] = i, frac*i*math.Sin(th)*math.Cos(ph)
		st[2][s], st[3][s] = frac*i*math.Sin(th)*math.Sin(ph), frac*i*math.Cos(th)
	}
	b := angleTable{ntime, n, make([]float64, ntime*n)}
	for i := range b.x {
		b.x[i] = 2 * math.Pi * rng.Float64()
	}
	c.Flux, c.Sky, c.PolBasis = nil, st, b
}

// TestFullStokes compares full-Stokes skies on the transform with the
// direct CPU backend, fresh random simulations into poisoned outputs:
// both rotations, one shared beam (the paired transforms) and two beam
// groups (the mirrored jobs), all pairs and chosen pairs, coplanar and
// with w-terms; max|ΔV|/max|V| at most 10·ε, 1e-10 at 1e-12.
func TestFullStokes(t *testing.T) {
	rng := backendtest.NewRNG(t, 60)
	direct := cpu.New()
	for _, tc := range []struct {
		name   string
		rot    matvis.CoherencyRotation
		groups int
		pairs  bool
		dz     float64
		eps    float64
	}{
		{"iau shared 1e-12", matvis.RotationIAU, 1, false, 0, 1e-12},
		{"pyradiosky shared 1e-12", matvis.RotationPyradiosky, 1, false, 0, 1e-12},
		{"iau shared 1e-6", matvis.RotationIAU, 1, false, 0, 1e-6},
		{"iau 2 groups 1e-12", matvis.RotationIAU, 2, false, 0, 1e-12},
		{"iau 2 groups chosen pairs 1e-9", matvis.RotationIAU, 2, true, 0, 1e-9},
		{"iau shared chosen pairs w-terms 1e-12", matvis.RotationIAU, 1, true, 0.4, 1e-12},
		{"pyradiosky 2 groups w-terms 1e-9", matvis.RotationPyradiosky, 2, false, 0.4, 1e-9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := sharedConfig(t, rng, 9, 1000, 2, 50, tc.dz)
			c.Options.Polarized, c.Options.Rotation = true, tc.rot
			c.Beams = []beam.Beam{beam.ShortDipole{}, beam.Airy{DiameterM: 12}}[:tc.groups]
			if tc.groups > 1 {
				c.BeamIdx = make([]int, len(c.Antennas))
				for a := range c.BeamIdx {
					c.BeamIdx[a] = a % 2
				}
			}
			if tc.pairs {
				c.Options.AntPairs = [][2]int{{0, 1}, {1, 0}, {3, 3}, {2, 7}, {8, 4}, {5, 8}, {1, 2}}
			}
			randomStokesSky(rng, &c, 2)
			sim := backendtest.NewSim(t, c)
			got, want := forcedAndDirect(t, tc.eps, sim, direct)
			impl := got.Stats.MatProdImpl
			if !strings.Contains(impl.Strategy, "nufft type 3") {
				t.Fatalf("strategy %q, why %q: want the transform", impl.Strategy, impl.Why)
			}
			checkAgainstDirect(t, got, want, tc.eps)
		})
	}
}
