package nufft

import "math"

// Accuracy limits: below MinEps the kernel would need 16 grid points or
// more and float64 rounding dominates anyway; above MaxEps a one-digit
// transform is not worth a kernel.
const (
	MinEps = 1e-14
	MaxEps = 1e-1
)

// kernel is the "exponential of semicircle" φ(z) = exp(β(√(1−z²) − 1)) of
// Barnett, Magland & af Klinteberg 2019, scaled to w grid points:
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
// σ = 2: w = ⌈log10(1/ε)⌉ + 1 and β = 2.30·w, the choice Barnett et al.
// 2019 give for σ = 2 (TestType3AgainstDirect measures 1–3.5 ε with it).
func newKernel(eps float64) kernel {
	w := int(math.Ceil(math.Log10(1/eps))) + 1
	w = max(w, 2)
	k := kernel{w: w, beta: 2.30 * float64(w)}
	// The transform is needed for arguments κ up to π·w/4 (see plan.go).
	// Gauss–Legendre converges only algebraically here, because φ has a
	// square-root branch at |z| = 1, but φ is e^{−β} there: 2w + 8 nodes
	// on [0, 1] put the quadrature error below ε/1000 (measured from 1e-7
	// at w = 4 to 5e-15 at w = 13 relative to a 300-node rule;
	// TestKernelFTConverged).
	n := 2*w + 8
	k.qz, k.qw = gaussLegendre(n)
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
// fine-grid coordinate p, computed exactly: grid index first+a gets
// dst[a]. first is the lowest index within half a width of p. The
// transform uses the tabulated kernelTable.weights; this is its twin.
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

// gaussLegendre returns the n-point Gauss–Legendre nodes and weights on
// [0, 1]: the roots of the Legendre polynomial P_n by Newton's method from
// the asymptotic guess cos(π(i + 3/4)/(n + 1/2)), P_n and P_n' by the
// three-term recurrence, weights 2/((1 − z²)·P_n'(z)²) on [−1, 1].
// (gonum's quad.Legendre is not used: its 26-point rule integrates z² on
// [0, 1] with an error of 5e-3, measured with gonum v0.17.0.)
func gaussLegendre(n int) (z, w []float64) {
	z = make([]float64, n)
	w = make([]float64, n)
	for i := range n {
		x := math.Cos(math.Pi * (float64(i) + 0.75) / (float64(n) + 0.5))
		var dp float64
		for range 100 {
			p0, p1 := 1.0, x
			for k := 2; k <= n; k++ {
				p0, p1 = p1, ((2*float64(k)-1)*x*p1-(float64(k)-1)*p0)/float64(k)
			}
			dp = float64(n) * (x*p1 - p0) / (x*x - 1)
			dx := p1 / dp
			x -= dx
			if math.Abs(dx) < 1e-16 {
				break
			}
		}
		// Map [−1, 1] to [0, 1].
		z[i] = 0.5 * (1 - x)
		w[i] = 1 / ((1 - x*x) * dp * dp)
	}
	return z, w
}
