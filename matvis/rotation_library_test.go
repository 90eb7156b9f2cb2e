package matvis

import (
	"testing"

	"github.com/gomatvis/gomatvis/matvis/beam"
)

// TestDefaultRotationIAULibrary: a library Config's "" rotation settles to
// RotationIAU, and LocalCoherency reads "" as it (the inputs' defaults:
// matvis/input's TestDefaultRotationIAU).
func TestDefaultRotationIAULibrary(t *testing.T) {
	// Library Config: "" settles to RotationIAU, and LocalCoherency reads
	// "" as it.
	sky := rigid{lat: -0.5, lst: []float64{0}, ra: []float64{0}, dec: []float64{-0.5}}
	sim, err := New(Config{
		Antennas: [][3]float64{{0, 0, 0}}, Freqs: []float64{1e8}, RA: sky.ra, Dec: sky.dec,
		Sky: polSky{}, Coords: sky, Beams: []beam.Beam{beam.ShortDipole{}},
		PolBasis: fixedBasis{1, 1}, Options: Options{Polarized: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	if sim.Options.Rotation != RotationIAU {
		t.Errorf("Config: rotation %q, want %q", sim.Options.Rotation, RotationIAU)
	}
	if got, want := LocalCoherency(1, 0.6, 0.3, 0.1, 0.8, 0.6, ""), LocalCoherency(1, 0.6, 0.3, 0.1, 0.8, 0.6, RotationIAU); got != want {
		t.Errorf(`LocalCoherency(""): %v, want the IAU rotation's %v`, got, want)
	}
}
