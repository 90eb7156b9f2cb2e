package input

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/matvis/simspec"
)

// BenchmarkFromSpec builds simulations from the spec files named in
// GOMATVIS_BENCH_SPECS (paths separated by ':', as simspec's
// BenchmarkReadFile), read once: the input phase's part after the parse.
// Generated specs are too large for the repository, so without the
// variable it skips.
func BenchmarkFromSpec(b *testing.B) {
	list := os.Getenv("GOMATVIS_BENCH_SPECS")
	if list == "" {
		b.Skip("GOMATVIS_BENCH_SPECS names no spec files")
	}
	for _, p := range strings.Split(list, ":") {
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
