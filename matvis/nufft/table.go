package nufft

import "math"

// tableSteps is the kernel table's resolution: points per grid cell.
// Cubic interpolation errs by about δ⁴·max|φ””|/24 with δ = 2/(w·M)
// on φ's own scale, and φ”” ≈ 3β² near its peak; M = 2048 keeps that
// below 1e-15 for every width. Near the support's ends φ's square-root
// branch dominates instead: about ε/100 of the peak (TestTableWeights).
// Measured: 50 ns for the 13 weights of a point against 300 ns exactly.
const tableSteps = 2048

// kernelTable tabulates the kernel so that a point's w weights cost four
// multiply-adds each instead of a square root and an exponential. The w
// taps of a point are exactly one grid cell apart, so they share one
// fractional position within the table's step and one set of four cubic
// Lagrange coefficients; row m of the table holds the w taps' values at
// offset m/M of a cell, so the four rows a point needs are contiguous.
type kernelTable struct {
	w   int
	tab []float64 // (M + 3) rows of w: row m+1 is offset m/M, m = −1 … M+1
}

// newKernelTable tabulates k at the offsets m/M, m = −1 … M+1, of every
// tap; beyond the support (|z| > 1, reached only by the outer rows'
// stencils) the kernel's end value e^{−β} stands in.
func newKernelTable(k kernel) kernelTable {
	w := k.w
	t := kernelTable{w: w, tab: make([]float64, (tableSteps+3)*w)}
	for m := -1; m <= tableSteps+1; m++ {
		for a := range w {
			z := (float64(m)/tableSteps+float64(a))*2/float64(w) - 1
			z = math.Max(-1, math.Min(1, z))
			t.tab[(m+1)*w+a] = k.phi(z)
		}
	}
	return t
}

// weights fills dst (length w) like kernel.weights, by cubic
// interpolation in the table.
func (t *kernelTable) weights(dst []float64, p float64) (first int) {
	w := t.w
	half := 0.5 * float64(w)
	first = int(math.Ceil(p - half))
	// Offset of the first tap from its cell's start, in [0, 1).
	x := (float64(first) - p + half) * tableSteps
	mi := int(x)
	mi = min(max(mi, 0), tableSteps-1)
	f := x - float64(mi)
	// Cubic Lagrange coefficients at nodes −1, 0, 1, 2.
	fm1, f1, f2 := f+1, f-1, f-2
	l0 := -f * f1 * f2 / 6
	l1 := fm1 * f1 * f2 / 2
	l2 := -fm1 * f * f2 / 2
	l3 := fm1 * f * f1 / 6
	dst = dst[:w]
	r0 := t.tab[mi*w : mi*w+w]
	r1 := t.tab[(mi+1)*w : (mi+1)*w+w]
	r2 := t.tab[(mi+2)*w : (mi+2)*w+w]
	r3 := t.tab[(mi+3)*w : (mi+3)*w+w]
	for a := range dst {
		dst[a] = l0*r0[a] + l1*r1[a] + l2*r2[a] + l3*r3[a]
	}
	return first
}
