package gpu

import (
	"testing"

	"github.com/gomatvis/gomatvis/matvis/backendtest"
)

// TestBackend runs the backend contract's suite on the GPU backend.
func TestBackend(t *testing.T) {
	backendtest.Run(t, openGPU(t))
}

// TestBackendLateResult runs the shared suite with every result allocated
// in the background (matvis.LateResult), as prodslice's large results
// are: integrations that finish before the storage exists are held and
// copied in later, and the suite's values and cancellation checks must
// not see the difference.
func TestBackendLateResult(t *testing.T) {
	b := openGPU(t)
	b.tune.backgroundResult = 0
	backendtest.Run(t, b)
}
