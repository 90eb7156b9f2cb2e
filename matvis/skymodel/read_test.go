package skymodel

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFileDispatch(t *testing.T) {
	ref := filepath.Join(refDir, "pyuvsim-fullstokes-airy")
	cases := []struct {
		path, filetype string
		spec           SpectralType
		n              int
		errMsg         string
	}{
		{filepath.Join(ref, "sky.skyh5"), "", SpectralIndex, 25, ""},
		{filepath.Join(ref, "sky.skyh5"), "skyh5", SpectralIndex, 25, ""},
		{filepath.Join(ref, "sky.txt"), "", SpectralIndex, 25, ""},
		{filepath.Join(ref, "sky_stokes.tsv"), "", SpectralIndex, 25, ""},
		{"testdata/gleam_small.vot", "", Subband, 12, ""},
		{"testdata/gleam_small.vot", "gleam", Subband, 12, ""},
		{filepath.Join(ref, "sky.txt"), "skyh5", 0, 0, "HDF5"},
		{filepath.Join(ref, "layout.csv"), "", 0, 0, "extension"},
		{filepath.Join(ref, "sky.txt"), "fits", 0, 0, "unknown filetype"},
		{"x.sav", "", 0, 0, "FHD"},
		{"testdata/gleam_small.vot", "vot", 0, 0, "need Table"},
	}
	for _, c := range cases {
		s, err := ReadFile(c.path, c.filetype)
		if c.errMsg != "" {
			if err == nil || !strings.Contains(err.Error(), c.errMsg) {
				t.Errorf("%s (%q): error %v, want one mentioning %q", c.path, c.filetype, err, c.errMsg)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s (%q): %v", c.path, c.filetype, err)
			continue
		}
		if s.Spectral() != c.spec || s.Len() != c.n {
			t.Errorf("%s: %v × %d, want %v × %d", c.path, s.Spectral(), s.Len(), c.spec, c.n)
		}
	}
	s, err := ReadFileOptions("testdata/gleam_small.vot", ReadOptions{GLEAMSpectralType: "flat"})
	if err != nil || s.Spectral() != Flat {
		t.Errorf("GLEAM flat via options: %v", err)
	}
}

// TestStokesTSVMatchesSkyH5: the polarized reference sky, all four Stokes.
func TestStokesTSVMatchesSkyH5(t *testing.T) {
	for _, d := range []string{"pyuvsim-stokesI-gaussian", "pyuvsim-fullstokes-airy"} {
		tsv, err := ReadStokesTSVFile(filepath.Join(refDir, d, "sky_stokes.tsv"))
		if err != nil {
			t.Fatal(err)
		}
		h5, err := ReadSkyH5File(filepath.Join(refDir, d, "sky.skyh5"))
		if err != nil {
			t.Fatal(err)
		}
		if tsv.Polarized() != h5.Polarized() || tsv.Polarized() != (d == "pyuvsim-fullstokes-airy") {
			t.Errorf("%s: Polarized %v (tsv) %v (skyh5)", d, tsv.Polarized(), h5.Polarized())
		}
		a, b := make([]float64, tsv.Len()), make([]float64, h5.Len())
		for _, f := range []float64{100e6, 125e6, 150e6} {
			for p := range 4 {
				if err := tsv.StokesAt(f, p, a); err != nil {
					t.Fatal(err)
				}
				if err := h5.StokesAt(f, p, b); err != nil {
					t.Fatal(err)
				}
				for i := range a {
					if !relClose(a[i], b[i], 1e-12) && !(a[i] == 0 && b[i] == 0) {
						t.Errorf("%s %g Hz Stokes %d comp %d: %g vs %g", d, f, p, i, a[i], b[i])
					}
				}
			}
		}
	}
}

func TestReadStokesTSVErrors(t *testing.T) {
	const hdr = "source_id ra_icrs_deg dec_icrs_deg I Q U V reference_frequency_Hz spectral_index\n"
	cases := map[string]string{
		"header":        "source_id ra dec I\nA 1 2 3\n",
		"field count":   hdr + "A 1 2 3 0 0 0 1e8\n",
		"NaN":           hdr + "A 1 2 NaN 0 0 0 1e8 -1\n",
		"negative freq": hdr + "A 1 2 1 0 0 0 -1e8 -1\n",
		"declination":   hdr + "A 1 -91 1 0 0 0 1e8 -1\n",
		"empty":         "# only a comment\n",
	}
	for name, text := range cases {
		_, err := ReadStokesTSV(strings.NewReader(text), "s.tsv")
		if err == nil || !strings.HasPrefix(err.Error(), "s.tsv") {
			t.Errorf("%s: error %v", name, err)
		}
	}
}
