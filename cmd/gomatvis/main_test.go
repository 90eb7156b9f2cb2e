package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"math/cmplx"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/npy"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(context.Background(), args, &o, &e)
	return code, o.String(), e.String()
}

// writeSpec writes the example spec with edits applied (or raw text).
func writeSpec(t *testing.T, dir string, edit func(m map[string]any), raw string) string {
	t.Helper()
	p := filepath.Join(dir, "spec.json")
	if raw == "" {
		var m map[string]any
		if err := json.Unmarshal([]byte(exampleSpec), &m); err != nil {
			t.Fatal(err)
		}
		if edit != nil {
			edit(m)
		}
		b, _ := json.Marshal(m)
		raw = string(b)
	}
	if err := os.WriteFile(p, []byte(raw), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSimulateBadInput(t *testing.T) {
	src := func(m map[string]any) map[string]any { return m["sources"].(map[string]any) }
	cases := []struct {
		name  string
		edit  func(m map[string]any)
		raw   string
		args  func(spec, out string) []string
		wants []string
	}{
		{name: "malformed JSON", raw: `{"name": "x", `, wants: []string{"malformed JSON"}},
		{name: "shape mismatch", edit: func(m map[string]any) { src(m)["dec_rad"] = []float64{0.1} }, wants: []string{"sources.dec_rad"}},
		{name: "NaN", raw: strings.Replace(exampleSpec, `"height_m": 1051.69`, `"height_m": NaN`, 1), wants: []string{"NaN"}},
		{name: "unknown beam type", edit: func(m map[string]any) { m["beams"] = []any{map[string]any{"type": "horn"}} }, wants: []string{"beams[0].type", "horn"}},
		{name: "beam_idx out of range", edit: func(m map[string]any) {
			idx := make([]int, 19)
			idx[4] = 9
			m["beam_idx"] = idx
		}, wants: []string{"beam_idx[4] = 9"}},
		{name: "empty antennas", edit: func(m map[string]any) { m["antennas_enu_m"] = []any{} }, wants: []string{"antennas_enu_m"}},
		{name: "empty sources", edit: func(m map[string]any) {
			src(m)["ra_rad"], src(m)["dec_rad"], src(m)["flux_jy"] = []any{}, []any{}, []any{}
		}, wants: []string{"sources.ra_rad"}},
		{name: "unwritable output", args: func(spec, out string) []string {
			return []string{"simulate", spec, "-o", filepath.Join(filepath.Dir(out), "missing", "x.npy")}
		}, wants: []string{"not writable"}},
		{name: "missing spec file", args: func(spec, out string) []string {
			return []string{"simulate", spec + ".nope", "-o", out}
		}, wants: []string{"no such file"}},
		{name: "bad topo file", args: func(spec, out string) []string {
			return []string{"simulate", spec, "-o", out, "--topo", spec}
		}, wants: []string{"--topo", "not a .npy"}},
		{name: "bad backend", args: func(spec, out string) []string {
			return []string{"simulate", spec, "-o", out, "--backend", "tpu"}
		}, wants: []string{"tpu"}},
		{name: "bad gpu-fused", args: func(spec, out string) []string {
			return []string{"simulate", spec, "-o", out, "--gpu-fused", "maybe"}
		}, wants: []string{"--gpu-fused", `"maybe"`}},
		{name: "bad gpu-nufft", args: func(spec, out string) []string {
			return []string{"simulate", spec, "-o", out, "--gpu-nufft", "sometimes"}
		}, wants: []string{"--gpu-nufft", `"sometimes"`, "off, auto or on"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			spec := writeSpec(t, dir, c.edit, c.raw)
			out := filepath.Join(dir, "out.npy")
			args := []string{"simulate", spec, "-o", out}
			if c.args != nil {
				args = c.args(spec, out)
			}
			code, _, stderr := runCLI(t, args...)
			if code == 0 {
				t.Fatal("exit code 0")
			}
			for _, w := range c.wants {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not mention %q", stderr, w)
				}
			}
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				if e.Name() != "spec.json" {
					t.Errorf("left %s behind", e.Name())
				}
			}
		})
	}
}

func TestSimulateExampleAndTopoReference(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "v.npy")
	code, stdout, stderr := runCLI(t, "simulate", "example", "-o", out, "--backend", "cpu")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "per integration") {
		t.Errorf("no summary line: %q", stdout)
	}
	a, err := npy.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if a.DType != npy.Complex128 || len(a.Shape) != 3 || a.Shape[2] != 19*19 {
		t.Fatalf("output %s %v", a.DType, a.Shape)
	}
	var meta struct {
		Shape    []int     `json:"shape"`
		DType    string    `json:"dtype"`
		Axes     []string  `json:"axes"`
		FreqsHz  []float64 `json:"freqs_hz"`
		TimesJD  []float64 `json:"times_jd"`
		AntPairs [][2]int  `json:"antpairs"`
		Backend  string    `json:"backend"`
		Coords   string    `json:"coordinates"`
	}
	mb, err := os.ReadFile(filepath.Join(dir, "v.meta.json"))
	if err != nil {
		t.Fatalf("no metadata sidecar: %v", err)
	}
	if err := json.Unmarshal(mb, &meta); err != nil {
		t.Fatal(err)
	}
	if len(meta.Shape) != 3 || meta.Shape[0] != len(meta.FreqsHz) || meta.Shape[1] != len(meta.TimesJD) || meta.Shape[2] != len(meta.AntPairs) ||
		meta.DType != "complex128" || meta.Axes[2] != "antpair" || meta.AntPairs[20] != [2]int{1, 1} || meta.Backend != "cpu" || meta.Coords != "CoordinateRotationERFA" {
		t.Fatalf("metadata does not describe the output: %s", mb)
	}
	// Autocorrelations are real and positive.
	for i := 0; i < a.Shape[0]*a.Shape[1]; i++ {
		auto := a.Complex128[i*361]
		if !(real(auto) > 0) || math.Abs(imag(auto)) > 1e-12*real(auto) {
			t.Fatalf("autocorrelation %d = %v", i, auto)
		}
	}
	for _, ref := range sharedtest.References(t) {
		out := filepath.Join(dir, ref.Name+".npy")
		code, _, stderr := runCLI(t, "simulate", filepath.Join(ref.Dir, "spec.json"), "-o", out, "--topo", filepath.Join(ref.Dir, "topo.npy"), "--backend", "cpu")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", ref.Name, code, stderr)
		}
		got, err := npy.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		want, err := npy.ReadFile(filepath.Join(ref.Dir, "vis.npy"))
		if err != nil {
			t.Fatal(err)
		}
		g, w := got.AsComplex128(), want.AsComplex128()
		if len(g) != len(w) {
			t.Fatalf("%s: %d visibilities, matvis has %d", ref.Name, len(g), len(w))
		}
		var d, m float64
		for i := range w {
			d = math.Max(d, cmplx.Abs(g[i]-w[i]))
			m = math.Max(m, cmplx.Abs(w[i]))
		}
		t.Logf("%s via the CLI with --topo: max|ΔV|/max|V| = %.3g", ref.Name, d/m)
		if !(d/m <= 1e-6) {
			t.Fatalf("%s: %g", ref.Name, d/m)
		}
	}
}

func TestUsage(t *testing.T) {
	if code, _, _ := runCLI(t); code != 2 {
		t.Fatalf("no args: exit %d", code)
	}
	if code, _, _ := runCLI(t, "bogus"); code != 2 {
		t.Fatalf("unknown command: exit %d", code)
	}
	if code, out, _ := runCLI(t, "version"); code != 0 || !strings.HasPrefix(out, "gomatvis ") {
		t.Fatalf("version: %d %q", code, out)
	}
	if code, _, _ := runCLI(t, "simulate", "example"); code != 2 {
		t.Fatalf("missing -o: exit %d", code)
	}
}
