package h5read

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gomatvis/gomatvis/internal/h5write"
)

// writeSkyLike writes the bulk of a SkyH5 file of n components with
// h5write: /stokes (4, 1, n) float64 and /name, n fixed-length strings.
func writeSkyLike(tb testing.TB, n int) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "sky.h5")
	fh, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	f, err := h5write.Create(fh)
	if err != nil {
		tb.Fatal(err)
	}
	stokes := make([]float64, 4*n)
	names := make([]string, n)
	for i := range n {
		stokes[i] = float64(i) * 1e-3
		names[i] = fmt.Sprintf("src%d", i)
	}
	if err := f.Root().Array("stokes", stokes, 4, 1, n); err != nil {
		tb.Fatal(err)
	}
	if err := f.Root().Strings("name", names); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// BenchmarkSkyLike2M reads the Stokes and names of 2·10⁶ components, the
// bulk of a SkyH5 catalog's read.
func BenchmarkSkyLike2M(b *testing.B) {
	const n = 2_000_000
	path := writeSkyLike(b, n)
	b.ResetTimer()
	for b.Loop() {
		f := open(b, path)
		d, err := f.Dataset("/stokes")
		if err != nil {
			b.Fatal(err)
		}
		v, err := d.Float64s()
		if err != nil || len(v) != 4*n || v[n-1] != float64(n-1)*1e-3 {
			b.Fatal(len(v), err)
		}
		d, err = f.Dataset("/name")
		if err != nil {
			b.Fatal(err)
		}
		s, err := d.Strings()
		if err != nil || len(s) != n || s[n-1] != fmt.Sprintf("src%d", n-1) {
			b.Fatal(len(s), err)
		}
	}
}
