package input

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/obsparam"
	"github.com/gomatvis/gomatvis/matvis/simspec"
)

// writeBeamfitsObsparam writes a pyuvsim configuration with the NF dipole
// beamfits (beam 0; it has 2 channels) and a Gaussian (beam 1), the
// telescope's freq_interp_kind kind ("": none given), and returns the
// obsparam's path.
func writeBeamfitsObsparam(t *testing.T, kind string) string {
	t.Helper()
	ref := filepath.Join(sharedtest.Root(t), "testdata", "reference", "pyuvsim-stokesI-gaussian")
	dir := t.TempDir()
	tel := "beam_paths:\n  0: " + sharedtest.HERABeam(t) + "\n  1:\n    type: gaussian\n    sigma: 0.3\n" +
		"telescope_location: (-30.72152612068957, 21.428303826863015, 1051.69)\ntelescope_name: HERA\n"
	if kind != "" {
		tel += "freq_interp_kind: " + kind + "\n"
	}
	obs := "filing:\n  outdir: .\n  outfile_name: out.uvh5\n  output_format: uvh5\n" +
		"freq:\n  Nfreqs: 2\n  channel_width: 500000.0\n  start_freq: 100250000.0\n" +
		"sources:\n  catalog: " + filepath.Join(ref, "sky.skyh5") + "\n" +
		"telescope:\n  array_layout: " + filepath.Join(ref, "layout.csv") + "\n  telescope_config_name: telescope_config.yaml\n" +
		"time:\n  Ntimes: 1\n  integration_time: 600.0\n  start_time: 2459845.0\n"
	for name, text := range map[string]string{"telescope_config.yaml": tel, "obsparam.yaml": obs} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "obsparam.yaml")
}

// TestObsBeamInterp: a pyuvsim configuration's beamfits beams interpolate
// with az_za_simple unless told otherwise, the analytic beam stays
// analytic, the history names the interpolation, and an unknown name is
// refused naming it.
func TestObsBeamInterp(t *testing.T) {
	cfg, err := obsparam.Read(writeBeamfitsObsparam(t, "linear"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ opt, want string }{
		{"", beam.SpatialAzZaSimple},
		{beam.SpatialAzZaSimple, beam.SpatialAzZaSimple},
		{beam.SpatialMapCoordinates, beam.SpatialMapCoordinates},
	} {
		sim, obs, err := FromObsConfig(cfg, &ObsOptions{BeamInterp: tc.opt})
		if err != nil {
			t.Fatal(err)
		}
		g, ok := sim.Beams[0].(*beam.Gridded)
		if !ok || g.SpatialInterp() != tc.want || g.FreqInterp() != "linear" {
			t.Errorf("BeamInterp %q: beam 0 %T (%v): want a *beam.Gridded with %s and linear", tc.opt, sim.Beams[0], sim.Beams[0], tc.want)
		}
		if _, ok := sim.Beams[1].(beam.DiagonalJones); !ok {
			t.Errorf("BeamInterp %q: beam 1 is %T, want the Gaussian's diagonal Jones", tc.opt, sim.Beams[1])
		}
		if got := GriddedInterp(sim.Beams); got != tc.want {
			t.Errorf("GriddedInterp = %q, want %q", got, tc.want)
		}
		if !strings.Contains(obs.History, "interpolated with "+tc.want) {
			t.Errorf("history %q does not name %s", obs.History, tc.want)
		}
		// The beamfits has two beam channels: the history and
		// GriddedFreqInterp name the configuration's freq_interp_kind.
		if got := GriddedFreqInterp(sim.Beams); got != "linear" {
			t.Errorf("GriddedFreqInterp = %q, want linear", got)
		}
		if !strings.Contains(obs.History, "linear in frequency") {
			t.Errorf("history %q does not name the frequency interpolation", obs.History)
		}
	}
	if _, _, err := FromObsConfig(cfg, &ObsOptions{BeamInterp: "bicubic"}); err == nil || !strings.Contains(err.Error(), `"bicubic"`) {
		t.Errorf("unknown interpolation: error %v, want one naming it", err)
	}
	if err := CheckBeamInterp("bicubic"); err == nil || !strings.Contains(err.Error(), "az_za_simple") {
		t.Errorf("CheckBeamInterp(bicubic) = %v, want an error listing the choices", err)
	}
}

// TestSpecBeamInterp: a spec's beamfits beam keeps map_coordinates (matvis's,
// which the spec references reproduce) unless SpecOptions.BeamInterp says
// otherwise, and its UVH5 history names it.
func TestSpecBeamInterp(t *testing.T) {
	s, err := simspec.ReadFile(filepath.Join(sharedtest.Root(t), "testdata", "reference", "uvbeam-pol-small", "spec.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ opt, want string }{
		{"", beam.SpatialMapCoordinates},
		{beam.SpatialAzZaSimple, beam.SpatialAzZaSimple},
	} {
		sim, obs, err := FromSpecObservation(s, &SpecOptions{BeamInterp: tc.opt})
		if err != nil {
			t.Fatal(err)
		}
		if got := GriddedInterp(sim.Beams); got != tc.want {
			t.Errorf("BeamInterp %q: GriddedInterp = %q, want %q", tc.opt, got, tc.want)
		}
		if !strings.Contains(obs.History, "interpolated with "+tc.want) {
			t.Errorf("history %q does not name %s", obs.History, tc.want)
		}
		// Its beam interpolates in frequency with the default, cubic.
		if !strings.Contains(obs.History, "cubic in frequency") {
			t.Errorf("history %q does not name the frequency interpolation", obs.History)
		}
	}
}

// TestGriddedFreqInterp: the frequency interpolation is named for gridded
// beams (bare or under a diagonal Jones) with several beam channels only,
// the distinct kinds sorted.
func TestGriddedFreqInterp(t *testing.T) {
	grid := func(t *testing.T, freqs []float64, kind string) *beam.Gridded {
		t.Helper()
		az, za := []float64{0, 1, 2, 3, 4, 5}, []float64{0, 0.3, 0.6, 0.9}
		data := make([]complex128, len(freqs)*len(za)*len(az))
		for i := range data {
			data[i] = 1
		}
		g, err := beam.NewGridded(beam.GridSpec{Name: "g", Type: beam.Power, AzRad: az, ZaRad: za, FreqsHz: freqs, Pols: []int{beam.PolXX}, NAxesVec: 1}, data)
		if err != nil {
			t.Fatal(err)
		}
		if kind != "" {
			if g, err = g.WithFreqInterp(kind); err != nil {
				t.Fatal(err)
			}
		}
		return g
	}
	one := grid(t, []float64{1e8}, "")
	four := []float64{1e8, 1.1e8, 1.2e8, 1.3e8}
	for _, tc := range []struct {
		name  string
		beams []beam.Beam
		want  string
	}{
		{"analytic only", []beam.Beam{beam.ShortDipole{}}, ""},
		{"one beam channel", []beam.Beam{one}, ""},
		{"default cubic", []beam.Beam{grid(t, four, "")}, "cubic"},
		{"wrapped linear", []beam.Beam{beam.DiagonalJones{Beam: grid(t, four, "linear")}, one}, "linear"},
		{"two kinds", []beam.Beam{grid(t, four, "nearest"), grid(t, four, "linear"), grid(t, four, "linear")}, "linear, nearest"},
	} {
		if got := GriddedFreqInterp(tc.beams); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
