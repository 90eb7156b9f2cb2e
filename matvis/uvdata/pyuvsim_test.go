package uvdata_test

import (
	"context"
	"github.com/gomatvis/gomatvis/matvis/input"
	"math"
	"math/cmplx"
	"path/filepath"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/cpu"
	"github.com/gomatvis/gomatvis/matvis/simspec"
	"github.com/gomatvis/gomatvis/matvis/uvdata"
	"github.com/gomatvis/gomatvis/uvh5"
)

// simulateObsParam runs a pyuvsim reference configuration on the CPU
// with the folder's Earth-orientation values and writes it as UVH5.
func simulateObsParam(t *testing.T, dir string, precision int) (*matvis.Simulation, *uvh5.File) {
	t.Helper()
	return simulateObsParamRot(t, dir, precision, "")
}

// simulateObsParamRot is simulateObsParam with a polarized sky's rotation.
func simulateObsParamRot(t *testing.T, dir string, precision int, rot matvis.CoherencyRotation) (*matvis.Simulation, *uvh5.File) {
	t.Helper()
	obsPath := filepath.Join(dir, "obsparam.yaml")
	o := &input.ObsOptions{Precision: precision, Rotation: rot}
	sim, obs, err := input.FromObsParam(obsPath, o)
	if err != nil {
		t.Fatal(err)
	}
	eop, err := input.ReadEOPFile(filepath.Join(dir, "eop.json"), sim.Times)
	if err != nil {
		t.Fatal(err)
	}
	o.EOP = eop
	if sim, obs, err = input.FromObsParam(obsPath, o); err != nil {
		t.Fatal(err)
	}
	res, err := cpu.New().Run(context.Background(), sim)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out.uvh5")
	if err := uvdata.Write(out, sim, obs, res); err != nil {
		t.Fatal(err)
	}
	f, err := uvh5.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return sim, f
}

// TestAgainstPyuvsim: the pyuvsim 1.2.6 reference configurations (Stokes-I
// sky, Gaussian beams by diameter and by sigma, w-terms), run through
// FromObsParam and written by Write, read back: the same header values
// and visibilities within 1e-5 of each polarization's peak (the bar) —
// measured far below it.
func TestAgainstPyuvsim(t *testing.T) {
	dir := filepath.Join(sharedtest.Dir(t), "reference", "pyuvsim-stokesI-gaussian")
	want, err := uvh5.ReadFile(filepath.Join(dir, "stokesI-gaussian.uvh5"))
	if err != nil {
		t.Fatal(err)
	}
	for _, prec := range []int{2, 1} {
		_, got := simulateObsParam(t, dir, prec)
		compareHeaders(t, got, want)
		peaks, worsts := polDiff(got, want)
		for p, peak := range peaks {
			worst := worsts[p]
			tol := 1e-5 * peak
			t.Logf("precision %d pol %d: max|ΔV| = %.3g, peak %.3g (%.2g of peak)", prec, want.Header.Pols[p], worst, peak, worst/math.Max(peak, 1e-300))
			if peak == 0 {
				tol = 1e-12 // xy and yx of an unpolarized sky with diagonal beams
			}
			if !(worst <= tol) {
				t.Errorf("precision %d pol %d: max|ΔV| %.3g over %.3g", prec, want.Header.Pols[p], worst, tol)
			}
		}
	}
}

func compareHeaders(t *testing.T, got, want *uvh5.File) {
	t.Helper()
	g, w := got.Header, want.Header
	if got.Counts != want.Counts {
		t.Errorf("counts %+v, pyuvsim %+v", got.Counts, want.Counts)
	}
	eqInts := func(name string, a, b []int64) {
		if len(a) != len(b) {
			t.Errorf("%s: %d values, pyuvsim %d", name, len(a), len(b))
			return
		}
		for i := range a {
			if a[i] != b[i] {
				t.Errorf("%s[%d] = %d, pyuvsim %d", name, i, a[i], b[i])
				return
			}
		}
	}
	eqFloats := func(name string, a, b []float64, tol float64) {
		if len(a) != len(b) {
			t.Errorf("%s: %d values, pyuvsim %d", name, len(a), len(b))
			return
		}
		for i := range a {
			if math.Abs(a[i]-b[i]) > tol {
				t.Errorf("%s[%d] = %.15g, pyuvsim %.15g", name, i, a[i], b[i])
				return
			}
		}
	}
	flat := func(v [][3]float64) []float64 {
		var out []float64
		for _, x := range v {
			out = append(out, x[:]...)
		}
		return out
	}
	eqInts("ant_1_array", g.Ant1, w.Ant1)
	eqInts("ant_2_array", g.Ant2, w.Ant2)
	eqInts("antenna_numbers", g.AntennaNumbers, w.AntennaNumbers)
	eqInts("polarization_array", g.Pols, w.Pols)
	eqFloats("time_array", g.Times, w.Times, 1e-9)
	eqFloats("lst_array", g.LSTs, w.LSTs, 1e-9)
	eqFloats("freq_array", g.Freqs, w.Freqs, 1e-3)
	eqFloats("channel_width", g.ChannelWidth, w.ChannelWidth, 1e-3)
	eqFloats("integration_time", g.IntegrationTime, w.IntegrationTime, 1e-4)
	eqFloats("uvw_array", flat(g.UVW), flat(w.UVW), 1e-8)
	eqFloats("antenna_positions", flat(g.AntennaPositions), flat(w.AntennaPositions), 1e-7)
	eqFloats("telescope location", []float64{g.Latitude, g.Longitude, g.Altitude}, []float64{w.Latitude, w.Longitude, w.Altitude}, 1e-7)
	for i := range w.AntennaNames {
		if i >= len(g.AntennaNames) || g.AntennaNames[i] != w.AntennaNames[i] {
			t.Errorf("antenna_names %v, pyuvsim %v", g.AntennaNames, w.AntennaNames)
			break
		}
	}
	if g.TelescopeName != w.TelescopeName || g.VisUnits != w.VisUnits {
		t.Errorf("telescope %q units %q, pyuvsim %q %q", g.TelescopeName, g.VisUnits, w.TelescopeName, w.VisUnits)
	}
}

// TestSpecEqualsObsParam: the stokesI-gaussian configuration written as a
// simspec (testdata/specs/stokesI-gaussian.json: the same layout file and
// catalog, beams with jones "diagonal", the EOP inline) gives the
// visibilities and header of the obsparam route (≤ 1e-15 of the peak).
func TestSpecEqualsObsParam(t *testing.T) {
	root := sharedtest.Dir(t)
	_, fromObs := simulateObsParam(t, filepath.Join(root, "reference", "pyuvsim-stokesI-gaussian"), 2)
	spec, err := simspec.ReadFile(filepath.Join(root, "specs", "stokesI-gaussian.json"))
	if err != nil {
		t.Fatal(err)
	}
	sim, obs, err := input.FromSpecObservation(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cpu.New().Run(context.Background(), sim)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "spec.uvh5")
	if err := uvdata.Write(out, sim, obs, res); err != nil {
		t.Fatal(err)
	}
	fromSpec, err := uvh5.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	compareHeaders(t, fromSpec, fromObs)
	var peak, worst float64
	for i, v := range fromObs.Vis {
		peak = max(peak, cmplx.Abs(v))
		worst = max(worst, cmplx.Abs(fromSpec.Vis[i]-v))
	}
	t.Logf("simspec vs obsparam: max|ΔV| = %.3g of peak %.3g", worst, peak)
	if !(worst <= 1e-15*peak) {
		t.Errorf("simspec vs obsparam: max|ΔV| = %.3g, over 1e-15 of the peak %.3g", worst, peak)
	}
}
