package nufft

import (
	"sync"
	"sync/atomic"
)

// fftPlan is the multi-dimensional FFT of the padded grid, pruned to what
// the transform needs and fused with the inner deconvolution. The padded
// grid is never stored: its input is zero outside the nf modes of each
// axis, and interpolation reads only the outputs [lo, hi) between the
// targets' extreme kernel positions. So the transform runs axis by axis
// (the last active axis first) from the outer grid through compact
// arrays: the pass along axis a reads each line's nf values, scales them
// by the axis's deconvolution into a zeroed line of n2 points at their
// modes' FFT indices, transforms it, and keeps only its outputs [lo, hi).
// After the pass along axis a the array's axes before a still hold nf
// entries and axes from a on hold W = hi − lo; the last pass leaves the
// W0·W1·W2 values interpolation reads. For two equal axes this is about
// half the lines of the full 2-D FFT, and it writes about half the memory
// the full padded grid would take, without clearing it.
type fftPlan struct {
	n      [3]int  // padded grid axes (1 when inactive)
	nf     [3]int  // outer grid axes (1 when inactive)
	active [3]bool // whether to transform the axis
	// [lo[d], hi[d]) are the padded indices interpolation reads (0, 1
	// for an inactive axis); mode[d][i] is the padded index of outer
	// index i, and deconv[d] its scale.
	lo, hi  [3]int
	mode    [3][]int
	deconv  [3][]float64
	cores   [3]*fftCore
	workers int
	// sym is set for a plan of real strengths whose kept ranges are
	// symmetric about the padded grid's centre, each index's mirror
	// n − i kept too (runReal).
	sym bool
}

// maxBatch is the most adjacent lines of a strided axis transformed
// together: 16 complex128 are two 128-byte lines of cache per row.
const maxBatch = 16

// newFFTPlan finds, per axis, the padded indices of the nf modes and the
// range [min first, max first + w) the targets' kernels cover. Should a
// kernel reach past the padded grid's ends (never, for targets within
// the plan's bounds: see axis), the whole axis is kept and interpolation
// wraps around it.
func newFFTPlan(ax [3]axis, q [3][]float64, deconv [3][]float64, w, sign, workers int, real bool) fftPlan {
	fp := fftPlan{workers: workers}
	ker := kernel{w: w}
	for d, a := range ax {
		fp.n[d], fp.nf[d] = a.n2, a.nf
		fp.active[d] = a.active
		if !a.active {
			fp.mode[d], fp.deconv[d], fp.lo[d], fp.hi[d] = []int{0}, []float64{1}, 0, 1
			continue
		}
		fp.cores[d] = newFFTCore(a.n2, sign)
		fp.deconv[d] = deconv[d]
		for i := range a.nf {
			fp.mode[d] = append(fp.mode[d], wrap(i-a.nf/2, a.n2))
		}
		lo, hi := a.n2, 0
		for _, v := range q[d] {
			f := ker.first(v)
			lo, hi = min(lo, f), max(hi, f+w)
		}
		if lo < 0 || hi > a.n2 {
			lo, hi = 0, a.n2
		}
		fp.lo[d], fp.hi[d] = lo, max(hi, lo)
	}
	if real {
		fp.symmetrize()
	}
	return fp
}

// symmetrize widens every active axis's kept range [lo, hi) to hold each
// index's mirror n − i as well, and sets sym, when the widened ranges stay
// within [1, n) (index 0 would be its own mirror at the range's far end).
func (fp *fftPlan) symmetrize() {
	lo, hi := fp.lo, fp.hi
	for d := range 3 {
		if !fp.active[d] {
			continue
		}
		n := fp.n[d]
		lo[d], hi[d] = min(lo[d], n-hi[d]+1), max(hi[d], n-lo[d]+1)
		if lo[d] < 1 || hi[d] > n || lo[d] > n/2 || hi[d] <= n/2 {
			return
		}
	}
	fp.lo, fp.hi, fp.sym = lo, hi, true
}

// last is the last active axis (the contiguous one).
func (fp *fftPlan) last() int {
	a := 2
	for !fp.active[a] {
		a--
	}
	return a
}

// upper is the plan of runReal's passes: the last axis kept from its
// centre n/2 only, the other half following by symmetry.
func (fp *fftPlan) upper() fftPlan {
	u := *fp
	u.lo[fp.last()] = fp.n[fp.last()] / 2
	return u
}

// width is the number of padded indices of axis d that are kept.
func (fp *fftPlan) width(d int) int { return fp.hi[d] - fp.lo[d] }

// stageSize is the points of the array after the passes along the axes
// from a on: nf before a, W from a on.
func (fp *fftPlan) stageSize(a int) int {
	s := 1
	for d := range 3 {
		if d < a {
			s *= fp.nf[d]
		} else {
			s *= fp.width(d)
		}
	}
	return s
}

// sparse reports whether axis a's lines are zero on the middle half of
// their padded points, which the FFT's first stage can skip
// (fftCore.runSparse): the nf modes fill the first and last quarters
// exactly when n2 = 2·nf (σ = 2).
func (fp *fftPlan) sparse(a int) bool {
	return fp.n[a] == 2*fp.nf[a] && fp.cores[a].sparse()
}

// transform runs core on the batch x: runSparse when sparse (x's middle
// half unset), run otherwise.
func (fp *fftPlan) transform(core *fftCore, x, y []complex128, nb int, sparse bool) []complex128 {
	if sparse {
		return core.runSparse(x, y, nb)
	}
	return core.run(x, y, nb)
}

// passes are the active axes in the order run transforms them (the last
// first) and the sizes of the work array's two halves: pass i of run
// writes half (len − 1 − i) mod 2, so that the last pass writes half 0;
// step i of runReal writes half (len − i) mod 2, its mirror step (len)
// half 0.
func (fp *fftPlan) passes() (order []int, sizes [2]int) {
	for a := 2; a >= 0; a-- {
		if fp.active[a] {
			order = append(order, a)
		}
	}
	k := len(order)
	for i, a := range order {
		h := (k - 1 - i) % 2
		sizes[h] = max(sizes[h], fp.stageSize(a))
	}
	if fp.sym {
		u := fp.upper()
		for i, a := range order {
			h := (k - i) % 2
			sizes[h] = max(sizes[h], u.stageSize(a))
		}
		sizes[0] = max(sizes[0], fp.stageSize(0))
	}
	return order, sizes
}

// workPoints is the length of the work array run needs.
func (fp *fftPlan) workPoints() int {
	_, sizes := fp.passes()
	return sizes[0] + sizes[1]
}

// run transforms the outer grid grid into work (workPoints long) and
// returns the part of work holding the W0·W1·W2 values interpolation
// reads, in row-major order.
func (fp *fftPlan) run(grid, work []complex128) []complex128 {
	order, sizes := fp.passes()
	half := [2][]complex128{work[:sizes[0]], work[sizes[0] : sizes[0]+sizes[1]]}
	src := grid
	for i, a := range order {
		dst := half[(len(order)-1-i)%2][:fp.stageSize(a)]
		fp.pass(src, dst, a)
		src = dst
	}
	return src
}

// pass transforms along axis a from src (axes before a at nf, a at nf,
// after a at W) into dst (the same but a at W). The lines' step along a
// is the product of the later axes' widths in both arrays.
func (fp *fftPlan) pass(src, dst []complex128, a int) {
	st := 1
	for d := a + 1; d < 3; d++ {
		st *= fp.width(d)
	}
	early := 1
	for d := range a {
		early *= fp.nf[d]
	}
	// Batches of up to maxBatch adjacent lines (one when the axis is
	// contiguous), never across an early index.
	type batch struct{ src, dst, size int }
	var batches []batch
	for e := range early {
		for j := 0; j < st; j += maxBatch {
			nb := min(maxBatch, st-j)
			batches = append(batches, batch{e*fp.nf[a]*st + j, e*fp.width(a)*st + j, nb})
		}
	}
	n, lo, w := fp.n[a], fp.lo[a], fp.width(a)
	mode, dc := fp.mode[a], fp.deconv[a]
	core := fp.cores[a]
	sparse := fp.sparse(a)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(fp.workers, len(batches)) {
		wg.Go(func() {
			x := make([]complex128, n*maxBatch)
			y := make([]complex128, n*maxBatch)
			for {
				bi := int(next.Add(1) - 1)
				if bi >= len(batches) {
					return
				}
				b := batches[bi]
				nb := b.size
				xs := x[:n*nb]
				if !sparse {
					clear(xs)
				}
				for i, m := range mode {
					in := src[b.src+i*st : b.src+i*st+nb]
					out := xs[m*nb : m*nb+nb]
					for q, v := range in {
						out[q] = scale(dc[i], v)
					}
				}
				res := fp.transform(core, xs, y, nb, sparse)
				for r := range w {
					copy(dst[b.dst+r*st:b.dst+r*st+nb], res[(lo+r)*nb:(lo+r+1)*nb])
				}
			}
		})
	}
	wg.Wait()
}

// runReal is run for the real grid of ExecuteReal (sym set): the pass
// along the last axis transforms two real lines a, b at once as a + i·b,
// whose transform Z gives A(k) = (Z(k) + conj Z(n−k))/2 and
// B(k) = (Z(k) − conj Z(n−k))/(2i), and keeps the indices from n/2 on;
// the other passes run as in run on that half; and since the transform of
// a real grid is Hermitian, X(−k) = conj X(k) on every axis jointly,
// mirror fills the rest.
func (fp *fftPlan) runReal(grid []float64, work []complex128) []complex128 {
	order, sizes := fp.passes()
	half := [2][]complex128{work[:sizes[0]], work[sizes[0] : sizes[0]+sizes[1]]}
	u := fp.upper()
	k := len(order)
	var src []complex128
	for i, a := range order {
		dst := half[(k-i)%2][:u.stageSize(a)]
		if i == 0 {
			u.realPass(grid, dst, a)
		} else {
			u.pass(src, dst, a)
		}
		src = dst
	}
	out := half[0][:fp.stageSize(0)]
	fp.mirror(src, out)
	return out
}

// realPass is runReal's pass along the last axis a (contiguous lines of
// the real grid), two lines a transform.
func (fp *fftPlan) realPass(grid []float64, dst []complex128, a int) {
	early := 1
	for d := range a {
		early *= fp.nf[d]
	}
	n, nf, lo, w := fp.n[a], fp.nf[a], fp.lo[a], fp.width(a)
	mode, dc := fp.mode[a], fp.deconv[a]
	core := fp.cores[a]
	sparse := fp.sparse(a)
	pairs := (early + 1) / 2
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(fp.workers, pairs) {
		wg.Go(func() {
			x := make([]complex128, n)
			y := make([]complex128, n)
			for {
				e := 2 * int(next.Add(1)-1)
				if e >= early {
					return
				}
				second := e+1 < early
				if !sparse {
					clear(x)
				}
				ra := grid[e*nf : (e+1)*nf]
				rb := ra // unused unless second
				if second {
					rb = grid[(e+1)*nf : (e+2)*nf]
				}
				for i, m := range mode {
					im := 0.0
					if second {
						im = dc[i] * rb[i]
					}
					x[m] = complex(dc[i]*ra[i], im)
				}
				res := fp.transform(core, x, y, 1, sparse)
				da := dst[e*w : (e+1)*w]
				for r := range w {
					z := res[lo+r]
					zm := res[(n-lo-r)%n]
					zm = complex(real(zm), -imag(zm))
					da[r] = scale(0.5, z+zm)
				}
				if !second {
					continue
				}
				db := dst[(e+1)*w : (e+2)*w]
				for r := range w {
					z := res[lo+r]
					zm := res[(n-lo-r)%n]
					d := z - complex(real(zm), -imag(zm))
					// d/(2i) = −i·d/2.
					db[r] = complex(0.5*imag(d), -0.5*real(d))
				}
			}
		})
	}
	wg.Wait()
}

// mirror fills out (every axis at its kept width W, row-major) from half
// (the last axis a kept from n/2 only): index r of an axis is padded index
// lo + r, whose mirror n − lo − r is kept index W − 1 − r (the ranges are
// symmetric), so out(r) = half(r) from the centre on and
// conj(half(W − 1 − r)) below it.
func (fp *fftPlan) mirror(half, out []complex128) {
	a := fp.last()
	w := [3]int{fp.width(0), fp.width(1), fp.width(2)}
	rows := w[0] * w[1] * w[2] / w[a] // lines of the last axis
	wl, n, lo := w[a], fp.n[a], fp.lo[a]
	centre := n/2 - lo // out's first index of the kept half
	hw := wl - centre  // the half's width
	for row := range rows {
		// The mirror line: every earlier axis's index reflected.
		mrow, rest, stride := 0, row, rows
		for d := range a {
			stride /= w[d]
			r := rest / stride
			rest %= stride
			mrow = mrow*w[d] + (w[d] - 1 - r)
		}
		dst := out[row*wl : (row+1)*wl]
		copy(dst[centre:], half[row*hw:(row+1)*hw])
		src := half[mrow*hw : (mrow+1)*hw]
		for r := range centre {
			// Kept index wl−1−r is half index wl−1−r−centre.
			v := src[wl-1-r-centre]
			dst[r] = complex(real(v), -imag(v))
		}
	}
}
