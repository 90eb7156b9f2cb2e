package matvis

import (
	"context"
	"slices"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// TestSubsetWindowsPolBasis: the simulation of a block of times of a
// full-Stokes run carries the polarization basis of those times — at
// subset time i exactly the full basis at time T0 + i — keeping the
// basis's type for the bases matvis builds (a backend that computes them
// itself, as the GPU does, must still recognise them) and windowing any
// other.
func TestSubsetWindowsPolBasis(t *testing.T) {
	rng := sharedtest.RNG(t, 7)
	sky := rigid{lat: -0.5361, lst: []float64{0, 0.4, 0.9, 1.3, 2.2}}
	for range 50 {
		sky.ra = append(sky.ra, 6.283*rng.Float64())
		sky.dec = append(sky.dec, -1.2+2.4*rng.Float64())
	}
	mk := func(ra, dec []float64) (Coordinates, error) { return rigid{sky.lat, sky.lst, ra, dec}, nil }
	fd, err := NewFDBasis(mk, sky.ra, sky.dec, 0)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := NewRigidBasis(mk, sky.ra, sky.dec)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		basis PolBasis
	}{{"fd", fd}, {"rigid", rb}, {"other", shifted{fd}}} {
		sim, err := New(Config{Antennas: [][3]float64{{0, 0, 0}, {14, 0, 0}}, Freqs: []float64{1e8, 1.1e8}, RA: sky.ra, Dec: sky.dec,
			Sky: polSky{}, Coords: sky, Beams: []beam.Beam{beam.ShortDipole{}}, PolBasis: tc.basis, Options: Options{Polarized: true}})
		if err != nil {
			t.Fatal(err)
		}
		sub, err := sim.Subset(Block{F0: 1, F1: 2, T0: 2, T1: 5})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got, want := sub.PolBasis.NTimes(), 3; got != want {
			t.Fatalf("%s: the block's basis has %d times, want %d", tc.name, got, want)
		}
		switch tc.basis.(type) {
		case *FDBasis:
			if _, ok := sub.PolBasis.(*FDBasis); !ok {
				t.Errorf("%s: the block's basis is a %T", tc.name, sub.PolBasis)
			}
		case *RigidBasis:
			if _, ok := sub.PolBasis.(*RigidBasis); !ok {
				t.Errorf("%s: the block's basis is a %T", tc.name, sub.PolBasis)
			}
		}
		n := len(sky.ra)
		c0, s0, c1, s1 := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range 3 {
			if err := tc.basis.Basis(2+i, c0, s0); err != nil {
				t.Fatal(err)
			}
			if err := sub.PolBasis.Basis(i, c1, s1); err != nil {
				t.Fatal(err)
			}
			for s := range n {
				if c0[s] != c1[s] || s0[s] != s1[s] {
					t.Fatalf("%s: block time %d, source %d: (%v, %v), full run's time %d (%v, %v)", tc.name, i, s, c1[s], s1[s], 2+i, c0[s], s0[s])
				}
			}
		}
		if err := sub.PolBasis.Basis(3, c1, s1); err == nil {
			t.Errorf("%s: time 3 of a 3-time block: no error", tc.name)
		}
	}
}

// shifted is a PolBasis of a type matvis does not know.
type shifted struct{ b PolBasis }

func (s shifted) NSources() int                            { return s.b.NSources() }
func (s shifted) NTimes() int                              { return s.b.NTimes() }
func (s shifted) Basis(ti int, cosX, sinX []float64) error { return s.b.Basis(ti, cosX, sinX) }

// askedCoords are coordinates that record the times asked for ahead.
type askedCoords struct {
	Coordinates
	asked []int
}

func (c *askedCoords) PrefetchENU(_ context.Context, ti int) { c.asked = append(c.asked, ti) }

// TestWindowPrefetchENU: a block's coordinates pass a time asked for
// ahead on as the whole run's time (T0 + i), and ignore times outside
// the block.
func TestWindowPrefetchENU(t *testing.T) {
	sky := rigid{lat: -0.5361, lst: []float64{0, 0.4, 0.9, 1.3, 2.2}, ra: []float64{0.1, 2}, dec: []float64{-0.5, 0.2}}
	ac := &askedCoords{Coordinates: sky}
	sim, err := New(Config{Antennas: [][3]float64{{0, 0, 0}, {14, 0, 0}}, Freqs: []float64{1e8}, RA: sky.ra, Dec: sky.dec,
		Flux: []float64{1, 2}, Coords: ac, Beams: []beam.Beam{beam.Gaussian{SigmaRad: 0.3}}})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := sim.Subset(Block{F0: 0, F1: 1, T0: 2, T1: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, ti := range []int{0, 2, -1, 3} {
		PrefetchENU(context.Background(), sub.Coords, ti)
	}
	if want := []int{2, 4}; !slices.Equal(ac.asked, want) {
		t.Errorf("block times 0, 2, −1, 3 asked the whole run for %v, want %v", ac.asked, want)
	}
}

// TestSubsetSharesPairs: a block's simulation holds its run's baselines
// (all nant² when none were chosen, or the chosen ones in their order)
// without copying them, while New still copies a caller's AntPairs, which
// the caller may change afterwards.
func TestSubsetSharesPairs(t *testing.T) {
	ants := [][3]float64{{0, 0, 0}, {14, 0, 0}, {0, 14, 0}}
	for _, chosen := range [][][2]int{nil, {{0, 1}, {2, 0}, {1, 1}}} {
		given := slices.Clone(chosen)
		sim, err := New(Config{Antennas: ants, Freqs: []float64{1e8, 1.1e8}, RA: []float64{0.1}, Dec: []float64{-0.5},
			Flux: []float64{1, 2}, Coords: rigid{lat: -0.5, lst: []float64{0, 1}, ra: []float64{0.1}, dec: []float64{-0.5}},
			Beams: []beam.Beam{beam.ShortDipole{}}, Options: Options{AntPairs: given}})
		if err != nil {
			t.Fatal(err)
		}
		if given != nil {
			given[0] = [2]int{2, 2} // the caller's slice, changed after New
		}
		sub, err := sim.Subset(Block{F0: 1, F1: 2, T0: 1, T1: 2})
		if err != nil {
			t.Fatal(err)
		}
		want := chosen
		if want == nil {
			for i := range 3 {
				for j := range 3 {
					want = append(want, [2]int{i, j})
				}
			}
		}
		if !slices.Equal(sim.Pairs, want) || !slices.Equal(sub.Pairs, want) {
			t.Errorf("chosen %v: pairs %v, the block's %v, want %v", chosen, sim.Pairs, sub.Pairs, want)
		}
		if &sub.Pairs[0] != &sim.Pairs[0] {
			t.Errorf("chosen %v: the block copied its run's pairs", chosen)
		}
	}
}
