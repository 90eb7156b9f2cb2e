package nufft

import (
	"sync"
	"sync/atomic"
)

// fftPlan is the multi-dimensional FFT of the padded grid, pruned to what
// the transform needs: the input is zero outside the nf modes of each axis,
// and interpolation reads only the outputs between the targets' extreme
// kernel positions, so each axis transforms only the lines that start
// non-zero in the axes still to do and that are read in the axes done.
// For two equal axes this is about half the lines of the full 2-D FFT.
type fftPlan struct {
	n      [3]int  // padded grid axes (1 when inactive)
	active [3]bool // whether to transform the axis
	// nonzero lists, per axis, the indices where the input can be
	// non-zero; [lo[d], hi[d]) are the indices interpolation reads.
	nonzero [3][]int
	lo, hi  [3]int
	cores   [3]*fftCore
	workers int
}

// maxBatch is the most adjacent lines of a strided axis transformed
// together: 16 complex128 are two 128-byte lines of cache per row.
const maxBatch = 16

// newFFTPlan finds, per axis, the padded indices of the nf modes and the
// range [min first, max first + w) the targets' kernels cover.
func newFFTPlan(ax [3]axis, q [3][]float64, w, sign, workers int) fftPlan {
	fp := fftPlan{workers: workers}
	ker := kernel{w: w}
	for d, a := range ax {
		fp.n[d] = a.n2
		fp.active[d] = a.active
		if !a.active {
			fp.nonzero[d], fp.lo[d], fp.hi[d] = []int{0}, 0, 1
			continue
		}
		fp.cores[d] = newFFTCore(a.n2, sign)
		for i := range a.nf {
			fp.nonzero[d] = append(fp.nonzero[d], wrap(i-a.nf/2, a.n2))
		}
		lo, hi := a.n2, 0
		for _, v := range q[d] {
			f := ker.first(v)
			lo, hi = min(lo, f), max(hi, f+w)
		}
		fp.lo[d], fp.hi[d] = max(lo, 0), min(hi, a.n2)
	}
	return fp
}

// run transforms data in place with the plan's sign, axis 2 first, then
// 1, then 0.
func (fp *fftPlan) run(data []complex128) {
	stride := [3]int{fp.n[1] * fp.n[2], fp.n[2], 1}
	for a := 2; a >= 0; a-- {
		if !fp.active[a] {
			continue
		}
		// The line starts: the other two axes' indices, non-zero ones
		// for the axes still to do, read ones for the axes done.
		var idx [2][]int
		var ostride [2]int
		k := 0
		for b := range 3 {
			if b == a {
				continue
			}
			if b > a {
				for i := fp.lo[b]; i < fp.hi[b]; i++ {
					idx[k] = append(idx[k], i)
				}
			} else {
				idx[k] = fp.nonzero[b]
			}
			ostride[k] = stride[b]
			k++
		}
		var bases []int
		for _, i := range idx[0] {
			for _, j := range idx[1] {
				bases = append(bases, i*ostride[0]+j*ostride[1])
			}
		}
		fp.lines(data, a, stride[a], bases)
	}
}

// lines transforms the lines of axis a (length fp.n[a], step st) that
// start at bases, in batches of adjacent lines when the axis is strided,
// writing back only the indices [lo[a], hi[a]).
func (fp *fftPlan) lines(data []complex128, a, st int, bases []int) {
	type batch struct{ base, size int }
	var batches []batch
	for i := 0; i < len(bases); {
		j := i + 1
		if st != 1 {
			for j < len(bases) && j-i < maxBatch && bases[j] == bases[j-1]+1 {
				j++
			}
		}
		batches = append(batches, batch{bases[i], j - i})
		i = j
	}
	n, lo, hi := fp.n[a], fp.lo[a], fp.hi[a]
	core := fp.cores[a]
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
				for i := range n {
					copy(x[i*nb:(i+1)*nb], data[b.base+i*st:b.base+i*st+nb])
				}
				res := core.run(x, y, nb)
				for i := lo; i < hi; i++ {
					copy(data[b.base+i*st:b.base+i*st+nb], res[i*nb:(i+1)*nb])
				}
			}
		})
	}
	wg.Wait()
}

// fftFull is run's plain twin: every line of every active axis, no
// pruning (tests compare the two on the indices interpolation reads).
func (fp *fftPlan) fftFull(data []complex128) {
	full := *fp
	for d := range 3 {
		all := make([]int, fp.n[d])
		for i := range all {
			all[i] = i
		}
		full.nonzero[d], full.lo[d], full.hi[d] = all, 0, fp.n[d]
	}
	full.run(data)
}
