// Package matrix3 is the 3×3 matrix arithmetic the coordinate code shares
// (matvis/astro's ERFA rotation, matvis/skymodel's frame matrices,
// matvis's pyradiosky polarization basis). Matrices are row-major
// [3][3]float64, so each package's own named matrix type passes and
// receives them without conversion; sums run in index order, k = 0, 1, 2.
package matrix3

// Mul returns a·b.
func Mul(a, b [3][3]float64) [3][3]float64 {
	var c [3][3]float64
	for i := range 3 {
		for j := range 3 {
			for k := range 3 {
				c[i][j] += a[i][k] * b[k][j]
			}
		}
	}
	return c
}

// Transpose returns aᵀ.
func Transpose(a [3][3]float64) [3][3]float64 {
	var t [3][3]float64
	for i := range 3 {
		for j := range 3 {
			t[i][j] = a[j][i]
		}
	}
	return t
}

// Apply returns m·v.
func Apply(m [3][3]float64, v [3]float64) [3]float64 {
	return [3]float64{Dot(m[0], v), Dot(m[1], v), Dot(m[2], v)}
}

// Dot returns a·b.
func Dot(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
