package gpu

import (
	"testing"

	"github.com/gomatvis/gomatvis/internal/backendtest"
)

// TestBackend runs the backend contract's suite on the GPU backend.
func TestBackend(t *testing.T) {
	backendtest.Run(t, openGPU(t))
}
