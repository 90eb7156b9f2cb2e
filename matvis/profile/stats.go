package profile

import (
	"math"
	"slices"
)

// Summary is a sample's median, mean, sample standard deviation and size,
// in the samples' unit (seconds for times).
type Summary struct {
	Median float64 `json:"median"`
	Mean   float64 `json:"mean"`
	Std    float64 `json:"std"`
	N      int     `json:"n"`
}

// Summarize summarises xs (all zero for an empty sample; Std 0 for one).
func Summarize(xs []float64) Summary {
	n := len(xs)
	if n == 0 {
		return Summary{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	var sum float64
	for _, x := range s {
		sum += x
	}
	mean := sum / float64(n)
	var ss float64
	for _, x := range s {
		ss += (x - mean) * (x - mean)
	}
	std := 0.0
	if n > 1 {
		std = math.Sqrt(ss / float64(n-1))
	}
	return Summary{Median: med, Mean: mean, Std: std, N: n}
}
