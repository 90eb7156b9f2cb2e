package matvis

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/simspec"
)

// TestDefaultRotationIAU: the IAU rotation (with the exact local mapping,
// FDBasis) is the default of every input — a library Config, a simspec and
// a pyuvsim configuration — and RotationPyradiosky (with pyradiosky's
// RigidBasis) stays selectable; the outputs' history names the one that
// ran.
func TestDefaultRotationIAU(t *testing.T) {
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
	root := sharedtest.Dir(t)
	spec, err := simspec.ReadFile(filepath.Join(root, "specs", "fullstokes-airy.json"))
	if err != nil {
		t.Fatal(err)
	}
	obsPath := filepath.Join(root, "reference", "pyuvsim-fullstokes-airy", "obsparam.yaml")
	for _, rot := range []CoherencyRotation{"", RotationIAU, RotationPyradiosky} {
		want := EffectiveRotation(rot)
		check := func(input string, sim *Simulation, obs *Observation) {
			t.Helper()
			if sim.Options.Rotation != want {
				t.Errorf("%s, rotation %q: runs %q, want %q", input, rot, sim.Options.Rotation, want)
			}
			switch b := sim.PolBasis.(type) {
			case *FDBasis:
				if want != RotationIAU {
					t.Errorf("%s, rotation %q: FDBasis, want RigidBasis", input, rot)
				}
			case *RigidBasis:
				if want != RotationPyradiosky {
					t.Errorf("%s, rotation %q: RigidBasis, want FDBasis", input, rot)
				}
			default:
				t.Errorf("%s, rotation %q: basis %T", input, rot, b)
			}
			if obs != nil && !strings.Contains(obs.History, RotationNote(want)) {
				t.Errorf("%s, rotation %q: history %q does not name the rotation", input, rot, obs.History)
			}
			if obs != nil && !strings.Contains(obs.History, "Stokes rotation: "+string(want)) {
				t.Errorf("%s, rotation %q: history %q does not say %q", input, rot, obs.History, want)
			}
		}
		s, err := FromSpec(spec, &SpecOptions{Rotation: rot})
		if err != nil {
			t.Fatal(err)
		}
		check("simspec", s, nil)
		s, obs, err := FromSpecObservation(spec, &SpecOptions{Rotation: rot})
		if err != nil {
			t.Fatal(err)
		}
		check("simspec (UVH5)", s, obs)
		s, obs, err = FromObsParam(obsPath, &ObsOptions{Rotation: rot})
		if err != nil {
			t.Fatal(err)
		}
		check("obsparam", s, obs)
	}
	// nil options: the default too.
	s, obs, err := FromObsParam(obsPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.PolBasis.(*FDBasis); !ok || s.Options.Rotation != RotationIAU || !strings.Contains(obs.History, "Stokes rotation: iau") {
		t.Errorf("obsparam, nil options: rotation %q, basis %T, history %q; want iau, FDBasis, named", s.Options.Rotation, s.PolBasis, obs.History)
	}
	if s, obs, err = FromSpecObservation(spec, nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.PolBasis.(*FDBasis); !ok || s.Options.Rotation != RotationIAU || !strings.Contains(obs.History, "Stokes rotation: iau") {
		t.Errorf("simspec, nil options: rotation %q, basis %T, history %q; want iau, FDBasis, named", s.Options.Rotation, s.PolBasis, obs.History)
	}
	// A Stokes-I sky's history says nothing of a rotation.
	_, obs, err = FromObsParam(filepath.Join(root, "reference", "pyuvsim-stokesI-gaussian", "obsparam.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(obs.History, "Stokes rotation") {
		t.Errorf("Stokes-I sky: history %q names a rotation", obs.History)
	}
}
