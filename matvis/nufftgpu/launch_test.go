package nufftgpu

import (
	"errors"
	"testing"

	"github.com/gomatvis/gomatvis/internal/launchcheck"
)

// TestLaunchesMatchKernels: every kernel launch of this package passes
// what the kernel's declaration in nufft.cu takes (count, class and width
// of each argument), checked on the Go source without a device; Launch
// checks the same at run time.
func TestLaunchesMatchKernels(t *testing.T) {
	launches, err := launchcheck.Check(".", "github.com/gomatvis/gomatvis/matvis/nufftgpu", "nufft.cu")
	if errors.Is(err, launchcheck.ErrNoToolchain) {
		t.Skipf("SKIPPED, not checked: %v (the check runs where Go is installed, as in CI)", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(launches) != 4 {
		t.Fatalf("%d launches found, want 4 (spread, deconvolve, interpolate, place): the check no longer sees the package's launches", len(launches))
	}
	t.Logf("%d launches checked", len(launches))
}
