package main

import (
	"context"
	"math"
	"math/cmplx"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/uvh5"
)

// TestStokesRotationNamed: an obsparam run of a polarized sky prints one
// line on stderr naming the rotation that ran and the flag for the other,
// and its UVH5 history and .npy meta.json name the rotation; an
// unpolarized sky prints no such line and names none. The default is the
// IAU rotation: against pyuvsim 1.2 (pyradiosky's rotation) on
// pyuvsim-fullstokes-airy (diagonal beams) xx and yy agree (≤ 1e-5 of
// their peaks) and xy, yx differ (their sign); --stokes-rotation
// pyradiosky agrees in all four (≤ 1e-5, TestPyuvsimReferencesWithoutEOP
// too).
func TestStokesRotationNamed(t *testing.T) {
	ref := filepath.Join(sharedtest.Dir(t), "reference", "pyuvsim-fullstokes-airy")
	want, err := uvh5.ReadFile(filepath.Join(ref, "fullstokes-airy.uvh5"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, ref string
		flags     []string
		rot       string // "" for a Stokes-I sky: no rotation named
		other     string // the flag the notice gives
	}{
		{"polarized, default", "pyuvsim-fullstokes-airy", nil, "iau", "--stokes-rotation pyradiosky"},
		{"polarized, iau", "pyuvsim-fullstokes-airy", []string{"--stokes-rotation", "iau"}, "iau", "--stokes-rotation pyradiosky"},
		{"polarized, pyradiosky", "pyuvsim-fullstokes-airy", []string{"--stokes-rotation", "pyradiosky"}, "pyradiosky", "--stokes-rotation iau"},
		{"Stokes I", "pyuvsim-stokesI-gaussian", nil, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			obs := copyObsparam(t, c.ref)
			dir := filepath.Dir(obs)
			for _, ext := range []string{".uvh5", ".npy"} {
				out := filepath.Join(dir, "run"+ext)
				args := append([]string{"simulate", obs, "-o", out, "-q", "--backend", "cpu"}, c.flags...)
				code, _, stderr := runCLI(t, args...)
				if code != 0 {
					t.Fatalf("%s: exit %d: %s", ext, code, stderr)
				}
				n := strings.Count(stderr, "Stokes rotation")
				switch {
				case c.rot == "" && n != 0:
					t.Errorf("%s: an unpolarized sky names a rotation: %q", ext, stderr)
				case c.rot != "":
					var lines []string
					for _, l := range strings.Split(stderr, "\n") {
						if strings.Contains(l, "Stokes rotation") {
							lines = append(lines, l)
						}
					}
					if n != 1 || len(lines) != 1 || !strings.Contains(lines[0], "Stokes rotation: "+c.rot+" ") || !strings.Contains(lines[0], c.other) {
						t.Errorf("%s: stderr %q: want one line naming %s and %q", ext, stderr, c.rot, c.other)
					}
				}
				if ext == ".npy" {
					if m := readMeta(t, out); m.StokesRotation != c.rot {
						t.Errorf("meta.json stokes_rotation %q, want %q", m.StokesRotation, c.rot)
					}
					continue
				}
				f, err := uvh5.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				named := strings.Contains(f.Header.History, "Stokes rotation: "+c.rot+" ")
				if c.rot == "" {
					named = strings.Contains(f.Header.History, "Stokes rotation")
					if named {
						t.Errorf("Stokes I: history %q names a rotation", f.Header.History)
					}
					continue
				}
				if !named || !strings.Contains(f.Header.History, matvis.RotationNote(matvis.CoherencyRotation(c.rot))) {
					t.Errorf("history %q does not name the rotation %s", f.Header.History, c.rot)
				}
				np := len(want.Header.Pols)
				peak, worst := make([]float64, np), make([]float64, np)
				for i, v := range want.Vis {
					p := i % np
					peak[p] = max(peak[p], cmplx.Abs(v))
					worst[p] = max(worst[p], cmplx.Abs(f.Vis[i]-v))
				}
				for p := range peak {
					e := worst[p] / math.Max(peak[p], 1e-300)
					t.Logf("%s pol %d: max|ΔV| = %.3g of the polarization's peak", c.rot, want.Header.Pols[p], e)
					cross := want.Header.Pols[p] == -7 || want.Header.Pols[p] == -8
					switch {
					case c.rot == "iau" && cross && !(e > 1e-3):
						t.Errorf("iau pol %d: %.3g of the peak off pyuvsim 1.2; its cross terms have the other sign", want.Header.Pols[p], e)
					case (c.rot == "pyradiosky" || !cross) && !(e <= 1e-5):
						t.Errorf("%s pol %d: %.3g of the peak off pyuvsim 1.2, over 1e-5", c.rot, want.Header.Pols[p], e)
					}
				}
			}
		})
	}
}

// TestConfigHashRotation: "" and iau (the default) hash alike, pyradiosky
// otherwise — as "" did when it was the default, so a part made then is
// never merged with one of the IAU default.
func TestConfigHashRotation(t *testing.T) {
	in, err := loadInput(context.Background(), obsparamPath)
	if err != nil {
		t.Fatal(err)
	}
	h := map[matvis.CoherencyRotation]string{}
	for _, r := range []matvis.CoherencyRotation{"", matvis.RotationIAU, matvis.RotationPyradiosky} {
		if h[r], err = configHash(in, hashInputs{format: "uvh5", rotation: r}); err != nil {
			t.Fatal(err)
		}
	}
	if h[""] != h[matvis.RotationIAU] || h[""] == h[matvis.RotationPyradiosky] {
		t.Errorf(`hashes "" %s, iau %s, pyradiosky %s: want "" = iau ≠ pyradiosky`, h[""][:12], h[matvis.RotationIAU][:12], h[matvis.RotationPyradiosky][:12])
	}
}
