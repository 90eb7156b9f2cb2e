package cblas

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/internal/interleave"
)

// subnormalCase is one input of BenchmarkHerkSubnormal: a 128×20 000
// matrix whose columns listed by tiny are scaled by scale.
type subnormalCase struct {
	name  string
	scale float64
	tiny  func(col, k int) bool
}

func everyOther(col, _ int) bool { return col%2 == 1 }
func lastHalf(col, k int) bool   { return col >= k/2 }

// BenchmarkHerkSubnormal measures how much slower the Gram product gets
// when half of Z's columns are so small that their products are subnormal
// (finding 8: a narrow beam's far sidelobes). Each iteration runs every
// case once, interleaved (forwards and backwards in turn), so that a
// shared machine's noise falls on all alike; the metrics are each case's
// median milliseconds and the median over iterations of its ratio to the
// normal input of its precision. For complex64, 1e-20 makes products of
// 1e-40 (below float32's 1.2e-38); for complex128, 1e-160 makes products
// of 1e-320 (below float64's 2.2e-308). "zeroed" is what flushing leaves.
func BenchmarkHerkSubnormal(b *testing.B) {
	const m, k = 128, 20_000
	h := Best()
	c64cases := []subnormalCase{
		{"c64_normal", 1, nil},
		{"c64_tiny1e-20_alternate", 1e-20, everyOther},
		{"c64_tiny1e-20_lasthalf", 1e-20, lastHalf},
		{"c64_zeroed_alternate", 0, everyOther},
	}
	c128cases := []subnormalCase{
		{"c128_normal", 1, nil},
		{"c128_tiny1e-20_alternate", 1e-20, everyOther},
		{"c128_tiny1e-160_alternate", 1e-160, everyOther},
		{"c128_tiny1e-160_lasthalf", 1e-160, lastHalf},
	}
	rng := rand.New(rand.NewPCG(3, 4))
	base := make([]complex128, m*k)
	for i := range base {
		base[i] = complex(rng.NormFloat64(), rng.NormFloat64())
	}
	scaled := func(c subnormalCase) []complex128 {
		a := append([]complex128(nil), base...)
		if c.tiny == nil {
			return a
		}
		for r := range m {
			for col := range k {
				if c.tiny(col, k) {
					a[r*k+col] *= complex(c.scale, 0)
				}
			}
		}
		return a
	}
	a64 := make([][]complex64, len(c64cases))
	for i, c := range c64cases {
		for _, v := range scaled(c) {
			a64[i] = append(a64[i], complex64(v))
		}
	}
	a128 := make([][]complex128, len(c128cases))
	for i, c := range c128cases {
		a128[i] = scaled(c)
	}
	c64 := make([]complex64, m*m)
	c128 := make([]complex128, m*m)
	h.Cherk(m, k, 1, a64[0], k, 0, c64, m) // thread pool start-up
	t64 := interleave.New(len(c64cases))
	t128 := interleave.New(len(c128cases))
	for b.Loop() {
		for _, i := range t64.Order() {
			t := time.Now()
			h.Cherk(m, k, 1, a64[i], k, 0, c64, m)
			t64.Add(i, time.Since(t))
		}
		for _, i := range t128.Order() {
			t := time.Now()
			h.Zherk(m, k, 1, a128[i], k, 0, c128, m)
			t128.Add(i, time.Since(t))
		}
	}
	for i, c := range c64cases {
		b.ReportMetric(t64.MedianMs(i), "ms_"+c.name)
		b.ReportMetric(t64.Ratio(i, 0), "x_"+c.name)
	}
	for i, c := range c128cases {
		b.ReportMetric(t128.MedianMs(i), "ms_"+c.name)
		b.ReportMetric(t128.Ratio(i, 0), "x_"+c.name)
	}
	b.Logf("%s; %s", h.Name(), Describe(h))
}
