package cpu

import (
	"context"
	"fmt"
	"math"
	"math/cmplx"
	"path/filepath"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/simspec"
)

// relErr is max|a−b| / max|b|.
func relErr(a, b []complex128) float64 {
	var d, m float64
	for i := range b {
		d = math.Max(d, cmplx.Abs(a[i]-b[i]))
		m = math.Max(m, cmplx.Abs(b[i]))
	}
	return d / m
}

func loadTopo(t *testing.T, dir string) matvis.Coordinates {
	a := sharedtest.ReadNpy(t, filepath.Join(dir, "topo.npy"))
	c, err := matvis.NewPrecomputed(a.Shape[0], a.Shape[2], a.Float64)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestReferences runs every reference spec (analytic and beamfits beams) on astropy's own
// ENU vectors (--topo) and on our astrometry (both methods), in the spec's
// precision and in the other, and compares with matvis's vis.npy.
func TestReferences(t *testing.T) {
	for _, ref := range sharedtest.References(t) {
		spec := filepath.Join(ref.Dir, "spec.json")
		want := sharedtest.ReadNpy(t, filepath.Join(ref.Dir, "vis.npy")).AsComplex128()
		for _, coords := range []string{"topo", simspec.CoordAstropy, simspec.CoordERFA} {
			for _, prec := range []int{2, 1} {
				t.Run(fmt.Sprintf("%s/%s/precision%d", ref.Name, coords, prec), func(t *testing.T) {
					s, err := simspec.ReadFile(spec)
					if err != nil {
						t.Fatal(err)
					}
					refPrec := s.Precision
					s.Precision = prec
					so := &matvis.SpecOptions{CoordMethod: coords}
					bar := 1e-6
					if coords == "topo" {
						so = &matvis.SpecOptions{Topo: loadTopo(t, ref.Dir)}
						bar = 1e-9
					}
					if prec == 1 || refPrec == 1 {
						bar = 1e-4
					}
					sim, err := matvis.FromSpec(s, so)
					if err != nil {
						t.Fatal(err)
					}
					res, err := New().Run(context.Background(), sim)
					if err != nil {
						t.Fatal(err)
					}
					got := make([]complex128, len(want))
					for i := range got {
						if prec == 1 {
							got[i] = complex128(res.Vis64[i])
						} else {
							got[i] = res.Vis128[i]
						}
					}
					e := relErr(got, want)
					t.Logf("%s, %s coordinates, precision %d vs matvis (precision %d): max|ΔV|/max|V| = %.3g (bar %g)", ref.Name, coords, prec, refPrec, e, bar)
					if !(e <= bar) {
						t.Fatalf("max|ΔV|/max|V| = %g > %g", e, bar)
					}
				})
			}
		}
	}
}
