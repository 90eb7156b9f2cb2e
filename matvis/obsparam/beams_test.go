package obsparam

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/matvis/simspec"
)

const site = "telescope_location: (-30.7, 21.4, 1051.0)\ntelescope_name: T\n"

// oneBeamLayout puts every antenna on beam 0.
const oneBeamLayout = "Name Number BeamID E N U\nA0 0 0 0 0 0\nA1 1 0 14 0 0\n"

func TestBeamForms(t *testing.T) {
	sigma := 0.1 // a variable: pyuvdata multiplies in float64, not exactly
	cases := []struct {
		name  string
		beam  string // the YAML of beam_paths entry 0, indented by 4
		want  simspec.Beam
		feeds []int // the default polarizations that follow
	}{
		{"bare uniform", " uniform", simspec.Beam{Type: "uniform"}, []int{-5, -6, -7, -8}},
		{"bare short_dipole", " short_dipole", simspec.Beam{Type: "short_dipole"}, nil},
		{"dict gaussian sigma", "\n    type: gaussian\n    sigma: 0.25", simspec.Beam{Type: "gaussian", SigmaRad: 0.25}, nil},
		{"dict gaussian diameter", "\n    type: gaussian\n    diameter: 14", simspec.Beam{Type: "gaussian", DiameterM: 14}, nil},
		{"dict airy", "\n    type: airy\n    diameter: 6.0", simspec.Beam{Type: "airy", DiameterM: 6}, nil},
		{"dict uniform", "\n    type: uniform", simspec.Beam{Type: "uniform"}, nil},
		{"tag airy", " !AnalyticBeam\n    class: AiryBeam\n    diameter: 16", simspec.Beam{Type: "airy", DiameterM: 16}, nil},
		{"tag gaussian module", " !AnalyticBeam\n    class: pyuvdata.GaussianBeam\n    diameter: 14", simspec.Beam{Type: "gaussian", DiameterM: 14}, nil},
		{"tag gaussian sigma", " !AnalyticBeam\n    class: GaussianBeam\n    sigma: 0.03\n    spectral_index: 0.0\n    reference_frequency: 1.2e8",
			simspec.Beam{Type: "gaussian", SigmaRad: 0.03}, nil},
		{"tag gaussian power sigma", " !AnalyticBeam\n    class: GaussianBeam\n    sigma: 0.1\n    sigma_type: power",
			simspec.Beam{Type: "gaussian", SigmaRad: sigma * math.Sqrt2}, nil},
		{"tag uniform", " !AnalyticBeam\n    class: UniformBeam", simspec.Beam{Type: "uniform"}, nil},
		{"tag short dipole x feed", " !AnalyticBeam\n    class: ShortDipoleBeam\n    feed_array: [x]", simspec.Beam{Type: "short_dipole"}, []int{-5}},
		{"tag y feed", " !AnalyticBeam\n    class: UniformBeam\n    feed_array: [y]\n    feed_angle: [0.0]\n    mount_type: fixed\n    x_orientation: east",
			simspec.Beam{Type: "uniform"}, []int{-6}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := mustRead(t, files{tel: "beam_paths:\n  0:" + tc.beam + "\n" + site, layout: oneBeamLayout})
			if len(c.Telescope.Beams) != 1 || c.Telescope.Beams[0] != tc.want {
				t.Errorf("beams %+v, want [%+v]", c.Telescope.Beams, tc.want)
			}
			want := tc.feeds
			if want == nil {
				want = []int{-5, -6, -7, -8}
			}
			if !reflect.DeepEqual(c.Pols, want) {
				t.Errorf("default pols %v, want %v", c.Pols, want)
			}
		})
	}
}

func TestBeamFiles(t *testing.T) {
	dir := t.TempDir()
	beam := filepath.Join(dir, "hera.beamfits")
	other := filepath.Join(dir, "beam.dat")
	for _, p := range []string{beam, other} {
		if err := os.WriteFile(p, []byte("SIMPLE"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct{ name, beam, want string }{
		{"string path", " " + beam, beam},
		{"dict filename", "\n    filename: " + beam, beam},
		{"tag UVBeam", " !UVBeam\n    filename: " + beam + "\n    run_check: false\n    mount_type: fixed", beam},
		{"path_variable", " !UVBeam\n    filename: hera.beamfits\n    path_variable: " + dir, beam},
		{"file_type", "\n    filename: " + other + "\n    file_type: beamfits", other},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := mustRead(t, files{tel: "beam_paths:\n  0:" + tc.beam + "\n" + site, layout: oneBeamLayout})
			if got := c.Telescope.Beams[0]; got != (simspec.Beam{Type: "beamfits", Path: tc.want}) {
				t.Errorf("beam %+v, want beamfits %s", got, tc.want)
			}
		})
	}
	t.Run("relative beside the telescope config", func(t *testing.T) {
		p := writeCase(t, files{tel: "beam_paths:\n  0:\n    filename: rel.beamfits\n" + site, layout: oneBeamLayout})
		rel := filepath.Join(filepath.Dir(p), "rel.beamfits")
		if err := os.WriteFile(rel, []byte("SIMPLE"), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := Read(p)
		if err != nil {
			t.Fatal(err)
		}
		if c.Telescope.Beams[0].Path != rel || !hasWarning(c, "not in the working directory") {
			t.Errorf("path %q warnings %q", c.Telescope.Beams[0].Path, c.Warnings)
		}
	})
}

func TestBeamErrors(t *testing.T) {
	cases := []struct {
		name, tel string
		frags     []string
	}{
		{"unknown type", "beam_paths:\n  0:\n    type: cosine\n", []string{"beam_paths.0.type", "undefined beam model type"}},
		{"no type or filename", "beam_paths:\n  0:\n    diameter: 3\n", []string{"beam_paths.0", "either a 'filename' field"}},
		{"gaussian no shape", "beam_paths:\n  0:\n    type: gaussian\n", []string{"either diameter (m) or sigma (rad)"}},
		{"gaussian both", "beam_paths:\n  0:\n    type: gaussian\n    sigma: 0.1\n    diameter: 3\n", []string{"only one of diameter or sigma"}},
		{"airy no diameter", "beam_paths:\n  0: airy\n", []string{"missing diameter"}},
		{"airy sigma", "beam_paths:\n  0:\n    type: airy\n    sigma: 0.1\n", []string{"beam_paths.0.sigma", "not a field of a airy beam"}},
		{"negative diameter", "beam_paths:\n  0:\n    type: airy\n    diameter: -6\n", []string{"beam_paths.0.diameter", "must be positive"}},
		{"unknown dict field", "beam_paths:\n  0:\n    type: gaussian\n    sigma: 0.1\n    sigma_type: power\n", []string{"beam_paths.0.sigma_type", "!AnalyticBeam form"}},
		{"tag no class", "beam_paths:\n  0: !AnalyticBeam\n    diameter: 3\n", []string{"must specify a class"}},
		{"tag unknown class", "beam_paths:\n  0: !AnalyticBeam\n    class: CosBeam\n", []string{"CosBeam is not a supported AnalyticBeam"}},
		{"tag custom module", "beam_paths:\n  0: !AnalyticBeam\n    class: mymod.GaussianBeam\n    sigma: 0.1\n", []string{"custom beam classes"}},
		{"tag lowercase class", "beam_paths:\n  0: !AnalyticBeam\n    class: uniform\n", []string{"uniform is not a supported AnalyticBeam"}},
		{"tag unknown field", "beam_paths:\n  0: !AnalyticBeam\n    class: AiryBeam\n    diameter: 3\n    radius: 1\n", []string{"beam_paths.0.radius", "unknown field of AiryBeam"}},
		{"tag sigma on airy", "beam_paths:\n  0: !AnalyticBeam\n    class: AiryBeam\n    sigma: 3\n", []string{"not a field of AiryBeam"}},
		{"spectral index", "beam_paths:\n  0: !AnalyticBeam\n    class: GaussianBeam\n    sigma: 0.1\n    spectral_index: -1.5\n    reference_frequency: 1.2e8\n", []string{"chromatic sigma"}},
		{"bad sigma_type", "beam_paths:\n  0: !AnalyticBeam\n    class: GaussianBeam\n    sigma: 0.1\n    sigma_type: voltage\n", []string{"sigma_type must be 'efield' or 'power'"}},
		{"north", "beam_paths:\n  0: !AnalyticBeam\n    class: ShortDipoleBeam\n    x_orientation: north\n", []string{"x_orientation east"}},
		{"feed angle", "beam_paths:\n  0: !AnalyticBeam\n    class: ShortDipoleBeam\n    feed_angle: [0, 0]\n", []string{"default feed angles"}},
		{"feed e", "beam_paths:\n  0: !AnalyticBeam\n    class: UniformBeam\n    feed_array: [e, n]\n", []string{`feed "e" is not supported`}},
		{"mount", "beam_paths:\n  0: !AnalyticBeam\n    class: UniformBeam\n    mount_type: alt-az\n", []string{"only fixed mounts"}},
		{"unknown tag", "beam_paths:\n  0: !CosBeam\n    diameter: 3\n", []string{"unknown YAML tag !CosBeam"}},
		{"UVBeam no filename", "beam_paths:\n  0: !UVBeam\n    file_type: beamfits\n", []string{"must specify a filename"}},
		{"UVBeam option", "beam_paths:\n  0: !UVBeam\n    filename: x.beamfits\n    pixels_per_deg: 1\n", []string{"beam_paths.0.pixels_per_deg", "not supported"}},
		{"path_variable module", "beam_paths:\n  0: !UVBeam\n    filename: HERA_NicCST.beamfits\n    path_variable: pyuvsim.data.DATA_PATH\n    mount_type: fixed\n",
			[]string{"beam_paths.0.path_variable", "Python module variable"}},
		{"UVBeam mount", "beam_paths:\n  0: !UVBeam\n    filename: x.beamfits\n    mount_type: phased\n", []string{"beam_paths.0.mount_type", `"phased"`, "only fixed"}},
		{"URL beam", "beam_paths:\n  0: !UVBeam\n    filename: http://example.org/b.beamfits\n", []string{"URLs are not supported"}},
		{"mwa file", "beam_paths:\n  0:\n    filename: mwa_full_EE_test.h5\n", []string{"only beamfits beam files"}},
		{"missing file", "beam_paths:\n  0: nowhere.beamfits\n", []string{"beam_paths.0", "file not found", "nowhere.beamfits"}},
		{"bare unknown", "beam_paths:\n  0: cosine\n", []string{"beam_paths.0", `"cosine"`, "neither an analytic beam type"}},
		{"string key", "beam_paths:\n  '0': uniform\n", []string{"beam ids must be integers"}},
		{"beam list", "beam_paths:\n  0: [1, 2]\n", []string{"a beam must be"}},
		{"beam_paths list", "beam_paths: [uniform]\n", []string{"beam_paths", "must be a mapping"}},
		{"mixed feeds", "beam_paths:\n  0: !AnalyticBeam\n    class: UniformBeam\n    feed_array: [x]\n  1: uniform\n", []string{"beam_paths.1", "all beams must have the same feeds"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			layout := oneBeamLayout
			if strings.Contains(tc.tel, "\n  1:") {
				layout = testLayout
			}
			_, err := readCase(t, files{tel: tc.tel + site, layout: layout})
			wantErr(t, err, append(tc.frags, "telescope_config.yaml")...)
		})
	}
}

func TestGlobalShapeFallback(t *testing.T) {
	c := mustRead(t, files{tel: "diameter: 12.0\nbeam_paths:\n  0: airy\n  1: gaussian\n" + site})
	want := []simspec.Beam{{Type: "airy", DiameterM: 12}, {Type: "gaussian", DiameterM: 12}}
	if !reflect.DeepEqual(c.Telescope.Beams, want) || !hasWarning(c, "global diameter/sigma") {
		t.Errorf("beams %+v warnings %q", c.Telescope.Beams, c.Warnings)
	}
	c = mustRead(t, files{tel: "sigma: 0.2\nbeam_paths:\n  0: uniform\n  1: uniform\n" + site})
	if !hasWarning(c, "diameter/sigma", "ignored") {
		t.Errorf("unused global sigma not reported: %q", c.Warnings)
	}
}

func TestTelescopeConfigKeys(t *testing.T) {
	beams := "beam_paths:\n  0: uniform\n  1: uniform\n"
	cases := []struct {
		name, tel string
		check     func(*testing.T, *Config)
	}{
		{"list location", beams + "telescope_location: [-30.5, 21.0, 1000]\ntelescope_name: X\n", func(t *testing.T, c *Config) {
			if tl := c.Telescope; tl.LatDeg != -30.5 || tl.LonDeg != 21 || tl.AltM != 1000 || tl.Name != "X" {
				t.Errorf("%+v", tl)
			}
		}},
		{"numeric name", beams + "telescope_location: '[1, 2, 3,]'\ntelescope_name: 128\n", func(t *testing.T, c *Config) {
			if tl := c.Telescope; tl.LatDeg != 1 || tl.AltM != 3 || tl.Name != "128" {
				t.Errorf("%+v", tl)
			}
		}},
		{"linear spline", beams + site + "spline_interp_opts:\n  kx: 1\n  ky: 1\n  s: 0\nfreq_interp_kind: linear\n", func(t *testing.T, c *Config) {
			if c.Telescope.SplineOrder != 1 || c.Telescope.FreqInterpKind != "linear" {
				t.Errorf("%+v", c.Telescope)
			}
		}},
		{"unknown key warns", beams + site + "colour: blue\n", func(t *testing.T, c *Config) {
			if !hasWarning(c, "telescope_config.yaml:6", "colour", "unknown telescope config key") {
				t.Errorf("%q", c.Warnings)
			}
		}},
		{"select without beam files", beams + site + "select:\n  freq_buffer: 1.0e+6\n", func(t *testing.T, c *Config) {
			if !hasWarning(c, "select.freq_buffer", "no beam file is used") {
				t.Errorf("%q", c.Warnings)
			}
		}},
		{"unused beam id", beams + "  7: cosine\n" + site, func(t *testing.T, c *Config) {
			if !hasWarning(c, "beam id(s) 7 are not used") {
				t.Errorf("%q", c.Warnings)
			}
		}},
		{"earth", beams + site + "world: earth\n", func(t *testing.T, c *Config) {}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, mustRead(t, files{tel: tc.tel})) })
	}
}

func TestTelescopeConfigErrors(t *testing.T) {
	beams := "beam_paths:\n  0: uniform\n  1: uniform\n"
	cases := []struct {
		name, tel string
		frags     []string
	}{
		{"no beam_paths", site, []string{"beam_paths", "required"}},
		{"no location", beams + "telescope_name: T\n", []string{"telescope_location", "required"}},
		{"no name", beams + "telescope_location: (1, 2, 3)\n", []string{"telescope_name", "required"}},
		{"two values", beams + "telescope_location: (1, 2)\ntelescope_name: T\n", []string{"three values"}},
		{"garbage location", beams + "telescope_location: here\ntelescope_name: T\n", []string{"telescope_config.yaml:4", "telescope_location", `"here"`}},
		{"latitude", beams + "telescope_location: (91, 2, 3)\ntelescope_name: T\n", []string{"latitude 91"}},
		{"moon", beams + site + "world: moon\n", []string{"world", `"moon"`, "Earth"}},
		{"spline 4", beams + site + "spline_interp_opts:\n  kx: 4\n  ky: 4\n", []string{"spline_interp_opts.kx", "order 1 (linear) or 3 (cubic)"}},
		{"spline mixed", beams + site + "spline_interp_opts:\n  kx: 1\n", []string{"kx = 1 and ky = 3 differ"}},
		{"spline smoothing", beams + site + "spline_interp_opts:\n  s: 0.5\n", []string{"spline_interp_opts.s", "smoothing"}},
		{"spline unknown", beams + site + "spline_interp_opts:\n  k: 3\n", []string{"spline_interp_opts.k", "unknown spline option"}},
		{"interp kind", beams + site + "freq_interp_kind: spline\n", []string{"freq_interp_kind", "must be one of"}},
		{"truncated", "beam_paths:\n  0: {type: airy, diameter: 6\n", []string{"telescope_config.yaml", "malformed YAML"}},
		{"top-level list", "- 1\n- 2\n", []string{"top level must be a mapping"}},
		{"empty", "# nothing\n", []string{"empty"}},
		{"duplicate key", beams + site + "telescope_name: U\n", []string{"telescope_config.yaml:6", "telescope_name", "duplicate key (first at line 5)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readCase(t, files{tel: tc.tel})
			wantErr(t, err, append(tc.frags, "telescope_config.yaml")...)
		})
	}
	_, err := readCase(t, files{tel: "-"})
	wantErr(t, err, "telescope.telescope_config_name", "file not found")
	if !strings.Contains(err.Error(), "telescope_config.yaml") {
		t.Error(err)
	}
}

func TestBeamSelectWithFiles(t *testing.T) {
	dir := t.TempDir()
	beam := filepath.Join(dir, "b.fits")
	if err := os.WriteFile(beam, []byte("SIMPLE"), 0o644); err != nil {
		t.Fatal(err)
	}
	tel := "beam_paths:\n  0: " + beam + "\n" + site
	c := mustRead(t, files{tel: tel + "select:\n  freq_buffer: 1.0e+6\n", layout: oneBeamLayout})
	if !hasWarning(c, "select.freq_buffer", "every frequency") {
		t.Errorf("%q", c.Warnings)
	}
	_, err := readCase(t, files{tel: tel + "select:\n  feeds: [x]\n", layout: oneBeamLayout})
	wantErr(t, err, "select.feeds", "not supported")
}
