package simspec

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// BenchmarkReadFile reads whole spec files, as `gomatvis simulate` does:
// those named in GOMATVIS_BENCH_SPECS (sharedtest.BenchSpecs).
func BenchmarkReadFile(b *testing.B) {
	for _, p := range sharedtest.BenchSpecs(b) {
		fi, err := os.Stat(p)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(p), func(b *testing.B) {
			b.SetBytes(fi.Size())
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ReadFile(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
