package simspec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkReadFile reads whole spec files, as `gomatvis simulate` does:
// those named in GOMATVIS_BENCH_SPECS (paths separated by ':'), e.g. the
// 350-antenna, 2·10⁵- and 2·10⁶-source skies that
// `scripts/random-spec.py OUT s NSRC 350 1 1 2` writes. Generated specs
// are too large for the repository, so without the variable it skips.
func BenchmarkReadFile(b *testing.B) {
	list := os.Getenv("GOMATVIS_BENCH_SPECS")
	if list == "" {
		b.Skip("GOMATVIS_BENCH_SPECS names no spec files")
	}
	for _, p := range strings.Split(list, ":") {
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
