package nufftcpu

import (
	"testing"

	"github.com/gomatvis/gomatvis/internal/backendtest"
)

// TestBackend runs the backend contract's suite. Most of its simulations
// give antennas different beams, are polarized or run in precision 1, so
// they exercise the fall-back to the direct product; ZenithSource and
// NonFiniteOutput run as (3-D) transforms at DefaultEps under the suite's
// float64 bars (counted on 2026-12-01 by logging the path taken).
// TestAgainstDirect covers the transform itself.
func TestBackend(t *testing.T) {
	be, err := New(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	backendtest.Run(t, be)
}
