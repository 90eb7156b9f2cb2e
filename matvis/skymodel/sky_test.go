package skymodel

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/matvis/skymodel/healpix"
)

func relClose(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(math.Abs(b), 1e-300)
}

func mustNew(t *testing.T, c Components) *Sky {
	t.Helper()
	s, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSpectralIndexAllStokes(t *testing.T) {
	s := mustNew(t, Components{
		RA: []float64{0, 1}, Dec: []float64{0, -1}, Spectral: SpectralIndex,
		Stokes:  [4][]float64{{2, 5}, {1, 0}, {0, -1}, {0.5, 0}},
		RefFreq: []float64{100e6, 150e6}, Index: []float64{-0.8, 1.3},
	})
	if !s.Polarized() {
		t.Error("Polarized() false with non-zero Q/U/V")
	}
	buf := make([]float64, 2)
	for _, f := range []float64{50e6, 100e6, 123.456e6, 200e6} {
		for p := range 4 {
			if err := s.StokesAt(f, p, buf); err != nil {
				t.Fatal(err)
			}
			for i := range 2 {
				want := s.c.Stokes[p][i] * math.Pow(f/s.c.RefFreq[i], s.c.Index[i])
				if !relClose(buf[i], want, 1e-14) && math.Abs(buf[i]-want) > 1e-300 {
					t.Errorf("f %g Stokes %d comp %d: %g want %g", f, p, i, buf[i], want)
				}
			}
		}
	}
}

func TestFlatAndFull(t *testing.T) {
	flat := mustNew(t, Components{RA: []float64{1}, Dec: []float64{0}, Spectral: Flat, Stokes: [4][]float64{{3}}})
	if flat.Polarized() {
		t.Error("unpolarized sky says Polarized")
	}
	full := mustNew(t, Components{RA: []float64{1, 2}, Dec: []float64{0, 0}, Spectral: Full,
		Freqs: []float64{100e6, 150e6}, Stokes: [4][]float64{{1, 2, 3, 4}}})
	buf := make([]float64, 1)
	if err := flat.StokesIAt(77e6, buf); err != nil || buf[0] != 3 {
		t.Errorf("flat: %v %v", buf, err)
	}
	buf2 := make([]float64, 2)
	cases := []struct {
		f    float64
		want []float64
		ok   bool
	}{
		{100e6, []float64{1, 2}, true},
		{150e6, []float64{3, 4}, true},
		{150e6 + 1000, []float64{3, 4}, true}, // within 1 Hz + 1e-5·f (numpy.isclose)
		{150e6 + 2600, nil, false},
		{125e6, nil, false},
	}
	for _, c := range cases {
		err := full.StokesIAt(c.f, buf2)
		if (err == nil) != c.ok {
			t.Errorf("full at %g: err %v", c.f, err)
			continue
		}
		if err != nil {
			if !errors.Is(err, ErrNoFrequency) || !strings.Contains(err.Error(), "Hz") {
				t.Errorf("full at %g: error %q should name the frequency and wrap ErrNoFrequency", c.f, err)
			}
			continue
		}
		if buf2[0] != c.want[0] || buf2[1] != c.want[1] {
			t.Errorf("full at %g: %v want %v", c.f, buf2, c.want)
		}
	}
}

// TestSubbandCubic checks the not-a-knot spline against scipy's
// interp1d(kind="cubic") values (computed once with scipy 1.10) and its
// exactness on a cubic polynomial.
func TestSubbandCubic(t *testing.T) {
	x := []float64{100e6, 110e6, 125e6, 130e6, 150e6}
	s := mustNew(t, Components{RA: []float64{0}, Dec: []float64{0}, Spectral: Subband,
		Freqs: x, Stokes: [4][]float64{{1.0, 2.5, -0.5, 3.0, 2.0}}})
	scipy := map[float64]float64{100e6: 1.0, 104e6: 3.046350769230769, 117.3e6: -0.315404701538462, 149.9e6: 2.236680086153846}
	buf := make([]float64, 1)
	for f, want := range scipy {
		if err := s.StokesIAt(f, buf); err != nil {
			t.Fatal(err)
		}
		if math.Abs(buf[0]-want) > 1e-12 {
			t.Errorf("%g Hz: %.16g, scipy %.16g", f, buf[0], want)
		}
	}
	poly := func(f float64) float64 { u := f/1e8 - 1.2; return 2 - u + 3*u*u - 5*u*u*u }
	ys := make([]float64, len(x))
	for k, f := range x {
		ys[k] = poly(f)
	}
	p := mustNew(t, Components{RA: []float64{0}, Dec: []float64{0}, Spectral: Subband, Freqs: x, Stokes: [4][]float64{ys}})
	for f := 100e6; f <= 150e6; f += 3.7e6 {
		if err := p.StokesIAt(f, buf); err != nil {
			t.Fatal(err)
		}
		if math.Abs(buf[0]-poly(f)) > 1e-12 {
			t.Errorf("cubic not reproduced at %g: %g vs %g", f, buf[0], poly(f))
		}
	}
	p.SetSubbandInterp(Linear)
	if err := p.StokesIAt(105e6, buf); err != nil || math.Abs(buf[0]-(ys[0]+ys[1])/2) > 1e-12 {
		t.Errorf("linear at 105 MHz: %g, want %g (%v)", buf[0], (ys[0]+ys[1])/2, err)
	}
	for _, f := range []float64{99e6, 151e6, -1, math.NaN(), math.Inf(1)} {
		if err := p.StokesIAt(f, buf); !errors.Is(err, ErrNoFrequency) {
			t.Errorf("%g Hz: want ErrNoFrequency, got %v", f, err)
		}
	}
}

// TestSubbandNaNClip follows pyradiosky's nan_handling="clip": interpolate
// over the non-NaN subbands, hold the nearest non-NaN value outside them.
func TestSubbandNaNClip(t *testing.T) {
	x := []float64{100e6, 110e6, 120e6, 130e6, 140e6, 150e6}
	nan := math.NaN()
	I := [][]float64{
		{1, 2, 3, 4, 5, 6},             // clean
		{2, 2, 2, 2, 1, nan},           // NaN at the top subband
		{nan, nan, 5, 4, 3, 2},         // NaN at the two lowest (4 left: cubic)
		{nan, nan, nan, 2, 1, nan},     // two usable: linear
		{nan, nan, nan, nan, nan, nan}, // none usable: NaN
		{nan, nan, nan, nan, 1, nan},   // one usable: held everywhere
	}
	nc := len(I)
	st := make([]float64, nc*len(x)) // frequency-major
	for i := range I {
		for k := range x {
			st[k*nc+i] = I[i][k]
		}
	}
	s := mustNew(t, Components{RA: make([]float64, nc), Dec: make([]float64, nc), Spectral: Subband, Freqs: x, Stokes: [4][]float64{st}})
	buf := make([]float64, nc)
	if err := s.StokesIAt(145e6, buf); err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(buf[4]) {
		t.Errorf("all-NaN component gave %g", buf[4])
	}
	if buf[1] != 1 { // beyond its last usable subband (140 MHz): held
		t.Errorf("comp 1 at 145 MHz: %g, want 1 (clipped)", buf[1])
	}
	if err := s.StokesIAt(100e6, buf); err != nil {
		t.Fatal(err)
	}
	if buf[2] != 5 || buf[3] != 2 { // below first usable subband: held
		t.Errorf("at 100 MHz: comps 2, 3 = %g, %g; want 5, 2", buf[2], buf[3])
	}
	if err := s.StokesIAt(135e6, buf); err != nil {
		t.Fatal(err)
	}
	if math.Abs(buf[3]-1.5) > 1e-12 { // linear between (130, 2) and (140, 1)
		t.Errorf("comp 3 at 135 MHz: %g, want 1.5", buf[3])
	}
	if buf[5] != 1 {
		t.Errorf("comp 5 (one usable subband) at 135 MHz: %g, want 1", buf[5])
	}
	if math.Abs(buf[0]-4.5) > 1e-12 { // clean, linear data: the spline is exact
		t.Errorf("comp 0 at 135 MHz: %g, want 4.5", buf[0])
	}
	if err := s.StokesIAt(125e6, buf); err != nil {
		t.Fatal(err)
	}
	if math.Abs(buf[2]-4.5) > 1e-12 { // cubic over its 4 linear points
		t.Errorf("comp 2 at 125 MHz: %g, want 4.5", buf[2])
	}
}

func TestSubbandTooFewForCubic(t *testing.T) {
	s := mustNew(t, Components{RA: []float64{0}, Dec: []float64{0}, Spectral: Subband,
		Freqs: []float64{150e6, 100e6}, Stokes: [4][]float64{{3, 1}}})
	buf := make([]float64, 1)
	if err := s.StokesIAt(120e6, buf); err == nil || !strings.Contains(err.Error(), "at least 4") {
		t.Errorf("cubic with 2 subbands: %v", err)
	}
	s.SetSubbandInterp(Linear)
	if err := s.StokesIAt(120e6, buf); err != nil || math.Abs(buf[0]-1.8) > 1e-12 {
		t.Errorf("linear after sorting the subbands: %g %v", buf[0], err)
	}
}

func TestNewRejects(t *testing.T) {
	ok := func() Components {
		return Components{RA: []float64{0}, Dec: []float64{0}, Spectral: SpectralIndex,
			Stokes: [4][]float64{{1}}, RefFreq: []float64{1e8}, Index: []float64{-1}}
	}
	cases := map[string]func(c *Components){
		"no components":    func(c *Components) { c.RA, c.Dec = nil, nil },
		"dec length":       func(c *Components) { c.Dec = []float64{0, 1} },
		"dec out of range": func(c *Components) { c.Dec[0] = 2 },
		"ra NaN":           func(c *Components) { c.RA[0] = math.NaN() },
		"ref negative":     func(c *Components) { c.RefFreq[0] = -1 },
		"ref missing":      func(c *Components) { c.RefFreq = nil },
		"index NaN":        func(c *Components) { c.Index[0] = math.NaN() },
		"stokes Inf":       func(c *Components) { c.Stokes[0][0] = math.Inf(1) },
		"stokes NaN":       func(c *Components) { c.Stokes[0][0] = math.NaN() },
		"stokes Q length":  func(c *Components) { c.Stokes[1] = []float64{1, 2} },
		"unknown type":     func(c *Components) { c.Spectral = 9 },
		"full no freqs": func(c *Components) {
			c.Spectral = Full
			c.RefFreq, c.Index = nil, nil
		},
		"subband duplicate freq": func(c *Components) {
			c.Spectral, c.Freqs, c.Stokes[0] = Subband, []float64{1e8, 1e8}, []float64{1, 2}
		},
	}
	if _, err := New(ok()); err != nil {
		t.Fatalf("valid components: %v", err)
	}
	for name, mut := range cases {
		c := ok()
		mut(&c)
		if _, err := New(c); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestStokesAtArguments(t *testing.T) {
	s := mustNew(t, Components{RA: []float64{0}, Dec: []float64{0}, Spectral: Flat, Stokes: [4][]float64{{1}}})
	if err := s.StokesAt(1e8, 4, make([]float64, 1)); err == nil {
		t.Error("Stokes index 4 accepted")
	}
	if err := s.StokesAt(1e8, 0, make([]float64, 2)); err == nil {
		t.Error("wrong buffer length accepted")
	}
}

// TestJyPerKSr compares with astropy 5.2's brightness_temperature
// equivalency: (1 K).to(Jy, brightness_temperature(f, beam_area=1 sr)).
func TestJyPerKSr(t *testing.T) {
	for f, want := range map[float64]float64{50e6: 76.80895936201863, 150e6: 691.2806342581678, 1.4e9: 60218.22413982262} {
		if got := JyPerKSr(f); !relClose(got, want, 1e-14) {
			t.Errorf("JyPerKSr(%g) = %.16g, astropy %.16g", f, got, want)
		}
	}
}

func TestSelect(t *testing.T) {
	full := mustNew(t, Components{
		Names: []string{"a", "b", "c", "d"}, RA: []float64{0, 1, 2, 3}, Dec: []float64{0, 0, 0, 0},
		Spectral: Full, Freqs: []float64{1e8, 2e8},
		Stokes: [4][]float64{{1, -1, 5, 0.5, 2, 3, 6, 0.4}, {0, 0, 0, 0.1, 0, 0, 0, 0}},
	})
	inf := math.Inf(1)
	cases := []struct {
		min, max float64
		nonNeg   bool
		want     string
	}{
		{-inf, inf, true, "acd"},
		{1, inf, false, "ac"}, // min over both frequencies ≥ 1
		{-inf, 3, false, "abd"},
		{0.45, 5.5, true, "a"},
	}
	for _, c := range cases {
		got, err := full.Select(c.min, c.max, c.nonNeg)
		if err != nil {
			t.Errorf("%+v: %v", c, err)
			continue
		}
		if names := strings.Join(got.Names(), ""); names != c.want {
			t.Errorf("%+v: kept %q, want %q", c, names, c.want)
		}
	}
	sel, _ := full.Select(-inf, 3, false)
	buf := make([]float64, 3)
	if err := sel.StokesIAt(2e8, buf); err != nil || buf[0] != 2 || buf[1] != 3 || buf[2] != 0.4 {
		t.Errorf("selected fluxes at 200 MHz: %v %v", buf, err)
	}
	if _, err := full.Select(100, inf, false); !errors.Is(err, ErrEmptySelection) {
		t.Errorf("empty selection: %v", err)
	}
	si := mustNew(t, Components{RA: []float64{0}, Dec: []float64{0}, Spectral: SpectralIndex,
		Stokes: [4][]float64{{1}}, RefFreq: []float64{1e8}, Index: []float64{-1}})
	if _, err := si.Select(0.5, inf, false); err == nil {
		t.Error("flux cut on a spectral_index sky accepted")
	}
	if _, err := si.Select(-inf, inf, true); err != nil {
		t.Errorf("non_negative on spectral_index: %v", err)
	}
}

// TestFlatKelvinPerChannel: a flat HEALPix map in K with no frequency is
// converted to Jy at each evaluated frequency, as pyuvsim does.
func TestKelvinPerChannel(t *testing.T) {
	u, err := parseFluxUnit("K")
	if err != nil {
		t.Fatal(err)
	}
	omega := healpix.PixelArea(16)
	s, err := build("map.skyh5", Components{RA: []float64{1}, Dec: []float64{0.5}, Spectral: Flat, Stokes: [4][]float64{{300}}}, u, omega)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]float64, 1)
	for _, f := range []float64{50e6, 150e6} {
		if err := s.StokesIAt(f, buf); err != nil || !relClose(buf[0], 300*omega*JyPerKSr(f), 1e-15) {
			t.Errorf("%g Hz: %g (%v), want %g", f, buf[0], err, 300*omega*JyPerKSr(f))
		}
	}
	if _, err := s.Select(1, math.Inf(1), false); err == nil {
		t.Error("flux cut on a per-channel K sky accepted")
	}
	if sub, err := s.Select(math.Inf(-1), math.Inf(1), true); err != nil || !sub.InKelvin() {
		t.Errorf("non_negative select lost the K conversion: %v", err)
	}
}

func TestSelectNonNaN(t *testing.T) {
	nan := math.NaN()
	x := []float64{100e6, 110e6, 120e6, 130e6}
	I := [][]float64{{1, 2, 3, 4}, {nan, 2, 3, 4}, {nan, nan, nan, nan}, {1, 1, 1, 1}}
	st := make([]float64, 16)
	for i := range I {
		for k := range x {
			st[k*4+i] = I[i][k]
		}
	}
	q := make([]float64, 16)
	q[3*4+3] = nan // component 3: NaN only in Q at the top subband
	s := mustNew(t, Components{Names: []string{"a", "b", "c", "d"}, RA: make([]float64, 4), Dec: make([]float64, 4),
		Spectral: Subband, Freqs: x, Stokes: [4][]float64{st, q}})
	for mode, want := range map[string]string{"any": "a", "all": "abd"} {
		sub, err := s.SelectNonNaN(mode)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(sub.Names(), ""); got != want {
			t.Errorf("non_nan=%s kept %q, want %q", mode, got, want)
		}
	}
	if _, err := s.SelectNonNaN("some"); err == nil {
		t.Error("bad mode accepted")
	}
}

// TestSpectralIndexLarge covers the multi-goroutine path of the power law.
func TestSpectralIndexLarge(t *testing.T) {
	s := spectralIndexSky(300_001)
	buf := make([]float64, s.Len())
	if err := s.StokesIAt(173e6, buf); err != nil {
		t.Fatal(err)
	}
	for i := range buf {
		want := s.c.Stokes[0][i] * math.Pow(173e6/s.c.RefFreq[i], s.c.Index[i])
		if !relClose(buf[i], want, 1e-13) {
			t.Fatalf("component %d: %g, want %g", i, buf[i], want)
		}
	}
	if err := s.StokesAt(173e6, Q, buf); err != nil || !allZero(buf) {
		t.Errorf("unpolarized Q: %v", err)
	}
}
