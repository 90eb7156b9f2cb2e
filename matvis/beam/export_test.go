package beam

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Hooks for the external tests (package beam_test) that read a beamfits
// file: matvis/beam/beamfits imports this package, so a test of this
// package cannot import it.

// Cdiff is cdiff, for the external tests.
var Cdiff = cdiff

// MustPole is mustPole, for the external tests.
func MustPole(t *testing.T, g *Gridded) *Gridded { return mustPole(t, g) }

// AzZaSimpleTwinWorst compares g0 interpolated with az_za_simple at its
// first channel, polarized, with the spline's slow twin at 100 random
// directions over za 0–90° and all azimuths (a third near the wrap): the
// largest difference and the tables' peak.
func AzZaSimpleTwinWorst(t *testing.T, g0 *Gridded) (worst, peak float64) {
	t.Helper()
	g := mustAzZa(t, g0)
	rng := rand.New(rand.NewPCG(27, 9))
	az, za := azzaPoints(rng, 100, math.Pi/2, g.spec.AzRad[1]-g.spec.AzRad[0])
	mode := Mode{Polarized: true}
	r, err := g.Prepare(g.spec.FreqsHz[0], mode)
	if err != nil {
		t.Fatal(err)
	}
	n := len(az)
	got := make([]complex128, 4*n)
	r.Eval(az, za, got)
	for i := range g.nvals() {
		re, im := g.value(i)
		peak = max(peak, math.Hypot(re, im))
	}
	for p, src := range mustSources(t, g, mode) {
		want := twinEval(g, src.vec, src.comp, az, za)
		for s := range n {
			worst = max(worst, cdiff(got[p*n+s], want[s]))
		}
	}
	return worst, peak
}
