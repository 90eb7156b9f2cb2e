package obsparam

import (
	"strings"
	"testing"
)

// TestAbsurdInput (issue 41 item 4): physically absurd or
// self-contradicting obsparam inputs that used to run silently are
// refused, naming the file, the field and the value, with the range or
// what to do: a site far from the Earth's surface (pyuvdata's
// telescope_location range), a dish of 1e300 m or a sigma in degrees,
// an empty selection (pyuvdata's select raises for it; it used to give
// every baseline) and repeated or unsorted channels and times.
func TestAbsurdInput(t *testing.T) {
	beams := "beam_paths:\n  0: uniform\n  1: uniform\n"
	loc := func(v string) string { return beams + "telescope_location: " + v + "\ntelescope_name: T\n" }
	tel := func(beam string) string {
		return "beam_paths:\n  0: uniform\n  1:\n" + beam + site
	}
	sel := func(v string) string { return obsWith("", "", "select:\n  "+v+"\n") }
	freq := func(v string) string { return obsWith("freq:\n  "+v+"\n", "", "") }
	tm := func(v string) string { return obsWith("", "time:\n  "+v+"\n", "") }
	cases := []struct {
		name  string
		f     files
		frags []string
	}{
		{"altitude 1e30", files{tel: loc("(-30.7, 21.4, 1e30)")}, []string{"telescope_config.yaml", "telescope_location", "height 1e+30 m", "outside pyuvdata's acceptable"}},
		{"altitude -7e6", files{tel: loc("(-30.7, 21.4, -7e6)")}, []string{"telescope_location", "height -7e+06 m", "must be within ["}},
		{"altitude in mm", files{tel: loc("(-30.7, 21.4, 1051690)")}, []string{"height 1.05169e+06 m"}},
		{"altitude NaN", files{tel: loc("[-30.7, 21.4, .nan]")}, []string{"telescope_location[2]", "must be a finite number"}},
		{"latitude NaN", files{tel: loc("[.nan, 21.4, 1000]")}, []string{"telescope_location[0]", "must be a finite number"}},
		{"longitude Inf", files{tel: loc("[-30.7, .inf, 1000]")}, []string{"telescope_location", "longitude"}},
		{"airy 1e300", files{tel: tel("    type: airy\n    diameter: 1e300\n")}, []string{"beam_paths.1", "diameter 1e+300 m", "at most 10000 m"}},
		{"airy class 1e5", files{tel: tel("    !AnalyticBeam\n    class: AiryBeam\n    diameter: 1.0e+5\n")}, []string{"diameter 100000 m", "at most 10000 m"}},
		{"gaussian sigma in degrees", files{tel: tel("    type: gaussian\n    sigma: 10\n")}, []string{"sigma 10 rad", "radians, not degrees"}},
		{"gaussian diameter 1e300", files{tel: tel("    type: gaussian\n    diameter: 1e300\n")}, []string{"diameter 1e+300 m"}},
		{"airy diameter 0", files{tel: tel("    type: airy\n    diameter: 0\n")}, []string{"must be positive"}},
		{"airy diameter NaN", files{tel: tel("    type: airy\n    diameter: .nan\n")}, []string{"beam_paths.1"}},
		{"antenna_nums empty", files{obs: sel("antenna_nums: []")}, []string{"obsparam.yaml", "select.antenna_nums", "selects no antennas", "No baseline-times were found"}},
		{"antenna_names empty", files{obs: sel("antenna_names: []")}, []string{"select.antenna_names", "selects no antennas"}},
		{"bls empty", files{obs: sel("bls: []")}, []string{"select.bls", "selects no baselines"}},
		{"bls empty string", files{obs: sel("bls: '[]'")}, []string{"select.bls"}},
		{"repeated channel", files{obs: freq("freq_array: [1.0e+8, 1.0e+8, 1.2e+8]\n  channel_width: 1.0e+6")}, []string{"freq_array[1] = 100000000 repeats freq_array[0]"}},
		{"unsorted channels", files{obs: freq("freq_array: [1.2e+8, 1.0e+8]\n  channel_width: 1.0e+6")}, []string{"freq_array[1] = 100000000 is below freq_array[0] = 120000000"}},
		{"NaN channel", files{obs: freq("freq_array: [1.0e+8, .nan]\n  channel_width: 1.0e+6")}, []string{"freq"}},
		{"negative channel", files{obs: freq("freq_array: [-1.0e+8, 1.0e+8]\n  channel_width: 1.0e+6")}, []string{"must be positive"}},
		{"repeated time", files{obs: tm("time_array: [2459845.0, 2459845.0]\n  integration_time: 10.0")}, []string{"time_array[1] = 2459845 repeats time_array[0]"}},
		{"integration_time 0", files{obs: tm("start_time: 2459845.0\n  Ntimes: 2\n  integration_time: 0")}, []string{"integration_time", "must be positive"}},
		{"antenna 1e30 m east", files{layout: "Name Number BeamID E N U\nA0 0 0 0 0 0\nA1 1 1 1e30 0 0\nA2 2 0 0 14.6 0\n"}, []string{"layout.csv", "1e30", "within ±1e+07 m"}},
		{"Ntimes 0", files{obs: tm("start_time: 2459845.0\n  Ntimes: 0\n  integration_time: 10.0")}, []string{"Ntimes", "at least 1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readCase(t, tc.f)
			wantErr(t, err, tc.frags...)
		})
	}
}

// TestSensibleInputStillRead: the refusals above leave alone what is
// physical: sites from the Dead Sea to a high balloon, dishes from 0.1 m
// to 1 km, a sigma of π, and selections that keep something.
func TestSensibleInputStillRead(t *testing.T) {
	beams := "beam_paths:\n  0: uniform\n  1: uniform\n"
	loc := func(v string) string { return beams + "telescope_location: " + v + "\ntelescope_name: T\n" }
	tel := func(beam string) string { return "beam_paths:\n  0: uniform\n  1:\n" + beam + site }
	for _, tc := range []struct {
		name string
		f    files
	}{
		{"Dead Sea", files{tel: loc("(31.5, 35.5, -430)")}},
		{"Chajnantor", files{tel: loc("(-23.0, -67.75, 5050)")}},
		{"balloon", files{tel: loc("(0, 0, 11000)")}},
		{"small dish", files{tel: tel("    type: airy\n    diameter: 0.1\n")}},
		{"1 km dish", files{tel: tel("    type: airy\n    diameter: 1000\n")}},
		{"sigma pi", files{tel: tel("    type: gaussian\n    sigma: 3.14159\n")}},
		{"one antenna", files{obs: obsWith("", "", "select:\n  antenna_nums: [0, 1]\n")}},
	} {
		t.Run(tc.name, func(t *testing.T) { mustRead(t, tc.f) })
	}
	if c := mustRead(t, files{}); !strings.Contains(c.Telescope.Name, "TEST") {
		t.Errorf("telescope name %q", c.Telescope.Name)
	}
}
