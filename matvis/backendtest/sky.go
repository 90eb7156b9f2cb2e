package backendtest

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// Shape is the size of a random simulation.
type Shape struct {
	NAnt, NSrc, NFreq, NTime int
}

// Sky chooses how a random simulation gives its coordinates: the
// backends take different paths for each.
type Sky int

// The coordinate providers of a random simulation.
const (
	// SkyPrecomputed is a matvis.Precomputed table of ENU vectors.
	SkyPrecomputed Sky = iota
	// SkyRotation is an astro.MatrixRotation: fixed vectors turned by a
	// matrix per time (the GPU rotates them on the device).
	SkyRotation
)

// BeamSet chooses the beams of a random simulation.
type BeamSet int

// The beam sets.
const (
	// BeamsAnalytic mixes analytic beams of every kind.
	BeamsAnalytic BeamSet = iota
	// BeamsGridded mixes gridded beams (cubic and bilinear) with an
	// analytic one.
	BeamsGridded
)

// gridFreqs is the frequency range of the gridded beams; Random's
// channels lie inside it.
var gridFreqs = []float64{100e6, 125e6, 150e6, 175e6, 200e6}

// Random draws a fresh random simulation: antennas in a 100 m square,
// sources uniform on the sphere (about half below the horizon, a few
// exactly on it), random fluxes, beams assigned at random after each is
// given to one antenna.
func Random(t testing.TB, rng *rand.Rand, sh Shape, sky Sky, beams BeamSet, o matvis.Options) matvis.Config {
	t.Helper()
	c := matvis.Config{Options: o}
	for range sh.NAnt {
		c.Antennas = append(c.Antennas, [3]float64{rng.Float64()*100 - 50, rng.Float64()*100 - 50, rng.Float64() - 0.5})
	}
	for f := range sh.NFreq {
		c.Freqs = append(c.Freqs, 110e6+7e6*float64(f))
	}
	c.RA = make([]float64, sh.NSrc)
	c.Dec = make([]float64, sh.NSrc)
	for range sh.NSrc * sh.NFreq {
		c.Flux = append(c.Flux, 0.1+rng.Float64()*10)
	}
	switch sky {
	case SkyRotation:
		c.Coords = NewRotation(rng, sh.NTime, sh.NSrc)
	default:
		c.Coords = RandomTopo(t, rng, sh.NTime, sh.NSrc)
	}
	c.Beams = randomBeams(t, beams)
	// Every beam is used (by the first antennas) when there are enough
	// antennas, so that every beam's code is exercised by every case.
	for a := range sh.NAnt {
		b := rng.IntN(len(c.Beams))
		if a < len(c.Beams) {
			b = a
		}
		c.BeamIdx = append(c.BeamIdx, b)
	}
	return c
}

// RandomTopo returns ENU vectors uniform on the sphere; every tenth
// source lies exactly on the horizon (u = 0), which must not count.
func RandomTopo(t testing.TB, rng *rand.Rand, ntime, nsrc int) *matvis.Precomputed {
	t.Helper()
	topo := make([]float64, ntime*3*nsrc)
	for ti := range ntime {
		for s := range nsrc {
			x, y, z := unitVector(rng)
			if s%10 == 9 {
				r := math.Hypot(x, y)
				x, y, z = x/r, y/r, 0
			}
			topo[(ti*3+0)*nsrc+s], topo[(ti*3+1)*nsrc+s], topo[(ti*3+2)*nsrc+s] = x, y, z
		}
	}
	p, err := matvis.NewPrecomputed(ntime, nsrc, topo)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func unitVector(rng *rand.Rand) (x, y, z float64) {
	z = 2*rng.Float64() - 1
	phi := 2 * math.Pi * rng.Float64()
	r := math.Sqrt(1 - z*z)
	return r * math.Cos(phi), r * math.Sin(phi), z
}

func randomBeams(t testing.TB, set BeamSet) []beam.Beam {
	t.Helper()
	if set == BeamsAnalytic {
		beams := []beam.Beam{beam.Gaussian{SigmaRad: 0.4}, beam.ShortDipole{}, beam.Airy{DiameterM: 14}, beam.Uniform{},
			beam.Gaussian{DiameterM: 10}, beam.DiagonalJones{Beam: beam.Airy{DiameterM: 14}}}
		return append(beams, newKinds(t, beams)...)
	}
	g3, err := beam.NewGriddedFromAnalytic(beam.Gaussian{SigmaRad: 0.4}, gridFreqs, 72, 37)
	if err != nil {
		t.Fatal(err)
	}
	a1, err := beam.NewGriddedFromAnalytic(beam.Airy{DiameterM: 14}, gridFreqs, 72, 37)
	if err != nil {
		t.Fatal(err)
	}
	g1, err := a1.WithOrder(1)
	if err != nil {
		t.Fatal(err)
	}
	return []beam.Beam{g3, g1, beam.Gaussian{SigmaRad: 0.5}}
}

// newKinds are a beam of each registered analytic type (beam.AnalyticTypes)
// whose kind none of beams has, and its diagonal-Jones form where the type
// has one, so that every backend's evaluation of a kind added to package
// beam is checked against the twin without editing this list (the twin
// evaluates a kind it does not restate through At). Each shape value the
// type takes is given a HERA-like size.
func newKinds(t testing.TB, beams []beam.Beam) []beam.Beam {
	t.Helper()
	have := map[beam.Kind]bool{}
	for _, b := range beams {
		if a, ok := b.(beam.Analytic); ok {
			f, _ := a.AnalyticForm(gridFreqs[0])
			have[f.Kind] = true
		}
	}
	var out []beam.Beam
	for _, ty := range beam.AnalyticTypes() {
		if have[ty.Kind] {
			continue
		}
		var sh beam.Shape
		if len(ty.Shape) > 0 { // exactly one value is given
			switch ty.Shape[0] {
			case beam.ShapeSigma:
				sh.SigmaRad = 0.4
			case beam.ShapeDiameter:
				sh.DiameterM = 14
			}
		}
		b, err := ty.New(sh)
		if err != nil {
			t.Fatalf("a %s beam for the suite: %v", ty.Name, err)
		}
		out = append(out, b)
		if ty.Diagonal {
			out = append(out, beam.DiagonalJones{Beam: b})
		}
	}
	return out
}

// Rotation is an astro.MatrixRotation: fixed unit vectors turned about a
// tilted axis by a different angle at each time.
type Rotation struct {
	x, y, z []float64
	nt      int
}

// NewRotation draws n fixed unit vectors, uniform on the sphere, seen at
// nt times.
func NewRotation(rng *rand.Rand, nt, n int) *Rotation {
	r := &Rotation{x: make([]float64, n), y: make([]float64, n), z: make([]float64, n), nt: nt}
	for s := range n {
		r.x[s], r.y[s], r.z[s] = unitVector(rng)
	}
	return r
}

// NSources is the number of sources.
func (r *Rotation) NSources() int { return len(r.x) }

// NTimes is the number of times.
func (r *Rotation) NTimes() int { return r.nt }

// Matrix is a rotation about z by an angle that grows with time, then
// about x by 0.5 rad.
func (r *Rotation) Matrix(ti int) ([9]float64, error) {
	a := 0.3 + 0.1*float64(ti)
	ca, sa := math.Cos(a), math.Sin(a)
	cl, sl := math.Cos(0.5), math.Sin(0.5)
	return [9]float64{ca, -sa, 0, cl * sa, cl * ca, -sl, sl * sa, sl * ca, cl}, nil
}

// CachedVectors returns the fixed vectors, the same at every time.
func (r *Rotation) CachedVectors(int) (x, y, z []float64, err error) { return r.x, r.y, r.z, nil }

// ENU applies Matrix(ti) to the fixed vectors.
func (r *Rotation) ENU(ti int, e, n, u []float64) error {
	m, _ := r.Matrix(ti)
	for s := range r.x {
		x, y, z := r.x[s], r.y[s], r.z[s]
		e[s] = m[0]*x + m[1]*y + m[2]*z
		n[s] = m[3]*x + m[4]*y + m[5]*z
		u[s] = m[6]*x + m[7]*y + m[8]*z
	}
	return nil
}
