package backendtest

import (
	"fmt"
	"github.com/gomatvis/gomatvis/matvis/input"
	"math"
	"math/cmplx"
	"os"
	"path/filepath"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/matvis/obsparam"
)

// This file builds the zenith track of issue 27's bar (a polarized source
// through zenith with the HERA beamfits) for the CPU's and the GPU's tests.

// HERA's site, as the pyuvsim references give it.
const (
	heraLatDeg = -30.72152612068957
	heraLonDeg = 21.428303826863015
	heraAltM   = 1051.69
)

// ZenithStokes is the polarized source: I, Q, U, V = 1, 0.6, 0.3,
// 0.1 Jy, as ZenithObsparam takes it.
const ZenithStokes = "1\t0.6\t0.3\t0.1"

// ZenithObsparam writes a pyuvsim configuration of one source (Stokes I,
// Q, U, V in Jy, flat, given as tab-separated text, e.g. ZenithStokes)
// through zenith: two antennas 14.6 m apart with the HERA beamfits, 100
// MHz (a beam channel), nt integrations of dtSec seconds whose middle one,
// index nt/2, sees the source at zenith (its ICRS position found by Newton's method on the
// astropy-equivalent astrometry with the built-in Earth orientation,
// which FromObsConfig also uses); offDeg moves it off the zenith in
// declination. It returns the configuration read back.
func ZenithObsparam(t testing.TB, offDeg float64, nt int, dtSec float64, stokes string) *obsparam.Config {
	t.Helper()
	dir := t.TempDir()
	beamPath := filepath.Join(sharedtest.Root(t), "testdata", "beams", "NF_HERA_Dipole_small.fits")
	files := map[string]string{
		"layout.csv": "Name     Number   BeamID   E           N           U\nHH0 0 0 0.0 0.0 0.0\nHH1 1 0 14.6 0.0 0.0\n",
		"telescope_config.yaml": fmt.Sprintf("beam_paths:\n  0: %s\ntelescope_location: (%.14f, %.15f, %g)\ntelescope_name: HERA\n",
			beamPath, heraLatDeg, heraLonDeg, heraAltM),
		"obsparam.yaml": "filing:\n  outdir: .\n  outfile_name: out.uvh5\n  output_format: uvh5\n" +
			"freq:\n  Nfreqs: 1\n  channel_width: 100000.0\n  start_freq: 100000000.0\n" +
			"sources:\n  catalog: sky.tsv\n" +
			"telescope:\n  array_layout: layout.csv\n  telescope_config_name: telescope_config.yaml\n" +
			fmt.Sprintf("time:\n  Ntimes: %d\n  integration_time: %g\n  start_time: 2459845.0\n", nt, dtSec) +
			"polarization_array: [-5, -6, -7, -8]\n",
	}
	writeSky := func(raDeg, decDeg float64) {
		sky := "source_id\tra_icrs_deg\tdec_icrs_deg\tI\tQ\tU\tV\n" + fmt.Sprintf("zen\t%.12f\t%.12f\t%s\n", raDeg, decDeg, stokes)
		if err := os.WriteFile(filepath.Join(dir, "sky.tsv"), []byte(sky), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeSky(0, heraLatDeg)
	cfg, err := obsparam.Read(filepath.Join(dir, "obsparam.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.TimesJD) != nt {
		t.Fatalf("%d times, want %d", len(cfg.TimesJD), nt)
	}
	ra, dec := zenithICRS(t, cfg.TimesJD[nt/2])
	writeSky(ra*180/math.Pi, dec*180/math.Pi+offDeg)
	return cfg
}

// zenithICRS is the ICRS direction at HERA's zenith at jd: Newton's method
// on (east, north) of the astropy-equivalent astrometry, from the
// apparent sidereal time and the latitude.
func zenithICRS(t testing.TB, jd float64) (ra, dec float64) {
	t.Helper()
	eop, err := input.BuiltinEOP([]float64{jd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	site := astro.Site{LatDeg: heraLatDeg, LonDeg: heraLonDeg, HeightM: heraAltM}
	lst, err := astro.ApparentLST(jd, heraLonDeg*math.Pi/180, eop[0])
	if err != nil {
		t.Fatal(err)
	}
	en := func(ra, dec float64) (float64, float64) {
		r, err := astro.New(astro.Config{Method: astro.MethodAstropy, Site: site, TimesJD: []float64{jd}, EOP: eop}, []float64{ra}, []float64{dec})
		if err != nil {
			t.Fatal(err)
		}
		e, n, u := make([]float64, 1), make([]float64, 1), make([]float64, 1)
		if err := r.ENU(0, e, n, u); err != nil {
			t.Fatal(err)
		}
		return e[0], n[0]
	}
	ra, dec = lst, heraLatDeg*math.Pi/180
	const h = 1e-7
	for range 6 {
		e, n := en(ra, dec)
		e1, n1 := en(ra+h, dec)
		e2, n2 := en(ra, dec+h)
		a, b, c, d := (e1-e)/h, (e2-e)/h, (n1-n)/h, (n2-n)/h
		det := a*d - b*c
		ra -= (d*e - b*n) / det
		dec -= (-c*e + a*n) / det
	}
	if e, n := en(ra, dec); math.Hypot(e, n) > 1e-10 {
		t.Fatalf("zenith search: za %.3g rad left", math.Asin(math.Hypot(e, n)))
	}
	return ra, dec
}

// ZenithSmoothness is, per polarization (xx, xy, yx, yy in the (2, 2)
// feed axes) of a polarized result of channel 0 over the baselines of a
// pyuvsim-convention Observation, the largest second and third
// differences in time of the autocorrelations divided by their peak (the
// largest |V| of the antenna's auto over time and polarizations).
func ZenithSmoothness(res *matvis.Result, baselines [][2]int) (worst, worst3 [2][2]float64) {
	nt := res.Shape[1]
	for k, b := range baselines {
		if b[0] != b[1] {
			continue
		}
		var peak float64
		for ti := range nt {
			for p := range 2 {
				for q := range 2 {
					peak = max(peak, cmplx.Abs(res.At(0, ti, k, p, q)))
				}
			}
		}
		for p := range 2 {
			for q := range 2 {
				v := func(ti int) complex128 { return res.At(0, ti, k, p, q) }
				for ti := 1; ti < nt-1; ti++ {
					d2 := v(ti+1) - 2*v(ti) + v(ti-1)
					worst[p][q] = max(worst[p][q], cmplx.Abs(d2)/peak)
					if ti < nt-2 {
						d3 := v(ti+2) - 3*v(ti+1) + 3*v(ti) - v(ti-1)
						worst3[p][q] = max(worst3[p][q], cmplx.Abs(d3)/peak)
					}
				}
			}
		}
	}
	return worst, worst3
}
