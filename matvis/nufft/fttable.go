package nufft

import "math"

// ftDegree is the Chebyshev degree of ftTable. The kernel's transform
// ∫φ(z)cos(κz)dz is an entire function of exponential type 1 in κ, so on
// [0, π·w/4] (at most 12.6) its Chebyshev coefficients fall faster than
// geometrically; degree 40 reaches float64 rounding, a few 1e-14
// relative (TestFTTable).
const ftDegree = 40

// ftNoise is the relative size below which trailing coefficients are
// dropped: above the quadrature's rounding noise (measured up to 1.5e-15
// of c[0] beyond degree 20 at w = 13, 2026-12-01), below any ε.
const ftNoise = 4e-15

// ftTable evaluates the kernel's transform k.ft on [0, kmax] by a
// Chebyshev interpolant: about 80 floating-point operations per value
// instead of one cosine per quadrature node, for the per-target
// corrections of a plan.
type ftTable struct {
	k    kernel
	kmax float64
	c    []float64 // Chebyshev coefficients in y = 2κ/kmax − 1
}

// newFTTable interpolates k.ft at the ftDegree+1 Chebyshev points of
// [0, kmax].
func newFTTable(k kernel, kmax float64) ftTable {
	n := ftDegree + 1
	f := make([]float64, n)
	for i := range n {
		y := math.Cos(math.Pi * (float64(i) + 0.5) / float64(n))
		f[i] = k.ft((y + 1) / 2 * kmax)
	}
	c := make([]float64, n)
	for j := range n {
		var s float64
		for i := range n {
			s += f[i] * math.Cos(math.Pi*float64(j)*(float64(i)+0.5)/float64(n))
		}
		c[j] = 2 * s / float64(n)
	}
	c[0] /= 2
	// The coefficients fall to the quadrature's rounding, a few 1e-16 of
	// c[0], by degree 20 or so (w = 13); the rest is noise, and dropping
	// it halves every evaluation (one per target and axis of a plan).
	for len(c) > 1 && math.Abs(c[len(c)-1]) <= ftNoise*math.Abs(c[0]) {
		c = c[:len(c)-1]
	}
	return ftTable{k: k, kmax: kmax, c: c}
}

// at is k.ft(κ): the interpolant by Clenshaw's recurrence within
// [−kmax, kmax] (the transform is even), the quadrature outside.
func (t ftTable) at(kappa float64) float64 {
	kappa = math.Abs(kappa)
	if kappa > t.kmax {
		return t.k.ft(kappa)
	}
	y := 2*kappa/t.kmax - 1
	var b1, b2 float64
	for j := len(t.c) - 1; j >= 1; j-- {
		b1, b2 = 2*y*b1-b2+t.c[j], b1
	}
	return y*b1 - b2 + t.c[0]
}
