package nufftcpu

import (
	"testing"

	"github.com/gomatvis/gomatvis/matvis/backendtest"
)

// TestBackend runs the backend contract's suite, as the backend is used:
// its small simulations are estimated faster on the direct product and
// fall back to it. Forced (TestBackendForced), most of its random
// simulations give antennas different beams or a full-Stokes sky, so they
// exercise the fall-back to the direct product; the matvis reference
// uvbeam-pol-small (polarized, a gridded beam, every coordinate method,
// both precisions), ZenithSource and NonFiniteOutput run as transforms at
// DefaultEps under the suite's own bars (counted on 2026-12-01 by logging
// the path taken). TestAgainstDirect covers the transform itself.
func TestBackend(t *testing.T) {
	be, err := New(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	backendtest.Run(t, be)
}

// TestBackendForced runs the suite with the chooser off: the suite's
// small simulations are estimated faster on the direct product, so
// without Force those with up to MaxGroups beam groups fall back as well.
// Its per-baseline bar (1e-11 of each visibility) is a direct product's:
// the transform's error is ε relative to the largest visibilities, and
// at ε = 1e-12 a small baseline of a 3-group gridded polarized case
// measured 1.1e-11 (2026-12-01), so the transforms run at ε = 1e-13.
func TestBackendForced(t *testing.T) {
	be, err := New(1e-13, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	be.Force = true
	backendtest.Run(t, be)
}
