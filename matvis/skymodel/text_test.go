package skymodel

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

const refDir = "../../testdata/reference"

// TestReferenceTextMatchesSkyH5: each reference folder's sky.txt and
// sky.skyh5 describe the same sky (Stokes I; the text format has no Q/U/V).
func TestReferenceTextMatchesSkyH5(t *testing.T) {
	for _, d := range []string{"pyuvsim-stokesI-gaussian", "pyuvsim-fullstokes-airy"} {
		t.Run(d, func(t *testing.T) {
			txt, err := ReadTextFile(filepath.Join(refDir, d, "sky.txt"))
			if err != nil {
				t.Fatal(err)
			}
			h5, err := ReadSkyH5File(filepath.Join(refDir, d, "sky.skyh5"))
			if err != nil {
				t.Fatal(err)
			}
			if txt.Len() != h5.Len() || txt.Len() < 20 {
				t.Fatalf("lengths %d, %d", txt.Len(), h5.Len())
			}
			if txt.Spectral() != SpectralIndex || h5.Spectral() != SpectralIndex {
				t.Errorf("spectral types %v, %v", txt.Spectral(), h5.Spectral())
			}
			for i := range txt.Len() {
				if txt.Names()[i] != h5.Names()[i] ||
					!relClose(txt.RA()[i], h5.RA()[i], 1e-12) || !relClose(txt.Dec()[i], h5.Dec()[i], 1e-12) {
					t.Errorf("component %d: %s (%.15g, %.15g) vs %s (%.15g, %.15g)", i,
						txt.Names()[i], txt.RA()[i], txt.Dec()[i], h5.Names()[i], h5.RA()[i], h5.Dec()[i])
				}
			}
			a, b := make([]float64, txt.Len()), make([]float64, h5.Len())
			for _, f := range []float64{100e6, 125e6, 150e6} {
				if err := txt.StokesIAt(f, a); err != nil {
					t.Fatal(err)
				}
				if err := h5.StokesIAt(f, b); err != nil {
					t.Fatal(err)
				}
				for i := range a {
					if !relClose(a[i], b[i], 1e-12) || a[i] <= 0 {
						t.Errorf("%g Hz comp %d: text %.17g, skyh5 %.17g", f, i, a[i], b[i])
					}
				}
			}
		})
	}
}

func TestReadTextForms(t *testing.T) {
	type want struct {
		spec  SpectralType
		n     int
		freq  float64   // evaluation frequency
		i0    float64   // Stokes I of the first component there
		freqs []float64 // tabulated frequencies, if any
	}
	cases := []struct {
		name, text string
		w          want
	}{
		{"flat", "source_id\tra_icrs [deg]\tdec_icrs [deg]\tFlux [Jy]\nA 10 -30 2.5\nB 11 -31 1\n",
			want{Flat, 2, 1e8, 2.5, nil}},
		{"flat with error", "SOURCE_ID RA_ICRS [deg] DEC_ICRS [deg] Flux [Jy] Flux_error [Jy]\nA 10 -30 2.5 0.1\n",
			want{Flat, 1, 1e8, 2.5, nil}},
		{"flat with reference frequency", "source_id ra_icrs [deg] dec_icrs [deg] Flux [Jy] Frequency [Hz]\nA 10 -30 2.5 1.5e8\n",
			want{Flat, 1, 1e8, 2.5, nil}},
		{"spectral index", "source_id\tra_icrs [deg]\tdec_icrs [deg]\tFlux [Jy]\tFrequency [Hz]\tSpectral_Index\nA\t10\t-30\t2\t1e8\t-1\n",
			want{SpectralIndex, 1, 2e8, 1, nil}},
		{"spectral index with error", "source_id ra_icrs [deg] dec_icrs [deg] Flux [Jy] Flux_error [Jy] Frequency [Hz] Spectral_Index\nA 10 -30 2 0.2 1e8 -1\n",
			want{SpectralIndex, 1, 2e8, 1, nil}},
		{"full", "source_id ra_icrs [deg] dec_icrs [deg] Flux_subband_76_MHz [Jy] Flux_subband_84_MHz [Jy] Flux_0.1_GHz [Jy]\nA 10 -30 1 2 3\nB 10 -30 4 5 6\n",
			want{Full, 2, 84e6, 2, []float64{76e6, 84e6, 1e8}}},
		{"full with errors", "source_id ra_icrs [deg] dec_icrs [deg] Flux_100_MHz [Jy] Flux_error_100_MHz [Jy] Flux_150_MHz [Jy] Flux_error_150_MHz [Jy]\nA 10 -30 1 0.1 2 0.2\n",
			want{Full, 1, 150e6, 2, []float64{100e6, 150e6}}},
		{"single named frequency", "source_id ra_icrs [deg] dec_icrs [deg] Flux_150_MHz [Jy]\nA 10 -30 7\n",
			want{Flat, 1, 1e8, 7, []float64{150e6}}},
		{"byte-order mark and CRLF", "\ufeffsource_id\tra_icrs [deg]\tdec_icrs [deg]\tFlux [Jy]\r\nA 10 -30 2.5\r\n",
			want{Flat, 1, 1e8, 2.5, nil}},
		{"named flux with frequency", "Source_ID RA_ICRS Dec_ICRS Flux_Density_I_Jy Frequency\nsrc1 10 -30 0.5 1e6\n",
			want{Flat, 1, 1e8, 0.5, nil}},
		{"comments and blank lines", "source_id ra_icrs [deg] dec_icrs [deg] Flux [Jy]\n# a comment\n\nA 10 -30 2 # trailing\r\nB 370 -30 3",
			want{Flat, 2, 1e8, 2, nil}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := ReadText(strings.NewReader(c.text), c.name)
			if err != nil {
				t.Fatal(err)
			}
			if s.Spectral() != c.w.spec || s.Len() != c.w.n {
				t.Fatalf("got %v × %d, want %v × %d", s.Spectral(), s.Len(), c.w.spec, c.w.n)
			}
			buf := make([]float64, s.Len())
			if err := s.StokesIAt(c.w.freq, buf); err != nil {
				t.Fatal(err)
			}
			if !relClose(buf[0], c.w.i0, 1e-14) {
				t.Errorf("I at %g Hz = %g, want %g", c.w.freq, buf[0], c.w.i0)
			}
			if c.w.freqs != nil && !equalFloats(s.Freqs(), c.w.freqs) {
				t.Errorf("freqs %v, want %v", s.Freqs(), c.w.freqs)
			}
			if !relClose(s.RA()[0], 10*math.Pi/180, 1e-15) || !relClose(s.Dec()[0], -30*math.Pi/180, 1e-15) {
				t.Errorf("position %g %g", s.RA()[0], s.Dec()[0])
			}
		})
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !relClose(a[i], b[i], 1e-15) {
			return false
		}
	}
	return true
}

// TestReadTextFrames: galactic and FK5 J2000 columns are rotated to ICRS;
// expected values from astropy 5.2 SkyCoord(...).icrs.
func TestReadTextFrames(t *testing.T) {
	cases := []struct {
		name, cols string
		ra, dec    [2]float64
	}{
		{"galactic", "l_galactic [deg] b_galactic [deg]",
			[2]float64{5.289147023476068, 2.4854507517828788}, [2]float64{-0.5493110758889893, 0.4804507450501597}},
		{"fk5 j2000", "RA_J2000_deg DE_J2000_deg",
			[2]float64{0.18325951984772282, 3.495021823743664}, [2]float64{-0.5235988013958753, 0.7941248176559274}},
	}
	for _, c := range cases {
		s, err := ReadText(strings.NewReader("source_id "+c.cols+" Flux [Jy]\nA 10.5 -30 1\nB 200.25 45.5 1\n"), c.name)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			if d := angDist(s.RA()[i], s.Dec()[i], c.ra[i], c.dec[i]); d > 1e-12 {
				t.Errorf("%s comp %d off astropy by %.3g rad", c.name, i, d)
			}
		}
	}
}

func TestReadTextErrors(t *testing.T) {
	const hdr = "source_id ra_icrs [deg] dec_icrs [deg] Flux [Jy] Frequency [Hz] Spectral_Index\n"
	cases := []struct {
		name, text string
		line       int
		msg        string
	}{
		{"empty", "", 1, "no header"},
		{"header only", hdr, 0, "no sources"},
		{"missing coordinate", "source_id ra_icrs [deg] Flux [Jy]\nA 1 2\n", 1, "header"},
		{"unsupported frame", "source_id ra_b1950 [deg] dec_b1950 [deg] Flux [Jy]\nA 1 2 3\n", 1, "not supported"},
		{"wrong order", "source_id ra_icrs dec_icrs Frequency Flux Spectral_Index\nA 1 2 3 4 5\n", 1, "exactly"},
		{"duplicate flux", "source_id ra_icrs dec_icrs Flux Flux\nA 1 2 3 4\n", 1, "frequency"},
		{"duplicate frequency", "source_id ra_icrs dec_icrs Flux_100_MHz Flux_0.1_GHz\nA 1 2 3 4\n", 1, "same frequency"},
		{"spectral index without frequency", "source_id ra_icrs dec_icrs Flux Spectral_Index\nA 1 2 3 4\n", 1, "not a flux column"},
		{"bad number", hdr + "A 1 2 x 1e8 -1\n", 2, "invalid syntax"},
		{"NaN flux", hdr + "A 1 2 3 1e8 -1\nB 1 2 nan 1e8 -1\n", 3, "not finite"},
		{"Inf index", hdr + "A 1 2 3 1e8 inf\n", 2, "not finite"},
		{"negative frequency", hdr + "A 1 2 3 -1e8 -1\n", 2, "positive"},
		{"zero frequency", hdr + "A 1 2 3 0 -1\n", 2, "positive"},
		{"too few fields", hdr + "A 1 2 3 1e8\n", 2, "5 fields"},
		{"too many fields", hdr + "A 1 2 3 1e8 -1 7\n", 2, "7 fields"},
		{"latitude", hdr + "A 1 91 3 1e8 -1\n", 2, "latitude"},
		{"overflow", hdr + "A 1 2 1e999 1e8 -1\n", 2, "range"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadText(strings.NewReader(c.text), "cat.txt")
			if err == nil {
				t.Fatal("no error")
			}
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != "cat.txt" || pe.Line != c.line {
				t.Errorf("error %q: want a ParseError for cat.txt line %d", err, c.line)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q lacks %q", err, c.msg)
			}
		})
	}
}

// TestReadTextChunkLineNumbers: errors deep in a large file (parsed in
// parallel chunks) still name the right line, and rows keep their order.
func TestReadTextChunkLineNumbers(t *testing.T) {
	var b strings.Builder
	b.WriteString("source_id ra_icrs dec_icrs Flux\n# comment\n")
	const n = 60000 // ~1.3 MB: several chunks
	for i := range n {
		fmt.Fprintf(&b, "s%d %d.5 -10.25 %d\n", i, i%360, i+1)
	}
	good := b.String()
	s, err := ReadText(strings.NewReader(good), "big.txt")
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]float64, s.Len())
	if err := s.StokesIAt(1e8, buf); err != nil || s.Len() != n {
		t.Fatal(err, s.Len())
	}
	for i := range n {
		if buf[i] != float64(i+1) || s.Names()[i] != fmt.Sprintf("s%d", i) {
			t.Fatalf("row %d: %s %g", i, s.Names()[i], buf[i])
		}
	}
	bad := strings.Replace(good, "s45000 ", "s45000 x", 1)
	_, err = ReadText(strings.NewReader(bad), "big.txt")
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 45000+3 {
		t.Errorf("error %v: want line %d", err, 45000+3)
	}
}
