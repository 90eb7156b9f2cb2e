package cpu

import (
	"testing"

	"github.com/gomatvis/gomatvis/internal/backendtest"
)

// TestBackend runs the backend contract's suite on the CPU backend.
func TestBackend(t *testing.T) {
	be := New()
	defer be.Close()
	backendtest.Run(t, be)
}
