package nufft

import "fmt"

// Kernel is the spreading kernel of a tolerance, for callers that grid
// onto a uniform grid of their own (matvis/imaging's w-gridder): the
// kernel of the type-3 transform, its tabulated weights and its Fourier
// transform, so that both gridders share one derivation of the kernel.
type Kernel struct {
	k   kernel
	tab kernelTable
}

// NewKernel is the kernel for a relative accuracy eps at upsampling 2
// (targets within half the grid's band; see newKernel).
func NewKernel(eps float64) (*Kernel, error) {
	if !(eps >= MinEps && eps <= MaxEps) {
		return nil, fmt.Errorf("nufft: accuracy %v outside [%g, %g]", eps, MinEps, MaxEps)
	}
	k := newKernel(eps)
	return &Kernel{k: k, tab: newKernelTable(k)}, nil
}

// Width is the kernel's width in grid points.
func (k *Kernel) Width() int { return k.k.w }

// Weights fills dst (length Width) with the weights of a point at grid
// coordinate p, by the table: grid index first+a gets dst[a], a grid
// point δ away weighing φ(2δ/Width).
func (k *Kernel) Weights(dst []float64, p float64) (first int) { return k.tab.weights(dst, p) }

// ExactWeights is Weights computed with the exponential, its twin.
func (k *Kernel) ExactWeights(dst []float64, p float64) (first int) { return k.k.weights(dst, p) }

// FT returns the kernel's Fourier transform on its own scale,
// κ ↦ ∫_{−1}^{1} φ(z) e^{iκz} dz, accurate to float64 rounding for
// |κ| ≤ kmax by a Chebyshev table (and by quadrature beyond). A grid
// sum Σ_g φ(2(g − p)/W)·e^{−iθg} is e^{−iθp}·(W/2)·FT(θW/2) up to the
// tolerance for |θ| ≤ π/2.
func (k *Kernel) FT(kmax float64) func(kappa float64) float64 {
	return newFTTable(k.k, kmax).at
}

// FFT is a complex FFT of one length and sign,
// X[k] = Σ_j x[j]·exp(sign·2πi·jk/n), over a batch of interleaved
// sequences: element i of sequence b at x[i·batch + b].
type FFT struct{ c *fftCore }

// NewFFT plans the transforms of length n (≥ 1) and sign ±1.
func NewFFT(n, sign int) *FFT { return &FFT{c: newFFTCore(n, sign)} }

// Transform transforms the batch in x (length n·batch) using work (the
// same length) and returns whichever of the two holds the result; both
// are overwritten.
func (f *FFT) Transform(x, work []complex128, batch int) []complex128 {
	return f.c.run(x, work, batch)
}

// Sparse reports whether TransformSparse applies to this length.
func (f *FFT) Sparse() bool { return f.c.sparse() }

// TransformSparse is Transform for a batch whose inputs [n/4, 3n/4) are
// zero and need not be set (Sparse must hold): its first stage reads only
// the outer quarters.
func (f *FFT) TransformSparse(x, work []complex128, batch int) []complex128 {
	return f.c.runSparse(x, work, batch)
}
