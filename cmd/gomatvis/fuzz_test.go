package main

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/gomatvis/gomatvis/matvis/input"
	"math"
	"math/cmplx"
	"testing"

	"github.com/gomatvis/gomatvis/matvis/cblas"
	"github.com/gomatvis/gomatvis/matvis/cpu"
	"github.com/gomatvis/gomatvis/matvis/simspec"
)

// fuzzLimit bounds the sizes a fuzzed spec may have, so that each
// execution takes milliseconds; larger inputs are skipped.
const fuzzLimit = 8

// fuzzSeeds are the example spec shrunk to 4 antennas, 3 sources, 2
// channels and 2 times, and variants of it.
func fuzzSeeds(t testing.TB) [][]byte {
	var seeds [][]byte
	for _, edit := range []func(m map[string]any){
		nil,
		func(m map[string]any) { m["polarized"], m["precision"] = true, 1 },
		func(m map[string]any) {
			m["antpairs"] = []any{[]any{0, 1}, []any{2, 2}}
			m["options"] = map[string]any{"matprod": "pairs", "min_chunks": 2}
		},
		func(m map[string]any) {
			m["beams"] = []any{map[string]any{"type": "airy", "diameter_m": 14.0}, map[string]any{"type": "short_dipole"}}
			m["beam_idx"] = []any{0, 1, 0, 1}
			m["coord_method"] = simspec.CoordAstropy
		},
	} {
		var m map[string]any
		if err := json.Unmarshal([]byte(exampleSpec), &m); err != nil {
			t.Fatal(err)
		}
		m["antennas_enu_m"] = m["antennas_enu_m"].([]any)[:4]
		smallSpec(3, 2, 2, edit)(m)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	return seeds
}

// FuzzSpecSimulate decodes a mutated spec and, when it is small and
// valid, runs it on the CPU backend: the run must give finite
// visibilities or a clean error, never a panic, a hang or NaN with
// success. Specs naming files (beamfits beams) are skipped: the fuzzer
// must not read arbitrary paths.
func FuzzSpecSimulate(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	be := cpu.NewWith(cblas.Gonum{}, 1)
	f.Fuzz(func(t *testing.T, data []byte) {
		spec, err := simspec.Decode(bytes.NewReader(data), t.TempDir())
		if err != nil {
			return
		}
		for _, b := range spec.Beams {
			if b.Type == "beamfits" {
				t.Skip("beamfits beams read files")
			}
		}
		if len(spec.AntennasENU) > fuzzLimit || spec.NSrc() > fuzzLimit || len(spec.FreqsHz) > fuzzLimit ||
			len(spec.TimesJD) > fuzzLimit || len(spec.AntPairs) > fuzzLimit*fuzzLimit {
			t.Skip("larger than the fuzzing bound")
		}
		sim, err := input.FromSpec(spec, nil)
		if err != nil {
			return
		}
		res, err := be.Run(context.Background(), sim)
		if err != nil {
			return
		}
		if !res.Complete() {
			t.Fatal("success with unfinished integrations")
		}
		for i, v := range res.Vis128 {
			if cmplx.IsNaN(v) || cmplx.IsInf(v) {
				t.Fatalf("vis[%d] = %v with no error", i, v)
			}
		}
		for i, v := range res.Vis64 {
			if w := complex128(v); cmplx.IsNaN(w) || cmplx.IsInf(w) || math.IsNaN(float64(real(v))) {
				t.Fatalf("vis[%d] = %v with no error", i, v)
			}
		}
	})
}

// TestFuzzSeedsRun checks that every seed of FuzzSpecSimulate is valid and
// runs, so that the fuzzer starts from the simulation path, not from
// decode errors.
func TestFuzzSeedsRun(t *testing.T) {
	for i, s := range fuzzSeeds(t) {
		spec, err := simspec.Decode(bytes.NewReader(s), t.TempDir())
		if err != nil {
			t.Fatalf("seed %d: %v", i, err)
		}
		sim, err := input.FromSpec(spec, nil)
		if err != nil {
			t.Fatalf("seed %d: %v", i, err)
		}
		if _, err := cpu.New().Run(context.Background(), sim); err != nil {
			t.Fatalf("seed %d: %v", i, err)
		}
	}
}
