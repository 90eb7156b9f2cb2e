package obsparam

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// seedFiles adds the reference configurations' files as seeds.
func seedFiles(f *testing.F, name string) {
	for _, d := range []string{"pyuvsim-stokesI-gaussian", "pyuvsim-fullstokes-airy"} {
		data, err := os.ReadFile(filepath.Join(refDir, d, name))
		if err != nil {
			f.Fatalf("seed: %v", err)
		}
		f.Add(data)
	}
}

// checkConfig asserts what every successful Read guarantees.
func checkConfig(t *testing.T, c *Config, err error) {
	t.Helper()
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("error is %T, not *Error: %v", err, err)
		}
		return
	}
	if len(c.Freqs) == 0 || len(c.Freqs) != len(c.ChannelWidth) || len(c.TimesJD) == 0 || len(c.TimesJD) != len(c.IntegrationTime) {
		t.Fatalf("axis lengths: %d freqs %d widths %d times %d ints", len(c.Freqs), len(c.ChannelWidth), len(c.TimesJD), len(c.IntegrationTime))
	}
	for i, v := range c.Freqs {
		if !(v > 0) || !(c.ChannelWidth[i] > 0) || math.IsInf(v, 0) {
			t.Fatalf("channel %d: %v width %v", i, v, c.ChannelWidth[i])
		}
	}
	for i, v := range c.TimesJD {
		if implausibleJD(v) != "" || !(c.IntegrationTime[i] > 0) {
			t.Fatalf("time %d: %v int %v", i, v, c.IntegrationTime[i])
		}
	}
	if len(c.Pols) == 0 || len(c.Telescope.Beams) == 0 || len(c.Telescope.Antennas) == 0 {
		t.Fatalf("pols %v beams %v antennas %d", c.Pols, c.Telescope.Beams, len(c.Telescope.Antennas))
	}
	for _, a := range c.Telescope.Antennas {
		if a.Beam < 0 || a.Beam >= len(c.Telescope.Beams) || c.Telescope.BeamIDs[a.Beam] != a.BeamID {
			t.Fatalf("antenna %+v points outside the beams %v", a, c.Telescope.BeamIDs)
		}
	}
	for _, p := range c.AntPairs() {
		if c.Ordering.ConjugationConvention == "ant1<ant2" && p[0] > p[1] {
			t.Fatalf("pair %v breaks ant1<ant2", p)
		}
	}
	_ = c.OutputPath()
	_ = c.Polarized()
	_ = c.Feed()
}

// FuzzObsParam reads fuzzed obsparam YAML beside a fixed telescope config,
// layout and catalog.
func FuzzObsParam(f *testing.F) {
	seedFiles(f, "obsparam.yaml")
	f.Add([]byte(obsWith("", "", "select:\n  bls: '[(0, 1)]'\n  ant_str: cross\npolarization_array: [xx]\nfiling:\n  outfile_prefix: a\n")))
	f.Add([]byte(obsWith("freq:\n  freq_array: [1.0e+8, 1.2e+8]\n  channel_width: [1.0e+6, 2.0e+6]\n",
		"time:\n  time_array: [0.0, 0.5]\n  time_offset: 2459845.0\n  integration_time: 1.0\n", "ordering:\n  blt_order: [ant1, ant2]\n")))
	for _, extra := range []string{
		"select:\n  antenna_nums: [0, 2]\n  no_autos: true\n",
		"select:\n  bls: [[0, 1], [1, 2]]\n  antenna_names: [A0, A1]\n",
		"polarization_array: [-8, -7]\nfiling:\n  outfile_name: x.npy\n  clobber: false\n",
		"sources2:\n  horizon_buffer: 0.1\n",
	} {
		f.Add([]byte(obsWith("", "", extra)))
	}
	for _, sec := range []string{
		"freq:\n  end_freq: 1.5e+8\n  bandwidth: 7.5e+7\n  channel_width: 2.5e+7\n",
		"freq:\n  start_freq: 1.0e+8\n  end_freq: 1.0e+8\n  Nfreqs: 1\n  bandwidth: 1.0e+6\n",
		"time:\n  end_time: 2459845.5\n  duration_hours: 1.0\n  Ntimes: 6\n",
		"time:\n  start_time: 2459845.0\n  duration_days: 1.0\n  integration_time: 3600.0\n",
	} {
		if strings.HasPrefix(sec, "freq") {
			f.Add([]byte(obsWith(sec, "", "")))
		} else {
			f.Add([]byte(obsWith("", sec, "")))
		}
	}
	dir := f.TempDir() // one directory per worker; each input replaces the obsparam
	writeDir(f, dir, files{})
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "obsparam.yaml")
		if err := os.WriteFile(p, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := Read(p)
		checkConfig(t, c, err)
	})
}

// FuzzLayoutCSV parses fuzzed layout files.
func FuzzLayoutCSV(f *testing.F) {
	seedFiles(f, "layout.csv")
	f.Add([]byte("Name Number BeamID E N U\n\n# c\nA 0 0 1e3 -2 .5 # x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ants, _, err := ParseLayout("fuzz.csv", data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error is %T: %v", err, err)
			}
			return
		}
		nums, names := map[int]bool{}, map[string]bool{}
		for _, a := range ants {
			if !utf8.ValidString(a.Name) {
				t.Fatalf("name %q is not UTF-8", a.Name)
			}
			if nums[a.Number] || names[a.Name] || a.Number < 0 || a.BeamID < 0 {
				t.Fatalf("bad antenna %+v", a)
			}
			nums[a.Number], names[a.Name] = true, true
			for _, v := range a.ENU {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("non-finite position %+v", a)
				}
			}
		}
		if len(ants) == 0 {
			t.Fatal("success with no antennas")
		}
	})
}

// FuzzTelescopeConfig reads a fixed obsparam and layout with a fuzzed
// telescope config.
func FuzzTelescopeConfig(f *testing.F) {
	seedFiles(f, "telescope_config.yaml")
	f.Add([]byte(testTelescope + "spline_interp_opts: {kx: 1, ky: 1}\nfreq_interp_kind: linear\nselect: {freq_buffer: 1.0e+6}\n"))
	f.Add([]byte("beam_paths:\n  0: !AnalyticBeam\n    class: GaussianBeam\n    sigma: 0.1\n    sigma_type: power\n  1: !AnalyticBeam\n    class: ShortDipoleBeam\n    feed_array: [x, y]\n" + site))
	dir := f.TempDir()
	obs := writeDir(f, dir, files{})
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, "telescope_config.yaml"), append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := Read(obs)
		checkConfig(t, c, err)
	})
}

// FuzzAxis drives the frequency-axis derivation with any key combination
// (mask bit i: key i given) and any values; a result must be finite,
// increasing in width and consistent with every key given.
func FuzzAxis(f *testing.F) {
	f.Add(uint8(0b011100), 100e6, 150e6, 3.0, 25e6, 75e6)
	f.Add(uint8(0b101001), 100e6, 0.0, 3.0, 0.0, 75e6)
	f.Add(uint8(0b010110), 1e8, 2e8, 0.0, 1e6, 0.0)
	f.Fuzz(func(t *testing.T, mask uint8, start, end, n, width, bw float64) {
		in := axisInput{
			start: start, end: end, n: n, length: bw, delta: []float64{width}, deltaScalar: true,
			hasStart: mask&1 != 0, hasEnd: mask&2 != 0, hasN: mask&4 != 0, hasDelta: mask&8 != 0, hasLength: mask&16 != 0,
		}
		if mask&32 != 0 {
			in.hasArray, in.array = true, []float64{start, end}
		}
		for _, v := range []float64{start, end, n, width, bw} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return // the YAML reader refuses non-finite values before this
			}
		}
		res, err := buildAxis(in, freqNames, freqTolHz)
		if err != nil {
			return
		}
		if len(res.values) == 0 || len(res.values) > MaxSamples || len(res.values) != len(res.deltas) {
			t.Fatalf("lengths %d %d", len(res.values), len(res.deltas))
		}
		for i, v := range res.values {
			if math.IsNaN(v) || math.IsInf(v, 0) || !(res.deltas[i] > 0) || math.IsInf(res.deltas[i], 0) {
				t.Fatalf("value %d: %v width %v", i, v, res.deltas[i])
			}
		}
		if in.hasStart && !in.hasArray && math.Abs(res.values[0]-start) > freqTolHz {
			t.Fatalf("first value %v, start %v", res.values[0], start)
		}
		if in.hasN && float64(len(res.values)) != n {
			t.Fatalf("%d values, Nfreqs %v", len(res.values), n)
		}
	})
}
