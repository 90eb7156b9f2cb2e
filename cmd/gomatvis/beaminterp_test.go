package main

import (
	"context"
	"math/cmplx"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// TestBeamInterpFlag: --beam-interp reaches a spec's beamfits beam (the
// spec's default is matvis's map_coordinates), meta.json names the
// interpolation that ran, the two interpolations' visibilities differ
// (slightly: both interpolate the same grid), and an unknown name is a
// usage error naming the flag.
func TestBeamInterpFlag(t *testing.T) {
	spec := filepath.Join(sharedtest.Dir(t), "reference", "uvbeam-pol-small", "spec.json")
	dir := t.TempDir()
	vis := map[string][]complex128{}
	for _, c := range []struct{ flag, want string }{{"", "map_coordinates"}, {"az_za_simple", "az_za_simple"}} {
		out := filepath.Join(dir, "run-"+c.want+".npy")
		args := []string{"simulate", spec, "-o", out, "-q", "--backend", "cpu"}
		if c.flag != "" {
			args = append(args, "--beam-interp", c.flag)
		}
		if code, _, e := runCLI(t, args...); code != 0 {
			t.Fatalf("--beam-interp %q: exit %d: %s", c.flag, code, e)
		}
		if m := readMeta(t, out); m.BeamInterp != c.want {
			t.Errorf("--beam-interp %q: meta beam_interp %q, want %q", c.flag, m.BeamInterp, c.want)
		}
		_, vis[c.want] = npyComplex(t, out)
	}
	a, b := vis["map_coordinates"], vis["az_za_simple"]
	var peak, diff float64
	for i := range a {
		peak = max(peak, cmplx.Abs(a[i]))
		diff = max(diff, cmplx.Abs(a[i]-b[i]))
	}
	t.Logf("max |V(az_za_simple) − V(map_coordinates)| / peak = %.3g", diff/peak)
	if !(diff > 1e-9*peak && diff < 1e-2*peak) {
		t.Errorf("max |V(az_za_simple) − V(map_coordinates)| / peak = %.3g: want a small, non-zero difference", diff/peak)
	}
	code, _, e := runCLI(t, "simulate", spec, "-o", filepath.Join(dir, "bad.npy"), "-q", "--backend", "cpu", "--beam-interp", "bicubic")
	if code == 0 || !strings.Contains(e, "--beam-interp") || !strings.Contains(e, `"bicubic"`) {
		t.Errorf("--beam-interp bicubic: exit %d, stderr %q; want a usage error naming the flag and value", code, e)
	}
}

// TestBeamInterpHash: a spec with a beamfits beam hashes alike with no
// --beam-interp and with its default map_coordinates (the parts made
// before the flag still match) and differently with az_za_simple; a spec
// with analytic beams only is not changed by the flag.
func TestBeamInterpHash(t *testing.T) {
	hashOf := func(t *testing.T, path, interp string) string {
		t.Helper()
		in, err := loadInput(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		h, err := configHash(in, hashInputs{format: "npy", beamInterp: interp})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	fits := filepath.Join(sharedtest.Dir(t), "reference", "uvbeam-pol-small", "spec.json")
	if hashOf(t, fits, "") != hashOf(t, fits, "map_coordinates") {
		t.Error("beamfits spec: the default and --beam-interp map_coordinates hash differently")
	}
	if hashOf(t, fits, "") == hashOf(t, fits, "az_za_simple") {
		t.Error("beamfits spec: --beam-interp az_za_simple hashes as the default")
	}
	if hashOf(t, "example", "") != hashOf(t, "example", "az_za_simple") {
		t.Error("analytic-beam spec: --beam-interp changed the hash")
	}
}
