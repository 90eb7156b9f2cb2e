package cpu

import (
	"testing"

	"github.com/gomatvis/gomatvis/matvis/backendtest"
	"github.com/gomatvis/gomatvis/matvis/cblas"
)

// TestBackend runs the backend contract's suite on the CPU backend.
func TestBackend(t *testing.T) {
	be := New()
	defer be.Close()
	backendtest.Run(t, be)
}

// TestBackendFourWorkers runs the twin comparisons with four workers
// whatever the machine: the suite's 1400-source cases have over 512
// sources above the horizon, so that the per-source stages are split
// between workers.
func TestBackendFourWorkers(t *testing.T) {
	be := NewWith(cblas.Best(), 4)
	defer be.Close()
	t.Run("PlainLoop", func(t *testing.T) { backendtest.PlainLoop(t, be) })
	t.Run("StokesPlainLoop", func(t *testing.T) { backendtest.StokesPlainLoop(t, be) })
}
