package skymodel

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// checkSky asserts the invariants of any Sky a reader returns.
func checkSky(t *testing.T, s *Sky) {
	t.Helper()
	if s.Len() == 0 {
		t.Fatal("reader returned an empty sky")
	}
	for i := range s.Len() {
		if !finite(s.RA()[i]) || math.Abs(s.Dec()[i]) > math.Pi/2+1e-12 {
			t.Fatalf("component %d: position %g %g", i, s.RA()[i], s.Dec()[i])
		}
	}
	buf := make([]float64, s.Len())
	f := 150e6
	if fr := s.Freqs(); len(fr) > 0 {
		f = fr[0]
	}
	for p := range 4 {
		if err := s.StokesAt(f, p, buf); err != nil && s.Spectral() != Subband {
			t.Fatalf("StokesAt(%g, %d): %v", f, p, err)
		}
	}
}

func addFileSeeds(f *testing.F, paths ...string) {
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

func FuzzReadText(f *testing.F) {
	addFileSeeds(f, filepath.Join(refDir, "pyuvsim-stokesI-gaussian", "sky.txt"),
		filepath.Join(refDir, "pyuvsim-fullstokes-airy", "sky.txt"))
	for _, s := range []string{
		"source_id ra_icrs [deg] dec_icrs [deg] Flux_subband_76_MHz [Jy] Flux_subband_84_MHz [Jy]\nA 10 -30 1 2\n",
		"source_id l_galactic [deg] b_galactic [deg] Flux [Jy] Flux_error [Jy]\nA 10 -30 1 0.1\n# c\n",
		"source_id ra_j2000 dec_j2000 Flux Frequency\nA 1 2 3 1e8\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadText(bytes.NewReader(data), "fuzz.txt")
		if err != nil {
			return
		}
		checkSky(t, s)
	})
}

func FuzzReadVOTable(f *testing.F) {
	addFileSeeds(f, "testdata/gleam_small.vot")
	f.Add([]byte(miniVOT))
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := []VOTableOptions{miniOpts()}
		for _, st := range []SpectralType{Flat, Subband} {
			o, _ := GLEAMOptions(st)
			opts = append(opts, o)
		}
		for _, o := range opts {
			s, err := ReadVOTable(bytes.NewReader(data), "fuzz.vot", o)
			if err == nil {
				checkSky(t, s)
			}
		}
	})
}

func FuzzReadStokesTSV(f *testing.F) {
	addFileSeeds(f, filepath.Join(refDir, "pyuvsim-fullstokes-airy", "sky_stokes.tsv"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if s, err := ReadStokesTSV(bytes.NewReader(data), "fuzz.tsv"); err == nil {
			checkSky(t, s)
		}
	})
}
