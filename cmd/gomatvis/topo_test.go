package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/npy"
)

// TestTopoReference runs `gomatvis topo` on every reference spec with both
// methods and compares with astropy's topo.npy (≤ 1 mas above the horizon).
func TestTopoReference(t *testing.T) {
	dir := t.TempDir()
	for _, ref := range sharedtest.References(t) {
		want := sharedtest.ReadNpy(t, filepath.Join(ref.Dir, "topo.npy"))
		w, err := want.AsFloat64()
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []string{"CoordinateRotationAstropy", "CoordinateRotationERFA"} {
			out := filepath.Join(dir, ref.Name+m+".npy")
			code, stdout, stderr := runCLI(t, "topo", filepath.Join(ref.Dir, "spec.json"), "-o", out, "--coord-method", m)
			if code != 0 {
				t.Fatalf("%s %s: exit %d: %s", ref.Name, m, code, stderr)
			}
			if !strings.Contains(stdout, m) {
				t.Errorf("stdout %q does not name the method", stdout)
			}
			got, err := npy.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			g, err := got.AsFloat64()
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Shape) != 3 || got.Shape[0] != want.Shape[0] || got.Shape[1] != 3 || got.Shape[2] != want.Shape[2] {
				t.Fatalf("shape %v, want %v", got.Shape, want.Shape)
			}
			nt, ns := got.Shape[0], got.Shape[2]
			var worst float64
			for ti := 0; ti < nt; ti++ {
				b := ti * 3 * ns
				for s := 0; s < ns; s++ {
					if w[b+2*ns+s] <= 0 {
						continue
					}
					var dot float64
					var cr [3]float64
					a := [3]float64{g[b+s], g[b+ns+s], g[b+2*ns+s]}
					c := [3]float64{w[b+s], w[b+ns+s], w[b+2*ns+s]}
					cr[0], cr[1], cr[2] = a[1]*c[2]-a[2]*c[1], a[2]*c[0]-a[0]*c[2], a[0]*c[1]-a[1]*c[0]
					dot = a[0]*c[0] + a[1]*c[1] + a[2]*c[2]
					worst = math.Max(worst, math.Atan2(math.Sqrt(cr[0]*cr[0]+cr[1]*cr[1]+cr[2]*cr[2]), dot))
				}
			}
			const mas = math.Pi / 180 / 3600 / 1000
			t.Logf("%s %s via the CLI: max angle %.3g mas", ref.Name, m, worst/mas)
			if worst > mas {
				t.Errorf("%s %s: max angle %.3g mas > 1 mas", ref.Name, m, worst/mas)
			}
		}
	}
}

func TestTopoBadInput(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, func(m map[string]any) {
		src := m["sources"].(map[string]any)
		dec := src["dec_rad"].([]any)
		dec[0] = 2.0
	}, "")
	goodDir := filepath.Join(dir, "good")
	if err := os.Mkdir(goodDir, 0o755); err != nil {
		t.Fatal(err)
	}
	good := writeSpec(t, goodDir, nil, "")
	out := filepath.Join(dir, "topo.npy")
	for _, c := range []struct {
		name  string
		args  []string
		code  int
		wants []string
	}{
		{"no -o", []string{"topo", spec}, 2, []string{"-o TOPO.npy is required"}},
		{"bad method", []string{"topo", good, "-o", out, "--coord-method", "Foo"}, 2, []string{`coord method "Foo"`}},
		{"two specs", []string{"topo", spec, spec, "-o", out}, 2, []string{"want one SPEC.json"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d (%s)", code, c.code, stderr)
			}
			for _, w := range c.wants {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("output file was written")
			}
		})
	}
	// An invalid declination is refused (by the spec validator or astro),
	// naming the field, and nothing is written.
	code, _, stderr := runCLI(t, "topo", spec, "-o", out)
	if code == 0 || !strings.Contains(stderr, "dec_rad") {
		t.Errorf("bad dec: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("output file was written for a bad spec")
	}
}
