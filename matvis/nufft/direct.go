package nufft

import (
	"fmt"
	"math"
)

// Direct is the plain sum f_k = Σ_j c_j exp(i·sign·s_k·x_j), the reference
// the transform is tested against (O(N·M); for tests and small inputs).
func Direct(x [][]float64, c []complex128, s [][]float64, sign int) ([]complex128, error) {
	n, err := checkCoords("x", x, 0)
	if err != nil {
		return nil, err
	}
	m, err := checkCoords("s", s, len(x))
	if err != nil {
		return nil, err
	}
	if len(c) != n {
		return nil, fmt.Errorf("nufft: len(c) = %d, want one strength per point (%d)", len(c), n)
	}
	f := make([]complex128, m)
	for k := range m {
		var sum complex128
		for j := range n {
			var ph float64
			for d := range x {
				ph += s[d][k] * x[d][j]
			}
			sn, cs := math.Sincos(float64(sign) * ph)
			sum += c[j] * complex(cs, sn)
		}
		f[k] = sum
	}
	return f, nil
}
