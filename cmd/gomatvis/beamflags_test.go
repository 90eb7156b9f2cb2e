package main

import (
	"context"
	"math/cmplx"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// beamFlag is a simulate flag that chooses how beamfits beams are
// evaluated: its default for a spec, the other choice, the meta.json field
// naming what ran, how little the two choices' visibilities may differ
// (relative to the peak), an unknown value, and the config hash's input.
type beamFlag struct {
	flag, def, alt string
	meta           func(outputMeta) string
	minDiff        float64
	bad            string
	hash           func(value string) hashInputs
}

var beamFlags = []beamFlag{
	{"--beam-interp", "map_coordinates", "az_za_simple", func(m outputMeta) string { return m.BeamInterp }, 1e-9, "bicubic",
		func(v string) hashInputs { return hashInputs{format: "npy", beamInterp: v} }},
	{"--beam-pole", "edge", "continued", func(m outputMeta) string { return m.BeamPole }, 1e-12, "smooth",
		func(v string) hashInputs { return hashInputs{format: "npy", beamPole: v} }},
}

// TestBeamFlags: --beam-interp and --beam-pole reach a spec's beamfits beam
// (a spec's defaults are matvis's map_coordinates and exact edge),
// meta.json names what ran, the two choices' visibilities differ
// (slightly: both interpolate the same grid; the pole only near zenith and
// the azimuth wrap), and an unknown value is a usage error naming the flag.
func TestBeamFlags(t *testing.T) {
	spec := filepath.Join(sharedtest.Dir(t), "reference", "uvbeam-pol-small", "spec.json")
	for _, bf := range beamFlags {
		t.Run(bf.flag, func(t *testing.T) {
			dir := t.TempDir()
			vis := map[string][]complex128{}
			for _, c := range []struct{ flag, want string }{{"", bf.def}, {bf.alt, bf.alt}} {
				out := filepath.Join(dir, "run-"+c.want+".npy")
				args := []string{"simulate", spec, "-o", out, "-q", "--backend", "cpu"}
				if c.flag != "" {
					args = append(args, bf.flag, c.flag)
				}
				if code, _, e := runCLI(t, args...); code != 0 {
					t.Fatalf("%s %q: exit %d: %s", bf.flag, c.flag, code, e)
				}
				if got := bf.meta(readMeta(t, out)); got != c.want {
					t.Errorf("%s %q: meta.json names %q, want %q", bf.flag, c.flag, got, c.want)
				}
				_, vis[c.want] = npyComplex(t, out)
			}
			a, b := vis[bf.def], vis[bf.alt]
			var peak, diff float64
			for i := range a {
				peak = max(peak, cmplx.Abs(a[i]))
				diff = max(diff, cmplx.Abs(a[i]-b[i]))
			}
			t.Logf("max |V(%s) − V(%s)| / peak = %.3g", bf.alt, bf.def, diff/peak)
			if !(diff > bf.minDiff*peak && diff < 1e-2*peak) {
				t.Errorf("max |V(%s) − V(%s)| / peak = %.3g: want a small, non-zero difference", bf.alt, bf.def, diff/peak)
			}
			code, _, e := runCLI(t, "simulate", spec, "-o", filepath.Join(dir, "bad.npy"), "-q", "--backend", "cpu", bf.flag, bf.bad)
			if code == 0 || !strings.Contains(e, bf.flag) || !strings.Contains(e, `"`+bf.bad+`"`) {
				t.Errorf("%s %s: exit %d, stderr %q; want a usage error naming the flag and value", bf.flag, bf.bad, code, e)
			}
		})
	}
}

// TestBeamFlagHashes: a spec with a beamfits beam hashes alike with no
// flag and with the flag's default (the parts made before the flag still
// match) and differently with the other choice; a spec with analytic beams
// only is not changed by the flag.
func TestBeamFlagHashes(t *testing.T) {
	fits := filepath.Join(sharedtest.Dir(t), "reference", "uvbeam-pol-small", "spec.json")
	for _, bf := range beamFlags {
		hashOf := func(t *testing.T, path, value string) string {
			t.Helper()
			in, err := loadInput(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			h, err := configHash(in, bf.hash(value))
			if err != nil {
				t.Fatal(err)
			}
			return h
		}
		if hashOf(t, fits, "") != hashOf(t, fits, bf.def) {
			t.Errorf("beamfits spec: the default and %s %s hash differently", bf.flag, bf.def)
		}
		if hashOf(t, fits, "") == hashOf(t, fits, bf.alt) {
			t.Errorf("beamfits spec: %s %s hashes as the default", bf.flag, bf.alt)
		}
		if hashOf(t, "example", "") != hashOf(t, "example", bf.alt) {
			t.Errorf("analytic-beam spec: %s changed the hash", bf.flag)
		}
	}
}
