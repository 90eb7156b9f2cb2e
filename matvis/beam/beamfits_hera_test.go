package beam_test

import (
	"math"
	"math/cmplx"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/beam/beamfits"
)

// The tests of this package that read the shared HERA beamfits, outside
// package beam because matvis/beam/beamfits imports it.

// TestAzZaSimpleTwinNFDipole: the twin on the shared HERA beamfits (the NF
// dipole, 180 azimuths × 91 zenith angles over 0–180°, complex E-field) at
// its first channel, polarized, 100 random directions over za 0–90° and
// all azimuths, a third near the wrap: ≤ 1e-12 of the beam's peak.
func TestAzZaSimpleTwinNFDipole(t *testing.T) {
	g0, err := beamfits.Load(sharedtest.HERABeam(t))
	if err != nil {
		t.Fatal(err)
	}
	worst, peak := beam.AzZaSimpleTwinWorst(t, g0)
	t.Logf("NF dipole: largest |az_za_simple − twin| = %.3g of the peak %.4g", worst/peak, peak)
	if !(worst <= 1e-12*peak) {
		t.Errorf("NF dipole: largest |az_za_simple − twin| = %.3g of the peak, want ≤ 1e-12", worst/peak)
	}
}

// TestPoleSingleValuedHERA: on the HERA beamfits, the continuation's fit
// of the za = 0 row moves the file's values little (its basis order and
// azimuth sense are the file's), and makes the feed power at the pole
// single-valued over azimuth (TestPoleSingleValued does the same on random
// beams).
func TestPoleSingleValuedHERA(t *testing.T) {
	const n = 360
	paz := make([]float64, n)
	for i := range n {
		paz[i] = 2 * math.Pi * float64(i) / n
	}
	g0, err := beamfits.Load(sharedtest.HERABeam(t))
	if err != nil {
		t.Fatal(err)
	}
	var edgeOut []complex128
	for _, g := range []*beam.Gridded{g0, beam.MustPole(t, g0)} {
		r, err := g.Prepare(1e8, beam.Mode{Polarized: true})
		if err != nil {
			t.Fatal(err)
		}
		zz := make([]float64, n)
		for i := range zz {
			zz[i] = 1e-6
		}
		out := make([]complex128, 4*n)
		r.Eval(paz, zz, out)
		if edgeOut == nil {
			edgeOut = out
		} else {
			// The fit moves a real file's za = 0 row by little: its
			// samples are one vector in the beams' (φ̂, θ̂) order and
			// azimuth sense, to the file's accuracy (the other order or
			// sense would move it by O(1)). Measured 1.7e-3, the edge's
			// wrap error near az = 0 among it.
			var moved, peak float64
			for i := range out {
				moved = max(moved, cmplx.Abs(out[i]-edgeOut[i]))
				peak = max(peak, cmplx.Abs(edgeOut[i]))
			}
			t.Logf("HERA beamfits: the pole fit moves the za = 0 values by %.2e of their peak", moved/peak)
			if moved > 1e-2*peak {
				t.Errorf("HERA beamfits: the pole fit moves the za = 0 values by %.3g of their peak: the fit's basis order or azimuth sense is not the file's", moved/peak)
			}
		}
		lo, hi := math.Inf(1), 0.0
		for i := range n {
			p := math.Pow(cmplx.Abs(out[2*n+i]), 2) + math.Pow(cmplx.Abs(out[3*n+i]), 2)
			lo, hi = min(lo, p), max(hi, p)
		}
		t.Logf("HERA beamfits, %s: feed y power at za = 1e-6 spreads by %.2e over azimuth", g.Pole(), (hi-lo)/hi)
		if g.Pole() == beam.PoleContinued && (hi-lo) > 1e-7*hi {
			t.Errorf("HERA beamfits, continued: feed y power at za = 1e-6 spreads by %.3g over azimuth, want < 1e-7", (hi-lo)/hi)
		}
	}
}
