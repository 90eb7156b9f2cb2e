package input

import (
	"path/filepath"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis/simspec"
)

// BenchmarkFromSpec builds simulations from the spec files named in
// GOMATVIS_BENCH_SPECS (sharedtest.BenchSpecs), read once: the input
// phase's part after the parse.
func BenchmarkFromSpec(b *testing.B) {
	for _, p := range sharedtest.BenchSpecs(b) {
		s, err := simspec.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(filepath.Dir(p)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := FromSpecObservation(s, &SpecOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
