package input

import (
	"github.com/gomatvis/gomatvis/matvis"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis/simspec"
)

// TestDefaultRotationIAU: the IAU rotation (with the exact local mapping,
// FDBasis) is the default of a simspec and a pyuvsim configuration, as of
// a library Config (matvis's TestDefaultRotationIAULibrary), and
// RotationPyradiosky (with pyradiosky's RigidBasis) stays selectable; the
// outputs' history names the one that ran.
func TestDefaultRotationIAU(t *testing.T) {
	root := sharedtest.Dir(t)
	spec, err := simspec.ReadFile(filepath.Join(root, "specs", "fullstokes-airy.json"))
	if err != nil {
		t.Fatal(err)
	}
	obsPath := filepath.Join(root, "reference", "pyuvsim-fullstokes-airy", "obsparam.yaml")
	for _, rot := range []matvis.CoherencyRotation{"", matvis.RotationIAU, matvis.RotationPyradiosky} {
		want := matvis.EffectiveRotation(rot)
		check := func(input string, sim *matvis.Simulation, obs *matvis.Observation) {
			t.Helper()
			if sim.Options.Rotation != want {
				t.Errorf("%s, rotation %q: runs %q, want %q", input, rot, sim.Options.Rotation, want)
			}
			switch b := sim.PolBasis.(type) {
			case *matvis.FDBasis:
				if want != matvis.RotationIAU {
					t.Errorf("%s, rotation %q: FDBasis, want RigidBasis", input, rot)
				}
			case *matvis.RigidBasis:
				if want != matvis.RotationPyradiosky {
					t.Errorf("%s, rotation %q: RigidBasis, want FDBasis", input, rot)
				}
			default:
				t.Errorf("%s, rotation %q: basis %T", input, rot, b)
			}
			if obs != nil && !strings.Contains(obs.History, matvis.RotationNote(want)) {
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
	if _, ok := s.PolBasis.(*matvis.FDBasis); !ok || s.Options.Rotation != matvis.RotationIAU || !strings.Contains(obs.History, "Stokes rotation: iau") {
		t.Errorf("obsparam, nil options: rotation %q, basis %T, history %q; want iau, FDBasis, named", s.Options.Rotation, s.PolBasis, obs.History)
	}
	if s, obs, err = FromSpecObservation(spec, nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.PolBasis.(*matvis.FDBasis); !ok || s.Options.Rotation != matvis.RotationIAU || !strings.Contains(obs.History, "Stokes rotation: iau") {
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
