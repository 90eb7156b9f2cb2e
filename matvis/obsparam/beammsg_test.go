package obsparam

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/matvis/simspec"
)

// TestAnalyticBeamMessages pins the whole error (its directory written as
// DIR) of each check that beam.AnalyticTypes now drives: the type and class
// names, the fields each type takes and its shape values. The texts are
// those of the per-type tables and switches they replace (commit
// 3efd4ff), so that a user sees the same message.
func TestAnalyticBeamMessages(t *testing.T) {
	for _, c := range []struct{ name, beam, want string }{
		{"unknown type", "\n    type: cosine",
			"obsparam: DIR/telescope_config.yaml:3: beam_paths.0.type = \"cosine\": undefined beam model type: the types are uniform, gaussian, airy, short_dipole"},
		{"bare unknown", " cosine",
			"obsparam: DIR/telescope_config.yaml:2: beam_paths.0 = \"cosine\": neither an analytic beam type (uniform, gaussian, airy, short_dipole) nor a beamfits file name (.fits, .beamfits)"},
		{"gaussian no shape", "\n    type: gaussian",
			"obsparam: DIR/telescope_config.yaml:3: beam_paths.0: missing shape parameter for gaussian beam: either diameter (m) or sigma (rad) must be set"},
		{"gaussian both", "\n    type: gaussian\n    sigma: 0.1\n    diameter: 3",
			"obsparam: DIR/telescope_config.yaml:3: beam_paths.0: only one of diameter or sigma can be set for a gaussian beam"},
		{"airy no diameter", " airy",
			"obsparam: DIR/telescope_config.yaml:2: beam_paths.0 = \"airy\": missing diameter (m) for airy beam"},
		{"airy sigma", "\n    type: airy\n    sigma: 0.1",
			"obsparam: DIR/telescope_config.yaml:4: beam_paths.0.sigma = 0.1: not a field of a airy beam in this form (pyuvsim would ignore it); use the !AnalyticBeam form for more options"},
		{"uniform diameter", "\n    type: uniform\n    diameter: 3",
			"obsparam: DIR/telescope_config.yaml:4: beam_paths.0.diameter = 3: not a field of a uniform beam in this form (pyuvsim would ignore it); use the !AnalyticBeam form for more options"},
		{"tag unknown class", " !AnalyticBeam\n    class: CosBeam",
			"obsparam: DIR/telescope_config.yaml:3: beam_paths.0.class = \"CosBeam\": CosBeam is not a supported AnalyticBeam: the classes are AiryBeam, GaussianBeam, ShortDipoleBeam, UniformBeam (custom beam classes cannot be used)"},
		{"tag sigma on airy", " !AnalyticBeam\n    class: AiryBeam\n    sigma: 3",
			"obsparam: DIR/telescope_config.yaml:4: beam_paths.0.sigma = 3: not a field of AiryBeam"},
		{"tag diameter on dipole", " !AnalyticBeam\n    class: ShortDipoleBeam\n    diameter: 3",
			"obsparam: DIR/telescope_config.yaml:4: beam_paths.0.diameter = 3: not a field of ShortDipoleBeam"},
		{"tag sigma_type on airy", " !AnalyticBeam\n    class: AiryBeam\n    diameter: 3\n    sigma_type: power",
			"obsparam: DIR/telescope_config.yaml:5: beam_paths.0.sigma_type = \"power\": unknown field of AiryBeam"},
		{"tag airy no diameter", " !AnalyticBeam\n    class: AiryBeam",
			"obsparam: DIR/telescope_config.yaml:2: beam_paths.0: missing diameter (m) for airy beam"},
		{"tag gaussian both", " !AnalyticBeam\n    class: GaussianBeam\n    sigma: 0.1\n    diameter: 3",
			"obsparam: DIR/telescope_config.yaml:2: beam_paths.0: only one of diameter or sigma can be set for a gaussian beam"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeCase(t, files{tel: "beam_paths:\n  0:" + c.beam + "\n" + site, layout: oneBeamLayout})
			_, err := Read(path)
			if err == nil {
				t.Fatal("accepted")
			}
			if got := strings.ReplaceAll(err.Error(), filepath.Dir(path), "DIR"); got != c.want {
				t.Errorf("error\n %q\nwant\n %q", got, c.want)
			}
		})
	}
}

// TestGlobalShapeKinds: the telescope config's global diameter and sigma
// (pyuvsim 1.2) reach the types that take them and lack their own, the
// diameter first: a gaussian takes the diameter when both are global, and
// the sigma alone; an airy takes only the diameter.
func TestGlobalShapeKinds(t *testing.T) {
	for _, c := range []struct {
		global string
		want   []simspec.Beam
	}{
		{"diameter: 12.0\nsigma: 0.2\n", []simspec.Beam{{Type: "airy", DiameterM: 12}, {Type: "gaussian", DiameterM: 12}}},
		{"sigma: 0.2\n", []simspec.Beam{{Type: "airy"}, {Type: "gaussian", SigmaRad: 0.2}}},
	} {
		path := writeCase(t, files{tel: c.global + "beam_paths:\n  0: airy\n  1: gaussian\n" + site})
		cfg, err := Read(path)
		if c.want[0].DiameterM == 0 {
			// An airy beam has no global diameter to fall back on.
			if err == nil || !strings.Contains(err.Error(), "missing diameter (m) for airy beam") {
				t.Errorf("%q: %v, want the airy beam's missing diameter", c.global, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(cfg.Telescope.Beams, c.want) {
			t.Errorf("%q: beams %+v, want %+v", c.global, cfg.Telescope.Beams, c.want)
		}
	}
}
