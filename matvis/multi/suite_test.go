package multi

import (
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
	"github.com/gomatvis/gomatvis/matvis/cblas"
	"github.com/gomatvis/gomatvis/matvis/cpu"
)

// TestBackendSuite runs the shared backend suite on a run over two CPU
// backends, as every other backend runs it: blocks split across
// backends must give what one backend gives, with the same progress,
// cancellation and statistics contract.
func TestBackendSuite(t *testing.T) {
	m, err := New([]matvis.Backend{cpu.NewWith(cblas.Best(), 1), cpu.NewWith(cblas.Best(), 1)}, []string{"cpu 0", "cpu 1"})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	backendtest.Run(t, m)
}
