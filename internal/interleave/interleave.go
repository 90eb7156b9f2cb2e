// Package interleave times benchmark cases run one after another in every
// iteration, alternating their order: medians and same-iteration ratios
// resist the bursts of a shared machine better than totals.
package interleave

import (
	"slices"
	"time"
)

// Times holds the per-iteration times of n cases.
type Times [][]time.Duration

// New returns Times for n cases.
func New(n int) Times { return make(Times, n) }

// Order is the order in which to run the cases in the next iteration:
// forwards and backwards in turn, since whichever case ran second in an
// iteration was measured up to 30 % slower on a shared machine.
func (s Times) Order() []int {
	o := make([]int, len(s))
	for i := range o {
		o[i] = i
	}
	if len(s[0])%2 == 1 {
		slices.Reverse(o)
	}
	return o
}

// Add records case i's time in the current iteration.
func (s Times) Add(i int, d time.Duration) { s[i] = append(s[i], d) }

// MedianMs is case i's median time in ms.
func (s Times) MedianMs(i int) float64 {
	v := slices.Clone(s[i])
	slices.Sort(v)
	return v[len(v)/2].Seconds() * 1e3
}

// Ratio is the median over iterations of case i's time over case ref's.
func (s Times) Ratio(i, ref int) float64 {
	r := make([]float64, len(s[i]))
	for j := range r {
		r[j] = float64(s[i][j]) / float64(s[ref][j])
	}
	slices.Sort(r)
	return r[len(r)/2]
}
