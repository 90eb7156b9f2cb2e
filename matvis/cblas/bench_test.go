package cblas

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkCherkDev is issue 2's CPU benchmark: herk at the dev shape
// (M = 128, K = 4·10⁵, complex64) through the best available CBLAS,
// reported in GFLOP/s counting 8·M²·K (the full product's operations, as
// numpy's a.conj() @ a.T is counted in bench/herk_numpy.py) beside the
// time. Compare with that script's output on the same machine.
func BenchmarkCherkDev(b *testing.B) {
	const m, k = 128, 400_000
	h := Best()
	rng := rand.New(rand.NewPCG(1, 2))
	a := make([]complex64, m*k)
	for i := range a {
		a[i] = complex(float32(rng.NormFloat64()), float32(rng.NormFloat64()))
	}
	c := make([]complex64, m*m)
	h.Cherk(m, k, 1, a, k, 0, c, m) // thread pool start-up
	b.ResetTimer()
	for b.Loop() {
		h.Cherk(m, k, 1, a, k, 0, c, m)
	}
	b.ReportMetric(8*m*m*k/(b.Elapsed().Seconds()/float64(b.N))/1e9, "GFLOP/s(8M²K)")
	b.Logf("%s", h.Name())
}
