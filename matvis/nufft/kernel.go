package nufft

import (
	"math"

	"gonum.org/v1/gonum/integrate/quad"
)

// Accuracy limits: below MinEps the kernel would need more than 16 grid
// points and float64 rounding dominates anyway; above MaxEps a one-digit
// transform is not worth a kernel.
const (
	MinEps = 1e-14
	MaxEps = 1e-1
)

// kernel is the "exponential of semicircle" φ(z) = exp(β(√(1−z²) − 1)) of
// Barnett, Magland & af Klinteberg 2019 (eq. 1.8), scaled to w grid points:
// a grid point at distance δ (in grid spacings) from a point has weight
// φ(2δ/w).
type kernel struct {
	w    int     // width in fine-grid points
	beta float64 // shape parameter
	// Gauss–Legendre nodes and weights on [0, 1] for the kernel's
	// Fourier transform; φ is even, so half the interval suffices.
	qz, qw []float64
	qphi   []float64 // φ at the nodes, times the weights
}

// newKernel chooses the width and shape for a tolerance ε at upsampling
// σ = 2: w = ⌈log10(1/ε)⌉ + 1 and β = 2.30·w (Barnett et al. 2019, §4.1).
func newKernel(eps float64) kernel {
	w := int(math.Ceil(math.Log10(1/eps))) + 1
	w = max(w, 2)
	k := kernel{w: w, beta: 2.30 * float64(w)}
	// The transform is needed for arguments κ = ξ·w/2 up to π·w/4 (see
	// plan.go), where cos(κz)·φ(z) is smooth and φ(1) = e^{−β} is below
	// ε; 2w + 8 nodes on [0, 1] reach float64 rounding there
	// (TestKernelFTConverged checks against 300 nodes).
	n := 2*w + 8
	k.qz = make([]float64, n)
	k.qw = make([]float64, n)
	quad.Legendre{}.FixedLocations(k.qz, k.qw, 0, 1)
	k.qphi = make([]float64, n)
	for i, z := range k.qz {
		k.qphi[i] = k.qw[i] * k.phi(z)
	}
	return k
}

// phi is the kernel on its own scale, zero outside |z| ≤ 1.
func (k kernel) phi(z float64) float64 {
	if z < -1 || z > 1 {
		return 0
	}
	return math.Exp(k.beta * (math.Sqrt(1-z*z) - 1))
}

// weights fills dst (length w) with the kernel's weights for a point at
// fine-grid coordinate p: grid index first+a gets dst[a]. first is the
// lowest index within half a width of p.
func (k kernel) weights(dst []float64, p float64) (first int) {
	half := 0.5 * float64(k.w)
	first = k.first(p)
	inv := 1 / half
	for a := range dst {
		z := (float64(first+a) - p) * inv
		arg := 1 - z*z
		if arg < 0 {
			dst[a] = 0
			continue
		}
		dst[a] = math.Exp(k.beta * (math.Sqrt(arg) - 1))
	}
	return first
}

// ft is the kernel's Fourier transform on its own scale,
// ∫_{−1}^{1} φ(z) e^{iκz} dz = 2 ∫_0^1 φ(z) cos(κz) dz, by Gauss–Legendre
// quadrature (the transform has no closed form).
func (k kernel) ft(kappa float64) float64 {
	var s float64
	for i, z := range k.qz {
		s += k.qphi[i] * math.Cos(kappa*z)
	}
	return 2 * s
}

// first is the lowest grid index within half a width of coordinate p (the
// index weights would start at).
func (k kernel) first(p float64) int {
	return int(math.Ceil(p - 0.5*float64(k.w)))
}
