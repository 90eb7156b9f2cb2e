package main

import (
	"encoding/json"
	"github.com/gomatvis/gomatvis/matvis/input"
	"math"
	"math/cmplx"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/uvh5"
)

// TestPyuvsimReferencesWithoutEOP: every pyuvsim reference run as its user
// would — `gomatvis simulate obsparam.yaml -o X.uvh5`, no --eop, no other
// flag — takes the embedded IERS table (astropy's bundled IERS-B, what
// the references' astropy used offline) and agrees with pyuvsim's UVH5
// within 1e-5 of each polarization's own peak (zero-peak polarizations,
// xy/yx of an unpolarized sky through diagonal beams: within 1e-12 Jy).
// The polarized sky runs with --stokes-rotation pyradiosky, pyuvsim 1.2's
// (the default is the IAU rotation) and nothing else added. The history
// names the table; so does the .npy run's meta.json.
func TestPyuvsimReferencesWithoutEOP(t *testing.T) {
	for _, c := range []struct {
		dir, file string
		flags     []string
	}{
		{"pyuvsim-stokesI-gaussian", "stokesI-gaussian.uvh5", nil},
		{"pyuvsim-fullstokes-airy", "fullstokes-airy.uvh5", []string{"--stokes-rotation", "pyradiosky"}},
	} {
		t.Run(c.dir, func(t *testing.T) {
			dir := filepath.Join(sharedtest.Dir(t), "reference", c.dir)
			want, err := uvh5.ReadFile(filepath.Join(dir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "X.uvh5")
			code, _, stderr := runCLI(t, append([]string{"simulate", filepath.Join(dir, "obsparam.yaml"), "-o", out}, c.flags...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if strings.Contains(stderr, "outside the embedded IERS table") {
				t.Errorf("the reference's times are inside the table, yet: %s", stderr)
			}
			got, err := uvh5.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Vis) != len(want.Vis) {
				t.Fatalf("%d visibilities, pyuvsim %d", len(got.Vis), len(want.Vis))
			}
			np := len(want.Header.Pols)
			peak, worst := make([]float64, np), make([]float64, np)
			for i, v := range want.Vis {
				p := i % np
				peak[p] = max(peak[p], cmplx.Abs(v))
				worst[p] = max(worst[p], cmplx.Abs(got.Vis[i]-v))
			}
			for p := range peak {
				t.Logf("pol %d: max|ΔV| = %.3g, peak %.3g (%.2g of the peak)", want.Header.Pols[p], worst[p], peak[p], worst[p]/math.Max(peak[p], 1e-300))
				tol := 1e-5 * peak[p]
				if peak[p] == 0 {
					tol = 1e-12
				}
				if !(worst[p] <= tol) {
					t.Errorf("pol %d: max|ΔV| %.3g over %.3g", want.Header.Pols[p], worst[p], tol)
				}
			}
			if !strings.Contains(got.Header.History, input.BuiltinEOPSource) {
				t.Errorf("history %q does not name the embedded IERS table", got.Header.History)
			}
		})
	}
	// A .npy run's meta.json names the table; --eop names the file.
	dir := filepath.Join(sharedtest.Dir(t), "reference", "pyuvsim-stokesI-gaussian")
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, input.BuiltinEOPSource},
		{[]string{"--eop", filepath.Join(dir, "eop.json")}, "--eop " + filepath.Join(dir, "eop.json")},
	} {
		out := filepath.Join(t.TempDir(), "X.npy")
		args := append([]string{"simulate", filepath.Join(dir, "obsparam.yaml"), "-o", out, "-q", "--backend", "cpu"}, c.args...)
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		b, err := os.ReadFile(metaPath(out))
		if err != nil {
			t.Fatal(err)
		}
		var m outputMeta
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if m.EarthOrientation != c.want {
			t.Errorf("%v: meta.json earth_orientation = %q, want %q", c.args, m.EarthOrientation, c.want)
		}
	}
}

// TestSimulatePastIERSTableWarns: an obsparam whose times lie after the
// embedded IERS table's end still runs, and simulate warns, naming the
// table's end, --eop and the refresh script.
func TestSimulatePastIERSTableWarns(t *testing.T) {
	ref := filepath.Join(sharedtest.Dir(t), "reference", "pyuvsim-stokesI-gaussian")
	dir := t.TempDir()
	for _, f := range []string{"layout.csv", "telescope_config.yaml", "sky.skyh5"} {
		b, err := os.ReadFile(filepath.Join(ref, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(filepath.Join(ref, "obsparam.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	later := strings.Replace(string(b), "start_time: 2459845.0", "start_time: 2461000.0", 1)
	if later == string(b) {
		t.Fatal("obsparam.yaml: start_time not found")
	}
	obsPath := filepath.Join(dir, "obsparam.yaml")
	if err := os.WriteFile(obsPath, []byte(later), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "simulate", obsPath, "-o", filepath.Join(dir, "X.uvh5"), "--backend", "cpu")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"outside the embedded IERS table", "2022-11-29", "--eop FILE", "scripts/refresh-iers.sh"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}
