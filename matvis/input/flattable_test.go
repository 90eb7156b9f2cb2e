package input

import (
	"context"
	"encoding/json"
	"math/cmplx"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis/cpu"
	"github.com/gomatvis/gomatvis/matvis/simspec"
)

// TestFlatTablesSimulateAsRows: a random full-Stokes sky written with
// flux_jy and stokes_q/u/v_jy as rows and the same sky written as flat
// row-major arrays give bit-identical visibilities, unpolarized (Stokes I
// only) and polarized.
func TestFlatTablesSimulateAsRows(t *testing.T) {
	rng := sharedtest.RNG(t, 1)
	const nsrc, nfreq = 30, 3
	rows := func(lo, hi float64) [][]float64 {
		out := make([][]float64, nsrc)
		for i := range out {
			for range nfreq {
				out[i] = append(out[i], lo+(hi-lo)*rng.Float64())
			}
		}
		return out
	}
	flat := func(r [][]float64) []float64 {
		var out []float64
		for _, row := range r {
			out = append(out, row...)
		}
		return out
	}
	ra, dec := make([]float64, nsrc), make([]float64, nsrc)
	for i := range ra {
		ra[i], dec[i] = 6*rng.Float64(), -1.5+1.5*rng.Float64()
	}
	tables := map[string][][]float64{"flux_jy": rows(0, 10), "stokes_q_jy": rows(-1, 1), "stokes_u_jy": rows(-1, 1), "stokes_v_jy": rows(-0.1, 0.1)}
	for _, polarized := range []bool{false, true} {
		var vis [2][]complex128
		for k, asFlat := range []bool{false, true} {
			src := map[string]any{"ra_rad": ra, "dec_rad": dec}
			for name, r := range tables {
				if !polarized && name != "flux_jy" {
					continue
				}
				src[name] = r
				if asFlat {
					src[name] = flat(r)
				}
			}
			doc, err := json.Marshal(map[string]any{
				"name": "flat", "telescope": map[string]any{"lat_deg": -30.7, "lon_deg": 21.4, "height_m": 1051},
				"antennas_enu_m": [][]float64{{0, 0, 0}, {14, 0, 0}, {0, 14, 1}}, "freqs_hz": []float64{1e8, 1.2e8, 1.5e8},
				"times_jd": []float64{2459845.0, 2459845.1}, "sources": src,
				"beams": []any{map[string]any{"type": "airy", "diameter_m": 14}}, "beam_idx": nil, "antpairs": nil,
				"polarized": polarized, "precision": 2,
			})
			if err != nil {
				t.Fatal(err)
			}
			spec, err := simspec.Decode(strings.NewReader(string(doc)), ".")
			if err != nil {
				t.Fatal(err)
			}
			if spec.Sources.FluxJy.Flat() != asFlat {
				t.Fatalf("flux_jy read as flat %v, written flat %v", spec.Sources.FluxJy.Flat(), asFlat)
			}
			sim, err := FromSpec(spec, nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := cpu.New().Run(context.Background(), sim)
			if err != nil {
				t.Fatal(err)
			}
			vis[k] = res.Vis128
		}
		if len(vis[0]) == 0 || len(vis[0]) != len(vis[1]) {
			t.Fatalf("polarized %v: %d and %d visibilities", polarized, len(vis[0]), len(vis[1]))
		}
		peak := 0.0
		for i := range vis[0] {
			peak = max(peak, cmplx.Abs(vis[0][i]))
			if vis[0][i] != vis[1][i] {
				t.Fatalf("polarized %v: V[%d] = %v from rows, %v from flat tables", polarized, i, vis[0][i], vis[1][i])
			}
		}
		if peak == 0 {
			t.Fatalf("polarized %v: every visibility is 0 (no source above the horizon?)", polarized)
		}
	}
}
