package main

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/gomatvis/gomatvis/matvis/obsparam"
	"github.com/gomatvis/gomatvis/matvis/simspec"
	"github.com/gomatvis/gomatvis/matvis/skymodel"
)

// TestFormsHoldOneSky writes every form and reads each back through the
// readers gomatvis simulate uses: the layout, channels and sky must be the
// generator's in all four, so the benchmark's cases differ only in how the
// same simulation reaches the program.
func TestFormsHoldOneSky(t *testing.T) {
	const nsrc, nfreq = 500, 3
	r := rand.New(rand.NewPCG(1, 0x6e2e))
	ants := hexLayout(r)
	want := newSky(r, nsrc)
	f := freqs(nfreq)
	for _, form := range []string{"inline", "text", "skyh5", "obsparam"} {
		t.Run(form, func(t *testing.T) {
			dir := t.TempDir()
			if err := run(config{form: form, nsrc: nsrc, nfreq: nfreq, ntime: 2, precision: 2, seed: 1, dir: dir}); err != nil {
				t.Fatal(err)
			}
			if form == "obsparam" {
				checkObsparam(t, filepath.Join(dir, "obsparam.yaml"), ants, f)
				checkCatalog(t, filepath.Join(dir, "sky.skyh5"), want, f)
				return
			}
			spec, err := simspec.ReadFile(filepath.Join(dir, "spec.json"))
			if err != nil {
				t.Fatal(err)
			}
			checkSpec(t, spec, ants, f)
			if form == "inline" {
				checkInline(t, spec.Sources, want, f)
				return
			}
			checkCatalog(t, filepath.Join(dir, spec.Sources.Catalog.Path), want, f)
		})
	}
}

func checkSpec(t *testing.T, s *simspec.Spec, ants [][3]float64, f []float64) {
	t.Helper()
	if len(s.AntennasENU) != nAnt || len(s.FreqsHz) != len(f) || len(s.TimesJD) != 2 {
		t.Fatalf("spec: %d antennas, %d channels, %d times", len(s.AntennasENU), len(s.FreqsHz), len(s.TimesJD))
	}
	for i, a := range ants {
		for k := range 3 {
			if s.AntennasENU[i][k] != a[k] {
				t.Fatalf("antenna %d: %v, want %v", i, s.AntennasENU[i], a)
			}
		}
	}
	for i := range f {
		if s.FreqsHz[i] != f[i] {
			t.Fatalf("channel %d: %v Hz, want %v", i, s.FreqsHz[i], f[i])
		}
	}
}

func checkInline(t *testing.T, src simspec.Sources, want *sky, f []float64) {
	t.Helper()
	flux := src.FluxJy.Values() // row-major: source × channel
	if len(flux) != len(want.raDeg)*len(f) {
		t.Fatalf("%d fluxes, want %d", len(flux), len(want.raDeg)*len(f))
	}
	for i := range want.raDeg {
		if src.RARad[i] != want.raDeg[i]*math.Pi/180 || src.DecRad[i] != want.decDeg[i]*math.Pi/180 {
			t.Fatalf("source %d at (%v, %v) rad, want (%v, %v) deg", i, src.RARad[i], src.DecRad[i], want.raDeg[i], want.decDeg[i])
		}
		for k, fk := range f {
			w := want.fluxJy[i] * math.Pow(fk/refFreqHz, want.index[i])
			if got := flux[i*len(f)+k]; got != w {
				t.Fatalf("source %d channel %d: %v Jy, want %v", i, k, got, w)
			}
		}
	}
}

// checkCatalog compares the catalog's positions (to the rounding of a
// degree-to-radian conversion) and Stokes I at every channel.
func checkCatalog(t *testing.T, path string, want *sky, f []float64) {
	t.Helper()
	s, err := skymodel.ReadFile(path, "")
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != len(want.raDeg) {
		t.Fatalf("%s: %d sources, want %d", path, s.Len(), len(want.raDeg))
	}
	const deg = math.Pi / 180
	for i := range want.raDeg {
		if math.Abs(s.RA()[i]-want.raDeg[i]*deg) > 1e-14 || math.Abs(s.Dec()[i]-want.decDeg[i]*deg) > 1e-14 {
			t.Fatalf("%s: source %d at (%v, %v) rad, want (%v, %v) deg", path, i, s.RA()[i], s.Dec()[i], want.raDeg[i], want.decDeg[i])
		}
	}
	got := make([]float64, s.Len())
	for _, fk := range f {
		if err := s.StokesAt(fk, 0, got); err != nil {
			t.Fatal(err)
		}
		for i, g := range got {
			if w := want.fluxJy[i] * math.Pow(fk/refFreqHz, want.index[i]); math.Abs(g-w) > 1e-13*w {
				t.Fatalf("%s: source %d at %v Hz: %v Jy, want %v", path, i, fk, g, w)
			}
		}
	}
}

func checkObsparam(t *testing.T, path string, ants [][3]float64, f []float64) {
	t.Helper()
	c, err := obsparam.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Freqs) != len(f) || math.Abs(c.Freqs[len(f)-1]-f[len(f)-1]) > 1e-6 || len(c.TimesJD) != 2 || len(c.Pols) != 1 || c.Pols[0] != -5 {
		t.Fatalf("obsparam: channels %v, times %v, pols %v", c.Freqs, c.TimesJD, c.Pols)
	}
	enu := c.Telescope.AntennaENU()
	if len(enu) != nAnt {
		t.Fatalf("obsparam: %d antennas", len(enu))
	}
	for i, a := range ants {
		for k := range 3 {
			if math.Abs(enu[i][k]-a[k]) > 5e-7 { // the layout's 6 decimals
				t.Fatalf("obsparam antenna %d: %v, want %v", i, enu[i], a)
			}
		}
	}
}
