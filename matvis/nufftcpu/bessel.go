package nufftcpu

import "math"

// besselJ sets j[n] = J_n(x) for n = 0…len(j)−1 by Miller's backward
// recurrence J_{k−1} = (2k/x)·J_k − J_{k+1}, normalized by the identity
// J_0 + 2·Σ_{k≥1} J_2k = 1, which holds for every x. math.Jn normalizes
// the same recurrence by J_0(x) alone and so loses absolute accuracy near
// J_0's zeros: math.Jn(3, 2.4048173193798634) is off by 5e-12 (mpmath),
// over an expansion's ε = 1e-12 (TestJacobiAnger, seed 34).
func besselJ(x float64, j []float64) {
	clear(j)
	if len(j) == 0 {
		return
	}
	if x == 0 {
		j[0] = 1
		return
	}
	ax := math.Abs(x)
	// Start far enough above both the orders wanted and x that the
	// recurrence's arbitrary start has decayed below rounding (Numerical
	// Recipes' bessj: m ≈ n + √(40·n), here with 30 more).
	top := max(len(j), int(ax)+1)
	m := 2 * ((top + 30 + int(math.Sqrt(40*float64(top)))) / 2)
	// cur is J_k and next J_{k+1}, both up to one common factor; sum is
	// J_0 + 2·Σ J_2k over the orders passed, with that factor.
	next, cur, sum := 0.0, 1.0, 2.0
	for k := m; k > 0; k-- {
		next, cur = cur, 2*float64(k)/ax*cur-next
		if k-1 < len(j) {
			j[k-1] = cur
		}
		if k-1 > 0 && (k-1)%2 == 0 {
			sum += 2 * cur
		}
		if math.Abs(cur) > 1e250 {
			// Rescale before an overflow (small x grows the recurrence
			// fast); the stored orders share the factor.
			next, cur, sum = next*1e-250, cur*1e-250, sum*1e-250
			for i := k - 1; i < len(j); i++ {
				j[i] *= 1e-250
			}
		}
	}
	sum += cur
	for n := range j {
		j[n] /= sum
		if x < 0 && n%2 == 1 {
			j[n] = -j[n] // J_n(−x) = (−1)^n·J_n(x)
		}
	}
}
