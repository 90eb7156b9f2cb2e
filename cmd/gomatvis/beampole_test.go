package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/matvis/backendtest"
)

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
