package obsparam

import (
	"regexp"
	"testing"
)

func TestFreqCombinations(t *testing.T) {
	std := []float64{100e6, 125e6, 150e6}
	w25 := []float64{25e6, 25e6, 25e6}
	cases := []struct {
		name     string
		freq     string
		want, cw []float64
		warnFrag string
	}{
		{"start+Nfreqs+width", "start_freq: 100.0e+6\n  Nfreqs: 3\n  channel_width: 25.0e+6", std, w25, ""},
		{"start+end+Nfreqs", "start_freq: 100.0e+6\n  end_freq: 150.0e+6\n  Nfreqs: 3", std, w25, ""},
		{"start+end+width", "start_freq: 100.0e+6\n  end_freq: 150.0e+6\n  channel_width: 25.0e+6", std, w25, ""},
		{"end+Nfreqs+width", "end_freq: 150.0e+6\n  Nfreqs: 3\n  channel_width: 25.0e+6", std, w25, ""},
		{"start+bandwidth+Nfreqs", "start_freq: 100.0e+6\n  bandwidth: 75.0e+6\n  Nfreqs: 3", std, w25, ""},
		{"start+bandwidth+width", "start_freq: 100.0e+6\n  bandwidth: 75.0e+6\n  channel_width: 25.0e+6", std, w25, ""},
		{"end+bandwidth+width", "end_freq: 150.0e+6\n  bandwidth: 75.0e+6\n  channel_width: 25.0e+6", std, w25, ""},
		{"all consistent", "start_freq: 100.0e+6\n  end_freq: 150.0e+6\n  Nfreqs: 3\n  channel_width: 25.0e+6\n  bandwidth: 75.0e+6", std, w25, ""},
		{"Nfreqs as 3.0", "start_freq: 100.0e+6\n  Nfreqs: 3.0\n  channel_width: 25.0e+6", std, w25, ""},
		{"yaml 1.2 exponent", "start_freq: 1e8\n  Nfreqs: 3\n  channel_width: 2.5e7", std, w25, ""},
		{"even freq_array", "freq_array: [100.0e+6, 125.0e+6, 150.0e+6]", std, w25, ""},
		{"uneven freq_array+width", "freq_array: [100.0e+6, 110.0e+6, 150.0e+6]\n  channel_width: 1.0e+6",
			[]float64{100e6, 110e6, 150e6}, []float64{1e6, 1e6, 1e6}, ""},
		{"freq_array+width list", "freq_array: [100.0e+6, 110.0e+6]\n  channel_width: [1.0e+6, 2.0e+6]",
			[]float64{100e6, 110e6}, []float64{1e6, 2e6}, ""},
		{"single freq_array+width", "freq_array: [150.0e+6]\n  channel_width: 97656.25",
			[]float64{150e6}, []float64{97656.25}, ""},
		{"start=end Nfreqs 1 width", "start_freq: 100.0e+6\n  end_freq: 100.0e+6\n  Nfreqs: 1\n  channel_width: 1.0e+6",
			[]float64{100e6}, []float64{1e6}, ""},
		{"start Nfreqs 1 width", "start_freq: 100.0e+6\n  Nfreqs: 1\n  channel_width: 1.0e+6",
			[]float64{100e6}, []float64{1e6}, ""},
		{"start Nfreqs 1 bandwidth", "start_freq: 120.0e+6\n  Nfreqs: 1\n  bandwidth: 2.0e+6",
			[]float64{120e6}, []float64{2e6}, ""},
		{"Nspws ignored", "start_freq: 100.0e+6\n  Nfreqs: 3\n  channel_width: 25.0e+6\n  Nspws: 1", std, w25, "Nspws"},
		{"MHz warning", "start_freq: 100.0\n  Nfreqs: 3\n  channel_width: 25.0", []float64{100, 125, 150}, []float64{25, 25, 25}, "below 1 MHz"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := mustRead(t, files{obs: obsWith("freq:\n  "+tc.freq+"\n", "", "")})
			closeAll(t, "Freqs", c.Freqs, tc.want, 1e-6)
			closeAll(t, "ChannelWidth", c.ChannelWidth, tc.cw, 1e-6)
			if tc.warnFrag != "" && !hasWarning(c, tc.warnFrag) {
				t.Errorf("no warning with %q in %q", tc.warnFrag, c.Warnings)
			}
		})
	}
}

func TestFreqErrors(t *testing.T) {
	cases := []struct {
		name  string
		freq  string
		frags []string
	}{
		{"no start or end", "Nfreqs: 3\n  channel_width: 1.0e+6", []string{"either start_freq or end_freq must be specified", "were: Nfreqs, channel_width"}},
		{"start only + Nfreqs", "start_freq: 1.0e+8\n  Nfreqs: 3", []string{"two more of Nfreqs, channel_width and bandwidth"}},
		{"start and end only", "start_freq: 1.0e+8\n  end_freq: 2.0e+8", []string{"either Nfreqs or channel_width must be specified"}},
		{"Nfreqs 1 without width", "start_freq: 1.0e+8\n  end_freq: 1.0e+8\n  Nfreqs: 1", []string{"if Nfreqs is 1 then either channel_width or bandwidth"}},
		{"uneven division", "start_freq: 100.0e+6\n  end_freq: 150.0e+6\n  channel_width: 20.0e+6", []string{"evenly divisible", "Nfreqs = 3.5"}},
		{"width list without array", "start_freq: 1.0e+8\n  Nfreqs: 2\n  channel_width: [1.0e+6, 1.0e+6]", []string{"channel_width must be a scalar if freq_array is not specified"}},
		{"uneven array no width", "freq_array: [1.0e+8, 1.1e+8, 1.5e+8]", []string{"channel_width must be specified if spacing in freq_array is uneven"}},
		{"single array no width", "freq_array: [1.0e+8]", []string{"channel_width must be specified if freq_array has length 1"}},
		{"width length mismatch", "freq_array: [1.0e+8, 1.1e+8, 1.2e+8]\n  channel_width: [1.0e+6, 1.0e+6]", []string{"must be the same length as freq_array"}},
		{"inconsistent width", "start_freq: 100.0e+6\n  end_freq: 150.0e+6\n  Nfreqs: 3\n  channel_width: 20.0e+6",
			[]string{"channel_width[0] is not consistent with the start_freq, end_freq, Nfreqs", "input values were [20000000]", "calculated values were [25000000]"}},
		{"inconsistent bandwidth", "start_freq: 100.0e+6\n  Nfreqs: 3\n  channel_width: 25.0e+6\n  bandwidth: 80.0e+6", []string{"bandwidth is not consistent"}},
		{"negative freqs", "start_freq: -100.0e+6\n  Nfreqs: 3\n  channel_width: 25.0e+6", []string{"frequencies must be positive", "-100000000"}},
		{"zero freq", "freq_array: [0.0, 1.0e+6]", []string{"frequencies must be positive"}},
		{"zero width", "start_freq: 1.0e+8\n  Nfreqs: 3\n  channel_width: 0.0", []string{"channel_width = 0: it must be positive"}},
		{"negative width", "start_freq: 1.0e+8\n  Nfreqs: 3\n  channel_width: -1.0e+6", []string{"channel_width = -1000000: it must be positive"}},
		{"decreasing", "start_freq: 2.0e+8\n  end_freq: 1.0e+8\n  Nfreqs: 3", []string{"channel_width = -50000000: it must be positive"}},
		{"Nfreqs 0", "start_freq: 1.0e+8\n  Nfreqs: 0\n  channel_width: 1.0e+6", []string{"Nfreqs = 0: at least 1"}},
		{"Nfreqs huge", "start_freq: 1.0e+8\n  Nfreqs: 1.0e+12\n  channel_width: 1.0", []string{"over the limit"}},
		{"tiny width", "start_freq: 1.0e+8\n  end_freq: 2.0e+8\n  channel_width: 1.0e-3", []string{"over the limit"}},
		{"overflow", "start_freq: 1.7e+308\n  Nfreqs: 3\n  channel_width: 1.0e+308", []string{"overflow"}},
		{"string value", "start_freq: '100 MHz'\n  Nfreqs: 3\n  channel_width: 1.0e+6", []string{"freq.start_freq", `"100 MHz"`, "must be a number"}},
		{"nan", "start_freq: .nan\n  Nfreqs: 3\n  channel_width: 1.0e+6", []string{"freq.start_freq", "finite"}},
		{"unknown key", "start_freq: 1.0e+8\n  Nfreq: 3\n  channel_width: 1.0e+6", []string{"freq.Nfreq", "unknown key"}},
		{"not a mapping", "[1, 2]", []string{"freq", "must be a mapping"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readCase(t, files{obs: obsWith("freq:\n  "+tc.freq+"\n", "", "")})
			wantErr(t, err, append(tc.frags, "obsparam.yaml")...)
		})
	}
}

func TestTimeCombinations(t *testing.T) {
	const t0 = 2459845.0
	std := []float64{t0, t0 + 600.0/86400, t0 + 1200.0/86400}
	i600 := []float64{600, 600, 600}
	cases := []struct {
		name     string
		time     string
		want, it []float64
		itTol    float64
		warnFrag string
	}{
		{"start+Ntimes+int", "start_time: 2459845.0\n  Ntimes: 3\n  integration_time: 600.0", std, i600, 0, ""},
		{"start+end+Ntimes", "start_time: 2459845.0\n  end_time: 2459845.013888889\n  Ntimes: 3", std, i600, 1e-4, ""},
		{"start+end+int", "start_time: 2459845.0\n  end_time: 2459845.013888889\n  integration_time: 600.0", std, i600, 0, ""},
		{"end+Ntimes+int", "end_time: 2459845.013888889\n  Ntimes: 3\n  integration_time: 600.0", std, i600, 0, ""},
		{"start+hours+Ntimes", "start_time: 2459845.0\n  duration_hours: 0.5\n  Ntimes: 3", std, i600, 1e-4, ""},
		{"start+days+int", "start_time: 2459845.0\n  duration_days: 0.020833333333333332\n  integration_time: 600.0", std, i600, 0, ""},
		{"hours and days", "start_time: 2459845.0\n  duration_hours: 9.0\n  duration_days: 0.020833333333333332\n  Ntimes: 3", std, i600, 1e-4, "using duration_days"},
		{"even time_array", "time_array: [2459845.0, 2459845.0069444445, 2459845.013888889]", std, i600, 1e-4, ""},
		{"uneven time_array+int list", "time_array: [2459845.0, 2459845.5]\n  integration_time: [10.0, 20.0]",
			[]float64{t0, t0 + 0.5}, []float64{10, 20}, 0, ""},
		{"single time+int", "time_array: [2459845.25]\n  integration_time: 8.0", []float64{t0 + 0.25}, []float64{8}, 0, ""},
		{"time_offset", "start_time: 0.0\n  time_offset: 2459845.0\n  Ntimes: 3\n  integration_time: 600.0", std, i600, 0, ""},
		{"time_offset array", "time_array: [0.0, 0.5]\n  time_offset: 2459845.0\n  integration_time: 1.0",
			[]float64{t0, t0 + 0.5}, []float64{1, 1}, 0, ""},
		{"time_offset not added", "start_time: 2459845.0\n  time_offset: 2400000.0\n  Ntimes: 3\n  integration_time: 600.0", std, i600, 0, "not adding time_offset to start_time"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := mustRead(t, files{obs: obsWith("", "time:\n  "+tc.time+"\n", "")})
			closeAll(t, "TimesJD", c.TimesJD, tc.want, 2e-9)
			closeAll(t, "IntegrationTime", c.IntegrationTime, tc.it, tc.itTol)
			if tc.warnFrag != "" && !hasWarning(c, tc.warnFrag) {
				t.Errorf("no warning with %q in %q", tc.warnFrag, c.Warnings)
			}
		})
	}
}

// TestStartTimeIsFirstCentre pins pyuvsim's rule: start_time is the centre
// of the first integration, not its leading edge.
func TestStartTimeIsFirstCentre(t *testing.T) {
	c := mustRead(t, files{obs: obsWith("", "time:\n  start_time: 2459845.5\n  Ntimes: 2\n  integration_time: 86.4\n", "")})
	if c.TimesJD[0] != 2459845.5 {
		t.Fatalf("first time %.17g, want exactly start_time 2459845.5", c.TimesJD[0])
	}
	closeAll(t, "TimesJD", c.TimesJD, []float64{2459845.5, 2459845.501}, 2e-9)
}

func TestTimeErrors(t *testing.T) {
	cases := []struct {
		name  string
		time  string
		frags []string
	}{
		{"MJD", "start_time: 59845.0\n  Ntimes: 3\n  integration_time: 600.0", []string{"Modified Julian Date", "2459845.5"}},
		{"year", "start_time: 2022.5\n  Ntimes: 3\n  integration_time: 600.0", []string{"looks like a year"}},
		{"unix", "start_time: 1663000000.0\n  Ntimes: 3\n  integration_time: 600.0", []string{"Unix seconds"}},
		{"small", "start_time: 12.0\n  Ntimes: 3\n  integration_time: 600.0", []string{"not a plausible Julian date"}},
		{"no start or end", "Ntimes: 3\n  integration_time: 600.0", []string{"either start_time or end_time must be specified"}},
		{"start only", "start_time: 2459845.0\n  Ntimes: 3", []string{"two more of Ntimes, integration_time and duration"}},
		{"start end only", "start_time: 2459845.0\n  end_time: 2459846.0", []string{"either Ntimes or integration_time"}},
		{"not divisible", "start_time: 2459845.0\n  end_time: 2459845.01\n  integration_time: 600.0", []string{"evenly divisible"}},
		{"inconsistent Ntimes", "start_time: 2459845.0\n  end_time: 2459845.013888889\n  Ntimes: 3\n  integration_time: 300.0",
			[]string{"integration_time[0] is not consistent", "[300]", "[600"}},
		{"inconsistent hours", "start_time: 2459845.0\n  Ntimes: 3\n  integration_time: 600.0\n  duration_hours: 1.0", []string{"duration_hours is not consistent", "[1]", "[0.5"}},
		{"negative int", "start_time: 2459845.0\n  Ntimes: 3\n  integration_time: -600.0", []string{"integration_time = -600: it must be positive"}},
		{"decreasing", "start_time: 2459845.013888889\n  end_time: 2459845.0\n  Ntimes: 3", []string{"integration_time = -600.0000", "must be positive"}},
		{"Ntimes 0", "start_time: 2459845.0\n  Ntimes: 0\n  integration_time: 600.0", []string{"Ntimes = 0"}},
		{"uneven array", "time_array: [2459845.0, 2459845.1, 2459845.5]", []string{"integration_time must be specified if spacing in time_array is uneven"}},
		{"string", "start_time: '2022-09-20T12:00'\n  Ntimes: 3\n  integration_time: 600.0", []string{"time.start_time", "must be a number"}},
		{"unknown key", "start_time: 2459845.0\n  Ntimes: 3\n  inttime: 600.0", []string{"time.inttime", "unknown key"}},
		{"integration_time 1e300", "start_time: 2459845.0\n  Ntimes: 3\n  integration_time: 1e300", []string{"integration_time[0] is not consistent", "differ only in the last digits", "0.001 s", "units"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readCase(t, files{obs: obsWith("", "time:\n  "+tc.time+"\n", "")})
			wantErr(t, err, append(tc.frags, "obsparam.yaml")...)
		})
	}
}

// TestInconsistentNumbersDiffer: a refusal for keys that disagree prints
// two different numbers (integration_time: 1e300 printed [1e+300] against
// [1e+300]).
func TestInconsistentNumbersDiffer(t *testing.T) {
	re := regexp.MustCompile(`input values were \[([^\]]*)\], calculated values were \[([^\]]*)\]`)
	for _, it := range []string{"1e300", "1e20", "300.0"} {
		time := "start_time: 2459845.0\n  end_time: 2459845.013888889\n  Ntimes: 3\n  integration_time: " + it
		if it != "300.0" {
			time = "start_time: 2459845.0\n  Ntimes: 3\n  integration_time: " + it
		}
		_, err := readCase(t, files{obs: obsWith("", "time:\n  "+time+"\n", "")})
		if err == nil {
			t.Fatalf("%s: accepted", it)
		}
		m := re.FindStringSubmatch(err.Error())
		if m == nil || m[1] == m[2] {
			t.Errorf("%s: %v: want two different numbers", it, err)
		}
	}
}
