package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/cmplx"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/uvh5"
)

// zenithCLI is matvis/testdata/zenith/cli.json: cli_twin.py's expected
// pyuvsim visibilities of one polarized source through the zenith.
type zenithCLI struct {
	RA     float64    `json:"ra_deg"`
	Dec    float64    `json:"dec_deg"`
	Stokes [4]float64 `json:"stokes"`
	Freqs  []float64  `json:"freqs_hz"`
	Layout []struct {
		Name   string
		Number int
		ENU    [3]float64
	} `json:"layout"`
	Times []struct {
		Offset float64 `json:"offset_s"`
		JD     float64 `json:"jd_utc"`
		UT1    float64 `json:"ut1_utc_s"`
		Xp     float64 `json:"xp_arcsec"`
		Yp     float64 `json:"yp_arcsec"`
		ZA     float64 `json:"za"`
		Rows   []struct {
			Ant1, Ant2 int
			Vis        [][4][2]float64 // [freq][pol]{re, im}
		} `json:"rows"`
	} `json:"times"`
}

// TestZenithPolarizedCLI: gomatvis simulate of an obsparam with one
// polarized source (I, Q, U, V = 6, 3, −2.5, 2 Jy) through the zenith —
// astropy's ICRS position of the zenith at T0 — with pyuvsim's uniform
// beam, --stokes-rotation pyradiosky and the Earth orientation astropy
// used, at T0 and 0.1 s to 10 min around it (an explicit time_array):
// every visibility within 1e-7 of the peak of the independent twin's
// (matvis/testdata/zenith/cli_twin.py, pyradiosky 0.3.1's rotation and
// pyuvsim 1.2.6's visibility written from their sources), at T0 too, where
// the source is 3e-13 rad from the zenith.
func TestZenithPolarizedCLI(t *testing.T) {
	py := sharedtest.Python(t, "astropy.io.fits, h5py", "python3-astropy", "python3-h5py")
	src := filepath.Join("..", "..", "matvis", "testdata", "zenith")
	b, err := os.ReadFile(filepath.Join(src, "cli.json"))
	if err != nil {
		t.Fatal(err)
	}
	var z zenithCLI
	if err := json.Unmarshal(b, &z); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script, _ := filepath.Abs(filepath.Join(src, "cli_twin.py"))
	cli, _ := filepath.Abs(filepath.Join(src, "cli.json"))
	cmd := exec.Command(py, script, "skyh5", filepath.Join(dir, "sky.skyh5"), cli)
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cli_twin.py skyh5: %v\n%s", err, out)
	}
	layout := "Name Number BeamID E N U\n"
	for _, a := range z.Layout {
		layout += fmt.Sprintf("%s %d 0 %v %v %v\n", a.Name, a.Number, a.ENU[0], a.ENU[1], a.ENU[2])
	}
	var times []string
	var eop []map[string]float64
	for _, tm := range z.Times {
		times = append(times, fmt.Sprint(tm.JD))
		eop = append(eop, map[string]float64{"jd_utc": tm.JD, "ut1_utc_s": tm.UT1, "xp_arcsec": tm.Xp, "yp_arcsec": tm.Yp})
	}
	eopJSON, _ := json.Marshal(map[string]any{"times": eop})
	files := map[string]string{
		"layout.csv":            layout,
		"telescope_config.yaml": "beam_paths:\n  0: uniform\ntelescope_location: (-30.72152612068957, 21.428303826863015, 1051.69)\ntelescope_name: HERA\n",
		"obsparam.yaml": fmt.Sprintf("filing:\n  outdir: .\n  outfile_name: zenith.uvh5\n  output_format: uvh5\n  clobber: true\n"+
			"freq:\n  Nfreqs: 2\n  channel_width: %v\n  start_freq: %v\n"+
			"sources:\n  catalog: sky.skyh5\ntelescope:\n  array_layout: layout.csv\n  telescope_config_name: telescope_config.yaml\n"+
			"time:\n  integration_time: 0.1\n  time_array: [%s]\npolarization_array: [-5, -6, -7, -8]\n",
			z.Freqs[1]-z.Freqs[0], z.Freqs[0], strings.Join(times, ", ")),
		"eop.json": string(eopJSON),
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "run.uvh5")
	code, _, stderr := runCLI(t, "simulate", filepath.Join(dir, "obsparam.yaml"), "-o", out, "-q", "--backend", "cpu",
		"--stokes-rotation", "pyradiosky", "--eop", filepath.Join(dir, "eop.json"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	f, err := uvh5.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	h := &f.Header
	nf, np := len(h.Freqs), len(h.Pols)
	if nf != len(z.Freqs) || fmt.Sprint(h.Pols) != "[-5 -6 -7 -8]" {
		t.Fatalf("%d channels, pols %v; want %d, [-5 -6 -7 -8]", nf, h.Pols, len(z.Freqs))
	}
	peak := 0.0
	for _, tm := range z.Times {
		for _, r := range tm.Rows {
			for _, fv := range r.Vis {
				for _, v := range fv {
					peak = max(peak, math.Hypot(v[0], v[1]))
				}
			}
		}
	}
	rows := 0
	for k := range h.Ant1 {
		ti := -1
		for i, tm := range z.Times {
			if tm.JD == h.Times[k] {
				ti = i
			}
		}
		if ti < 0 {
			t.Fatalf("row %d: JD %v is not one of the time_array's", k, h.Times[k])
		}
		tm := z.Times[ti]
		for _, r := range tm.Rows {
			if int64(r.Ant1) != h.Ant1[k] || int64(r.Ant2) != h.Ant2[k] {
				continue
			}
			rows++
			worst := 0.0
			for c := range nf {
				for p := range np {
					w := complex(r.Vis[c][p][0], r.Vis[c][p][1])
					worst = max(worst, cmplx.Abs(f.Vis[(k*nf+c)*np+p]-w)/peak)
				}
			}
			if !(worst <= 1e-7) {
				t.Errorf("%+.1f s (za %.3g rad), baseline %d-%d: max|ΔV| %.3g of the peak (bar 1e-7)", tm.Offset, tm.ZA, r.Ant1, r.Ant2, worst)
			}
			if r.Ant1 == 1 && r.Ant2 == 0 {
				t.Logf("%+6.1f s, za %.3g rad: max|ΔV|/peak %.3g (baseline 1-0)", tm.Offset, tm.ZA, worst)
			}
		}
	}
	if want := len(z.Times) * len(z.Times[0].Rows); rows != want {
		t.Errorf("compared %d rows; the twin has %d", rows, want)
	}
}
