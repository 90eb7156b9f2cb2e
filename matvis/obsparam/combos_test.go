package obsparam

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// section writes a YAML section from the keys chosen out of base.
func section(name string, keys []string, base map[string]string) string {
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(name + ":\n")
	seen := map[string]bool{}
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			fmt.Fprintf(&b, "  %s: %s\n", k, base[k])
		}
	}
	return b.String()
}

// TestFreqKeySets tries every way pyuvsim's documentation says the band can
// be given: a band (start+end, width+N, or bandwidth) x a width (N or
// width) x a reference (start or end), all from one consistent set.
func TestFreqKeySets(t *testing.T) {
	base := map[string]string{
		"Nfreqs": "10", "channel_width": "0.5e+6", "start_freq": "100.0e+6",
		"end_freq": "104.5e+6", "bandwidth": "5.0e+6",
	}
	want := make([]float64, 10)
	for k := range want {
		want[k] = 100e6 + 0.5e6*float64(k)
	}
	for _, band := range [][]string{{"start_freq", "end_freq"}, {"channel_width", "Nfreqs"}, {"bandwidth"}} {
		for _, width := range [][]string{{"Nfreqs"}, {"channel_width"}} {
			for _, ref := range [][]string{{"start_freq"}, {"end_freq"}} {
				keys := append(append(append([]string{}, band...), width...), ref...)
				sec := section("freq", keys, base)
				t.Run(strings.Join(keys, "+"), func(t *testing.T) {
					c := mustRead(t, files{obs: obsWith(sec, "", "")})
					closeAll(t, "Freqs", c.Freqs, want, 1e-6)
					closeAll(t, "ChannelWidth", c.ChannelWidth, fill(10, 0.5e6), 1e-6)
				})
			}
		}
	}
}

// TestTimeKeySets tries the time key sets pyuvsim's tests use: 25 hourly
// integrations from JD 2457458.0 to 2457459.0.
func TestTimeKeySets(t *testing.T) {
	want := make([]float64, 25)
	arr := make([]string, 25)
	for k := range want {
		want[k] = 2457458.0 + float64(k)/24
		arr[k] = fmt.Sprintf("%.10f", want[k])
	}
	base := map[string]string{
		"Ntimes": "25", "duration_hours": "25.0", "start_time": "2457458.0", "end_time": "2457459.0",
		"integration_time": "3600", "time_array": "[" + strings.Join(arr, ", ") + "]",
	}
	sets := [][]string{
		{"start_time", "end_time", "integration_time", "duration_hours", "Ntimes", "time_array"},
		{"start_time", "end_time", "duration_hours", "Ntimes"},
		{"start_time", "end_time", "integration_time", "Ntimes"},
		{"start_time", "integration_time", "duration_hours"},
		{"end_time", "integration_time", "duration_hours"},
		{"start_time", "integration_time", "Ntimes"},
		{"end_time", "integration_time", "Ntimes"},
		{"start_time", "duration_hours", "Ntimes"},
		{"end_time", "duration_hours", "Ntimes"},
		{"time_array"},
	}
	for _, keys := range sets {
		sec := section("time", append([]string{}, keys...), base)
		t.Run(strings.Join(keys, "+"), func(t *testing.T) {
			c := mustRead(t, files{obs: obsWith("", sec, "")})
			closeAll(t, "TimesJD", c.TimesJD, want, 1e-9)
			closeAll(t, "IntegrationTime", c.IntegrationTime, fill(25, 3600), 1e-3)
		})
	}
}
