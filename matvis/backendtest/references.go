package backendtest

import (
	"context"
	"fmt"
	"github.com/gomatvis/gomatvis/matvis/input"
	"path/filepath"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/simspec"
)

// coordTopo runs a reference on astropy's own ENU vectors (topo.npy, the
// command line's --topo) instead of our astrometry.
const coordTopo = "topo"

// References runs every reference spec of testdata/reference on astropy's
// ENU vectors and on our astrometry (both methods), in the spec's
// precision and in the other, and compares with matvis's vis.npy.
func References(t *testing.T, be matvis.Backend) {
	for _, ref := range sharedtest.References(t) {
		want := sharedtest.ReadNpy(t, filepath.Join(ref.Dir, "vis.npy")).AsComplex128()
		for _, coords := range []string{coordTopo, simspec.CoordAstropy, simspec.CoordERFA} {
			for _, prec := range []int{2, 1} {
				t.Run(fmt.Sprintf("%s/%s/precision%d", ref.Name, coords, prec), func(t *testing.T) {
					checkReference(t, be, ref, coords, prec, want)
				})
			}
		}
	}
}

// referenceBar is the bar on max|ΔV|/max|V| against matvis: rounding on
// astropy's own vectors, our astrometry's sub-milliarcsecond differences
// otherwise, and float32 rounding whenever either run was in precision 1
// (1.6e-7 and 8.2e-7 on the CPU backend, 2026-11-30: about ten times that).
func referenceBar(coords string, prec, refPrec int) float64 {
	switch {
	case prec == 1 || refPrec == 1:
		return 1e-5
	case coords == coordTopo:
		return 1e-9
	}
	return 1e-6
}

func checkReference(t *testing.T, be matvis.Backend, ref sharedtest.Reference, coords string, prec int, want []complex128) {
	s, err := simspec.ReadFile(filepath.Join(ref.Dir, "spec.json"))
	if err != nil {
		t.Fatal(err)
	}
	refPrec := s.Precision
	s.Precision = prec
	so := &input.SpecOptions{CoordMethod: coords}
	if coords == coordTopo {
		so = &input.SpecOptions{Topo: loadTopo(t, ref.Dir)}
	}
	sim, err := input.FromSpec(s, so)
	if err != nil {
		t.Fatal(err)
	}
	res, err := be.Run(context.Background(), sim)
	if err != nil {
		t.Fatal(err)
	}
	e, bar := RelErr(Vis(res), want), referenceBar(coords, prec, refPrec)
	t.Logf("%s: %s, %s coordinates, precision %d vs matvis (precision %d): max|ΔV|/max|V| = %.3g (bar %g)",
		be.Name(), ref.Name, coords, prec, refPrec, e, bar)
	if !(e <= bar) {
		t.Fatalf("max|ΔV|/max|V| = %g > %g", e, bar)
	}
}

// loadTopo reads a reference's topo.npy, shape (ntimes, 3, nsrc).
func loadTopo(t *testing.T, dir string) matvis.Coordinates {
	a := sharedtest.ReadNpy(t, filepath.Join(dir, "topo.npy"))
	v, err := a.AsFloat64()
	if err != nil {
		t.Fatal(err)
	}
	c, err := matvis.NewPrecomputed(a.Shape[0], a.Shape[2], v)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
