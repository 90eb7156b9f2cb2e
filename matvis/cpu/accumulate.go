package cpu

import (
	"math/cmplx"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/cblas"
)

// accumulator sums the Gram product G = Zc·Zcᴴ (G[r1,r2] = Σ conj(Z_r1)·Z_r2)
// over the chunks of one integration.
type accumulator struct {
	sim  *matvis.Simulation
	m    int
	herk cblas.Herk
	// herk method: the upper triangle of the m×m Gram matrix.
	c128 []complex128
	c64  []complex64
	// pairs method: nfeed² values per requested pair, index (k·nf+p)·nf+q.
	pv []complex128
}

func newAccumulator(sim *matvis.Simulation, m int, h cblas.Herk) *accumulator {
	a := &accumulator{sim: sim, m: m, herk: h}
	nf := sim.NFeed()
	switch {
	case sim.Options.MatProd == matvis.MatProdPairs:
		a.pv = make([]complex128, len(sim.Pairs)*nf*nf)
	case sim.Options.Precision == 1:
		a.c64 = make([]complex64, m*m)
	default:
		a.c128 = make([]complex128, m*m)
	}
	return a
}

// reset zeroes the sums for a new integration.
func (a *accumulator) reset() {
	clear(a.c128)
	clear(a.c64)
	clear(a.pv)
}

// workPerColumn is the complex multiply-adds that add does per column of Z.
func (a *accumulator) workPerColumn() int {
	if a.pv != nil {
		nf := a.sim.NFeed()
		return len(a.sim.Pairs) * nf * nf
	}
	return a.m * (a.m + 1) / 2
}

// add accumulates columns c0 to c1−1 of one chunk's Gram z.alpha·Z·Zᴴ
// (cols columns).
func (a *accumulator) add(z zmat, cols, c0, c1 int) {
	if a.pv != nil {
		a.addPairs(z, cols, c0, c1)
		return
	}
	if z.c64 != nil {
		a.herk.Cherk(a.m, c1-c0, float32(z.alpha), z.c64[c0:], cols, 1, a.c64, a.m)
		return
	}
	a.herk.Zherk(a.m, c1-c0, z.alpha, z.c128[c0:], cols, 1, a.c128, a.m)
}

// addPairs forms only the requested baselines with dot products:
// V[(i,j), p, q] = Σ_c Zc[i·nf+q, c]·conj(Zc[j·nf+p, c]).
func (a *accumulator) addPairs(z zmat, cols, c0, c1 int) {
	nf := a.sim.NFeed()
	for k, pr := range a.sim.Pairs {
		for p := range nf {
			for q := range nf {
				r1, r2 := pr[0]*nf+q, pr[1]*nf+p
				var s complex128
				if z.c64 != nil {
					x, y := z.c64[r1*cols+c0:r1*cols+c1], z.c64[r2*cols+c0:r2*cols+c1]
					var s64 complex64
					for c := range x {
						s64 += x[c] * complex(real(y[c]), -imag(y[c]))
					}
					s = complex128(s64)
				} else {
					x, y := z.c128[r1*cols+c0:r1*cols+c1], z.c128[r2*cols+c0:r2*cols+c1]
					for c := range x {
						s += x[c] * cmplx.Conj(y[c])
					}
				}
				a.pv[(k*nf+p)*nf+q] += s * complex(z.alpha, 0)
			}
		}
	}
}

// gram returns G[r1, r2] from the stored upper triangle.
func (a *accumulator) gram(r1, r2 int) complex128 {
	if r1 > r2 {
		return cmplx.Conj(a.gram(r2, r1))
	}
	if a.c64 != nil {
		return complex128(a.c64[r1*a.m+r2])
	}
	return a.c128[r1*a.m+r2]
}

// store writes V[(i,j), p, q] = G[i·nf+q, j·nf+p] into the result: the
// first feed index belongs to the unconjugated antenna j (conventions §1).
func (a *accumulator) store(res *matvis.Result, fi, ti int) {
	nf := a.sim.NFeed()
	for k, pr := range a.sim.Pairs {
		for p := range nf {
			for q := range nf {
				var v complex128
				if a.pv != nil {
					v = a.pv[(k*nf+p)*nf+q]
				} else {
					v = a.gram(pr[0]*nf+q, pr[1]*nf+p)
				}
				res.Set(fi, ti, k, p, q, v)
			}
		}
	}
}
