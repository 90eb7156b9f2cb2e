package main

import (
	"context"
	"math/cmplx"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
)

// TestBeamPoleFlag: --beam-pole reaches a spec's beamfits beam (a spec's
// default is matvis's exact edge), meta.json names the treatment that
// ran, the two treatments' visibilities differ (slightly: sources near
// zenith and the azimuth wrap only), and an unknown name is a usage error
// naming the flag.
func TestBeamPoleFlag(t *testing.T) {
	spec := filepath.Join(sharedtest.Dir(t), "reference", "uvbeam-pol-small", "spec.json")
	dir := t.TempDir()
	vis := map[string][]complex128{}
	for _, c := range []struct{ flag, want string }{{"", "edge"}, {"continued", "continued"}} {
		out := filepath.Join(dir, "run-"+c.want+".npy")
		args := []string{"simulate", spec, "-o", out, "-q", "--backend", "cpu"}
		if c.flag != "" {
			args = append(args, "--beam-pole", c.flag)
		}
		if code, _, e := runCLI(t, args...); code != 0 {
			t.Fatalf("--beam-pole %q: exit %d: %s", c.flag, code, e)
		}
		if m := readMeta(t, out); m.BeamPole != c.want {
			t.Errorf("--beam-pole %q: meta beam_pole %q, want %q", c.flag, m.BeamPole, c.want)
		}
		_, vis[c.want] = npyComplex(t, out)
	}
	a, b := vis["edge"], vis["continued"]
	var peak, diff float64
	for i := range a {
		peak = max(peak, cmplx.Abs(a[i]))
		diff = max(diff, cmplx.Abs(a[i]-b[i]))
	}
	t.Logf("max |V(continued) − V(edge)| / peak = %.3g", diff/peak)
	if !(diff > 1e-12*peak && diff < 1e-2*peak) {
		t.Errorf("max |V(continued) − V(edge)| / peak = %.3g: want a small, non-zero difference", diff/peak)
	}
	code, _, e := runCLI(t, "simulate", spec, "-o", filepath.Join(dir, "bad.npy"), "-q", "--backend", "cpu", "--beam-pole", "smooth")
	if code == 0 || !strings.Contains(e, "--beam-pole") || !strings.Contains(e, `"smooth"`) {
		t.Errorf("--beam-pole smooth: exit %d, stderr %q; want a usage error naming the flag and value", code, e)
	}
}

// TestBeamPoleHash: a spec with a beamfits beam hashes alike with no
// --beam-pole and with its default edge (the parts made before the flag
// still match) and differently with continued; a spec with analytic beams
// only is not changed by the flag.
func TestBeamPoleHash(t *testing.T) {
	hashOf := func(t *testing.T, path, pole string) string {
		t.Helper()
		in, err := loadInput(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		h, err := configHash(in, hashInputs{format: "npy", beamPole: pole})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	fits := filepath.Join(sharedtest.Dir(t), "reference", "uvbeam-pol-small", "spec.json")
	if hashOf(t, fits, "") != hashOf(t, fits, "edge") {
		t.Error("beamfits spec: the default and --beam-pole edge hash differently")
	}
	if hashOf(t, fits, "") == hashOf(t, fits, "continued") {
		t.Error("beamfits spec: --beam-pole continued hashes as the default")
	}
	if hashOf(t, "example", "") != hashOf(t, "example", "continued") {
		t.Error("analytic-beam spec: --beam-pole changed the hash")
	}
}

// TestBeamPoleObsparamDefault: an obsparam with a polarized sky and the
// HERA beamfits (backendtest.ZenithObsparam) runs continued through the
// pole by default, says so on the one notice line with the flag for the
// exact spline, and names it in meta.json; --beam-pole edge runs the edge
// and the line says nothing of it.
func TestBeamPoleObsparamDefault(t *testing.T) {
	cfg := backendtest.ZenithObsparam(t, 0, 5, 18, backendtest.ZenithStokes)
	for _, c := range []struct {
		flags []string
		want  string
		says  bool
	}{{nil, "continued", true}, {[]string{"--beam-pole", "edge"}, "edge", false}} {
		out := filepath.Join(t.TempDir(), "run.npy")
		args := append([]string{"simulate", cfg.Path, "-o", out, "-q", "--backend", "cpu"}, c.flags...)
		code, _, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.flags, code, stderr)
		}
		if m := readMeta(t, out); m.BeamPole != c.want {
			t.Errorf("%v: meta beam_pole %q, want %q", c.flags, m.BeamPole, c.want)
		}
		var line string
		for _, l := range strings.Split(stderr, "\n") {
			if strings.Contains(l, "Stokes rotation") {
				line = l
			}
		}
		if says := strings.Contains(line, "continued through the pole") && strings.Contains(line, "--beam-pole edge"); says != c.says {
			t.Errorf("%v: notice %q: naming the continuation %v, want %v", c.flags, line, says, c.says)
		}
	}
}
