package obsparam

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gomatvis/gomatvis/matvis/simspec"
)

const refDir = "../../testdata/reference"

// TestReferenceConfigs reads the two pyuvsim reference configurations as
// they are and checks every value against the folders' NOTES.md.
func TestReferenceConfigs(t *testing.T) {
	cases := []struct {
		dir     string
		width   float64
		beamIDs []int
		beams   []simspec.Beam
		outfile string
	}{
		{"pyuvsim-stokesI-gaussian", 25e6, []int{0, 0, 1, 0, 1, 1, 0},
			[]simspec.Beam{{Type: "gaussian", DiameterM: 8}, {Type: "gaussian", SigmaRad: 0.3}}, "stokesI-gaussian.uvh5"},
		{"pyuvsim-fullstokes-airy", 30e6, []int{0, 1, 0, 0, 1, 0, 0},
			[]simspec.Beam{{Type: "airy", DiameterM: 6}, {Type: "uniform"}}, "fullstokes-airy.uvh5"},
	}
	nums := []int{0, 1, 2, 3, 10, 11, 24}
	names := []string{"HH0", "HH1", "HH2", "HH3", "HH10", "HH11", "HH24"}
	enu := [][3]float64{{0, 0, 0}, {14.6, 0, 0.3}, {7.3, 12.644, -0.5}, {-7.3, 12.644, 1.2}, {-14.6, 0, 0}, {30, -45, 2}, {-80, 60, -1}}
	for _, tc := range cases {
		t.Run(tc.dir, func(t *testing.T) {
			dir := filepath.Join(refDir, tc.dir)
			if _, err := os.Stat(dir); err != nil {
				t.Fatalf("reference folder missing: %v", err)
			}
			c, err := Read(filepath.Join(dir, "obsparam.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			closeAll(t, "Freqs", c.Freqs, []float64{100e6, 100e6 + tc.width, 100e6 + 2*tc.width}, 1e-6)
			closeAll(t, "ChannelWidth", c.ChannelWidth, []float64{tc.width, tc.width, tc.width}, 0)
			closeAll(t, "TimesJD", c.TimesJD, []float64{2459845.0, 2459845.0 + 600.0/86400, 2459845.0 + 1200.0/86400}, 2e-9)
			closeAll(t, "IntegrationTime", c.IntegrationTime, []float64{600, 600, 600}, 0)
			tel := c.Telescope
			if tel.Name != "HERA" || tel.LatDeg != -30.72152612068957 || tel.LonDeg != 21.428303826863015 || tel.AltM != 1051.69 {
				t.Errorf("site %q %v %v %v", tel.Name, tel.LatDeg, tel.LonDeg, tel.AltM)
			}
			if len(tel.Antennas) != 7 {
				t.Fatalf("%d antennas, want 7", len(tel.Antennas))
			}
			for i, a := range tel.Antennas {
				if a.Number != nums[i] || a.Name != names[i] || a.BeamID != tc.beamIDs[i] || a.ENU != enu[i] {
					t.Errorf("antenna %d = %+v, want %d %s beam %d %v", i, a, nums[i], names[i], tc.beamIDs[i], enu[i])
				}
				if tel.BeamIDs[a.Beam] != a.BeamID {
					t.Errorf("antenna %d points at beam %d (id %d), want id %d", i, a.Beam, tel.BeamIDs[a.Beam], a.BeamID)
				}
			}
			if !reflect.DeepEqual(tel.Beams, tc.beams) || !reflect.DeepEqual(tel.BeamIDs, []int{0, 1}) {
				t.Errorf("beams %+v ids %v, want %+v [0 1]", tel.Beams, tel.BeamIDs, tc.beams)
			}
			if !reflect.DeepEqual(tel.BeamIndex(), tc.beamIDs) {
				t.Errorf("BeamIndex %v, want %v", tel.BeamIndex(), tc.beamIDs)
			}
			if tel.SplineOrder != 3 || tel.FreqInterpKind != "cubic" {
				t.Errorf("spline order %d, freq interp %q; want pyuvsim's defaults 3, cubic", tel.SplineOrder, tel.FreqInterpKind)
			}
			if !reflect.DeepEqual(c.Pols, []int{-5, -6, -7, -8}) || !c.Polarized() || c.Feed() != "" {
				t.Errorf("pols %v polarized %v feed %q", c.Pols, c.Polarized(), c.Feed())
			}
			abs, _ := filepath.Abs(filepath.Join(dir, "sky.skyh5"))
			if c.Sources.Catalog != abs {
				t.Errorf("catalog %q, want %q", c.Sources.Catalog, abs)
			}
			f := c.Filing
			if f.Format != "uvh5" || !f.Clobber || f.OutDir != "." || c.OutputPath() != tc.outfile {
				t.Errorf("filing %+v, output %q", f, c.OutputPath())
			}
			if c.Ordering.ConjugationGiven || c.Ordering.ConjugationConvention != "ant2<ant1" ||
				c.Ordering.BLTOrder != "time" || c.Ordering.BLTMinorOrder != "baseline" {
				t.Errorf("ordering %+v", c.Ordering)
			}
			if !hasWarning(c, "conjugation_convention", "ant2<ant1") || len(c.Warnings) != 1 {
				t.Errorf("warnings %q: want just the conjugation default", c.Warnings)
			}
			// The reference files store ant1 >= ant2 (pyuvsim 1.2.6): ant2<ant1.
			c.Ordering.ConjugationConvention = "ant2<ant1"
			pairs := c.AntPairs()
			if len(pairs) != 28 {
				t.Fatalf("%d pairs, want 28 (7 antennas with autos)", len(pairs))
			}
			for _, p := range pairs {
				if p[0] < p[1] {
					t.Errorf("pair %v has ant1 < ant2 under ant2<ant1", p)
				}
			}
		})
	}
}
