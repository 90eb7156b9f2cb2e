package obsparam

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/uvh5"
)

// grid20x2160 is pyuvsim 1.2.6's time_array for 20 integrations of 2160 s
// from JD 2459845.0, computed by hand with Python floats following
// parse_time_params and numpy 1.24's linspace operation for operation
// (start + i*((end + inttime - start)/N)). pyuvsim 1.4's
// linspace(start, end, N) gives one ulp more at samples 12 and 17.
const grid20x2160 = "0x1.2c46280000000p+21 0x1.2c46283333333p+21 0x1.2c46286666666p+21 0x1.2c4628999999ap+21 " +
	"0x1.2c4628ccccccdp+21 0x1.2c46290000000p+21 0x1.2c46293333333p+21 0x1.2c46296666666p+21 " +
	"0x1.2c4629999999ap+21 0x1.2c4629ccccccdp+21 0x1.2c462a0000000p+21 0x1.2c462a3333333p+21 " +
	"0x1.2c462a6666666p+21 0x1.2c462a999999ap+21 0x1.2c462accccccdp+21 0x1.2c462b0000000p+21 " +
	"0x1.2c462b3333333p+21 0x1.2c462b6666666p+21 0x1.2c462b999999ap+21 0x1.2c462bccccccdp+21"

func hexFloats(t *testing.T, s string) []float64 {
	t.Helper()
	var out []float64
	for _, f := range strings.Fields(s) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// sameBits fails unless got and want are equal bit for bit.
func sameBits(t *testing.T, name string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", name, len(got), len(want))
	}
	for i := range got {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Errorf("%s[%d] = %.17g (%x), want %.17g (%x): %d ulps", name, i, got[i], got[i], want[i], want[i],
				int64(math.Float64bits(got[i]))-int64(math.Float64bits(want[i])))
		}
	}
}

// TestTimeGridPyuvsim126 checks every key combination pyuvsim 1.2.6
// accepts against its time_array, bit for bit (hand-computed as above).
func TestTimeGridPyuvsim126(t *testing.T) {
	g20 := grid20x2160
	cases := []struct{ name, time, want string }{
		{"start+Ntimes+int", "start_time: 2459845.0\n  Ntimes: 20\n  integration_time: 2160.0", g20},
		{"end+Ntimes+int", "end_time: 2459845.475\n  Ntimes: 20\n  integration_time: 2160.0", g20},
		{"start+end+int", "start_time: 2459845.0\n  end_time: 2459845.475\n  integration_time: 2160.0", g20},
		{"start+end+Ntimes+int", "start_time: 2459845.0\n  end_time: 2459845.475\n  Ntimes: 20\n  integration_time: 2160.0", g20},
		{"start+hours+Ntimes", "start_time: 2459845.0\n  duration_hours: 12.0\n  Ntimes: 20", g20},
		{"start+days+int", "start_time: 2459845.0\n  duration_days: 0.5\n  integration_time: 2160.0", g20},
		{"end+hours+int", "end_time: 2459845.475\n  duration_hours: 12.0\n  integration_time: 2160.0", g20},
		{"start+end+Ntimes+hours", "start_time: 2459845.0\n  end_time: 2459845.475\n  Ntimes: 20\n  duration_hours: 12.0", g20},
		{"time_offset", "start_time: 0.0\n  time_offset: 2459845.0\n  Ntimes: 20\n  integration_time: 2160.0", g20},
		{"3 x 600 s", "start_time: 2459845.0\n  Ntimes: 3\n  integration_time: 600.0",
			"0x1.2c46280000000p+21 0x1.2c46280e38e39p+21 0x1.2c46281c71c72p+21"},
		{"odd step", "start_time: 2458000.123456\n  Ntimes: 7\n  integration_time: 10.7",
			"0x1.2c0c80fcd67fdp+21 0x1.2c0c80fd176dbp+21 0x1.2c0c80fd585b9p+21 0x1.2c0c80fd99497p+21 " +
				"0x1.2c0c80fdda375p+21 0x1.2c0c80fe1b253p+21 0x1.2c0c80fe5c131p+21"},
		{"one time from the end", "end_time: 2459845.3\n  Ntimes: 1\n  integration_time: 10.7", "0x1.2c462a6666666p+21"},
		// A time_array is honoured as given (YAML's decimal read as Go and
		// Python read it: 0x1.2c4628fcd6e9cp+21 is 2459845.1234567891).
		{"time_array as given", "time_array: [2459845.1234567891, 2459845.3]\n  integration_time: 10.7",
			"0x1.2c4628fcd6e9cp+21 0x1.2c462a6666666p+21"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := mustRead(t, files{obs: obsWith("", "time:\n  "+tc.time+"\n", "")})
			sameBits(t, "TimesJD", c.TimesJD, hexFloats(t, tc.want))
		})
	}
}

// TestTimeGridPyuvsim14Fallback: start, end and Ntimes alone are refused
// by pyuvsim 1.2.6 and sampled by pyuvsim 1.4 as linspace(start, end, N),
// whose last value is end exactly.
func TestTimeGridPyuvsim14Fallback(t *testing.T) {
	c := mustRead(t, files{obs: obsWith("", "time:\n  start_time: 2459845.0\n  end_time: 2459845.475\n  Ntimes: 20\n", "")})
	// Variables, not constants: Go folds constant expressions exactly.
	start, end := 2459845.0, 2459845.475
	want := make([]float64, 20)
	step := (end - start) / 19
	for i := range want {
		want[i] = float64(float64(i)*step) + start
	}
	want[19] = end
	sameBits(t, "TimesJD", c.TimesJD, want)
}

// TestTimeGridReferences compares the times read from each pyuvsim
// reference's obsparam with the time_array pyuvsim wrote, bit for bit.
func TestTimeGridReferences(t *testing.T) {
	for _, name := range []string{"stokesI-gaussian", "fullstokes-airy"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(refDir, "pyuvsim-"+name)
			c, err := Read(filepath.Join(dir, "obsparam.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			f, err := uvh5.ReadFile(filepath.Join(dir, name+".uvh5"))
			if err != nil {
				t.Fatal(err)
			}
			var times []float64
			for i, jd := range f.Header.Times {
				if i == 0 || jd != times[len(times)-1] {
					times = append(times, jd)
				}
			}
			sameBits(t, "TimesJD", c.TimesJD, times)
		})
	}
}
