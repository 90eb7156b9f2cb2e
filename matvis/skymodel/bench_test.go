package skymodel

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// writeTextCatalog writes an n-source spectral-index text catalog in the
// layout of the reference sky.txt.
func writeTextCatalog(tb testing.TB, dir string, n int) string {
	tb.Helper()
	path := filepath.Join(dir, fmt.Sprintf("sky_%d.txt", n))
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprint(w, "source_id\tra_icrs [deg]\tdec_icrs [deg]\tFlux [Jy]\tFrequency [Hz]\tSpectral_Index\n")
	rng := rand.New(rand.NewSource(1))
	for i := range n {
		fmt.Fprintf(w, "src%07d\t%.8f\t%.8f\t%.8f\t%.8f\t%.8f\n", i,
			rng.Float64()*360, rng.Float64()*180-90, rng.Float64()*20, 1e8, -rng.Float64()*1.5)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// BenchmarkReadText1M loads a 10⁶-source spectral-index text catalog.
func BenchmarkReadText1M(b *testing.B) {
	path := writeTextCatalog(b, b.TempDir(), 1_000_000)
	b.ResetTimer()
	for b.Loop() {
		s, err := ReadTextFile(path)
		if err != nil || s.Len() != 1_000_000 {
			b.Fatal(s, err)
		}
	}
}

func spectralIndexSky(n int) *Sky {
	rng := rand.New(rand.NewSource(2))
	c := Components{RA: make([]float64, n), Dec: make([]float64, n), Spectral: SpectralIndex,
		RefFreq: make([]float64, n), Index: make([]float64, n)}
	c.Stokes[0] = make([]float64, n)
	for i := range n {
		c.Stokes[0][i], c.RefFreq[i], c.Index[i] = rng.Float64()*20, 1e8, -rng.Float64()*1.5
	}
	s, err := New(c)
	if err != nil {
		panic(err)
	}
	return s
}

// BenchmarkStokesISpectralIndex1M evaluates one channel of 10⁶ sources.
func BenchmarkStokesISpectralIndex1M(b *testing.B) {
	s := spectralIndexSky(1_000_000)
	dst := make([]float64, s.Len())
	f := 100e6
	for b.Loop() {
		f += 97.65625e3 // walk through a 1024-channel band
		if err := s.StokesIAt(f, dst); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStokesISubband1M evaluates one channel of 10⁶ sources with 20
// GLEAM-like subbands by cubic spline.
func BenchmarkStokesISubband1M(b *testing.B) {
	const n, nf = 1_000_000, 20
	rng := rand.New(rand.NewSource(3))
	c := Components{RA: make([]float64, n), Dec: make([]float64, n), Spectral: Subband, Freqs: make([]float64, nf)}
	for k := range nf {
		c.Freqs[k] = 76e6 + float64(k)*8e6
	}
	c.Stokes[0] = make([]float64, n*nf)
	for i := range c.Stokes[0] {
		c.Stokes[0][i] = rng.Float64()
	}
	s, err := New(c)
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]float64, n)
	t0 := time.Now()
	if err := s.StokesIAt(150.3e6, dst); err != nil { // computes the spline's second derivatives once
		b.Fatal(err)
	}
	b.Logf("first call (spline second derivatives for 10⁶ × 20): %v", time.Since(t0))
	for b.Loop() {
		if err := s.StokesIAt(150.3e6, dst); err != nil {
			b.Fatal(err)
		}
	}
}
