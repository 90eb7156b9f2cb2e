package astro

import (
	"math"
	"testing"
)

// TestApparentLSTAgainstPyuvdata: the lst_array pyuvdata 2.4.2 wrote into
// testdata/reference/pyuvsim-stokesI-gaussian/stokesI-gaussian.uvh5
// (astropy 5.2.1, its bundled IERS-B; UT1 − UTC from that folder's
// eop.json) at HERA's longitude.
func TestApparentLSTAgainstPyuvdata(t *testing.T) {
	lon := 21.428303826863015 * math.Pi / 180
	for _, c := range []struct{ jd, dut1, want float64 }{
		{2459845.0, -0.005722, 3.5388119160326212},
		{2459845.0069444445, -0.005718181944415998, 3.58256461009891},
		{2459845.013888889, -0.005714363888831996, 3.6263173041560393},
	} {
		got, err := ApparentLST(c.jd, lon, EOP{UT1MinusUTCSec: c.dut1})
		if err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(got - c.want); d > 1e-11 {
			t.Errorf("jd %v: LST %.15f, pyuvdata %.15f (Δ %.2e rad)", c.jd, got, c.want, d)
		}
	}
	if _, err := ApparentLST(math.NaN(), lon, EOP{}); err == nil {
		t.Error("NaN date: no error")
	}
}
