package nufft

import (
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/dsp/fourier"
)

// fftPlan is the multi-dimensional FFT of the padded grid, pruned to what
// the transform needs: the input is zero outside the nf modes of each axis,
// and interpolation reads only the outputs between the targets' extreme
// kernel positions, so each axis transforms only the lines that start
// non-zero in the axes still to do and that are read in the axes done.
// For two equal axes this is about half the lines of the full 2-D FFT.
type fftPlan struct {
	n       [3]int   // padded grid axes (1 when inactive)
	active  [3]bool  // whether to transform the axis
	nonzero [3][]int // per axis: indices where the input can be non-zero
	needed  [3][]int // per axis: indices interpolation reads
	workers int
}

// newFFTPlan finds, per axis, the padded indices of the nf modes and the
// range [min first, max first + w) the targets' kernels cover.
func newFFTPlan(ax [3]axis, q [3][]float64, w, workers int) fftPlan {
	fp := fftPlan{workers: workers}
	ker := kernel{w: w}
	for d, a := range ax {
		fp.n[d] = a.n2
		fp.active[d] = a.active
		if !a.active {
			fp.nonzero[d], fp.needed[d] = []int{0}, []int{0}
			continue
		}
		for i := range a.nf {
			fp.nonzero[d] = append(fp.nonzero[d], wrap(i-a.nf/2, a.n2))
		}
		lo, hi := a.n2, 0
		for _, v := range q[d] {
			f := ker.first(v)
			lo, hi = min(lo, f), max(hi, f+w)
		}
		lo, hi = max(lo, 0), min(hi, a.n2)
		for i := lo; i < hi; i++ {
			fp.needed[d] = append(fp.needed[d], i)
		}
	}
	return fp
}

// run transforms data in place, e^{+i…} for sign +1 and e^{−i…} for −1,
// axis 2 first, then 1, then 0.
func (fp *fftPlan) run(data []complex128, sign int) {
	stride := [3]int{fp.n[1] * fp.n[2], fp.n[2], 1}
	for a := 2; a >= 0; a-- {
		if !fp.active[a] {
			continue
		}
		// The other two axes, in increasing order.
		var others [2][]int
		var ostride [2]int
		k := 0
		for b := range 3 {
			if b == a {
				continue
			}
			if b > a {
				others[k] = fp.needed[b]
			} else {
				others[k] = fp.nonzero[b]
			}
			ostride[k] = stride[b]
			k++
		}
		fp.lines(data, a, stride[a], others, ostride, sign)
	}
}

// lines transforms every line of axis a (length fp.n[a], step st) whose
// other coordinates are in others, writing back only fp.needed[a].
func (fp *fftPlan) lines(data []complex128, a, st int, others [2][]int, ostride [2]int, sign int) {
	nl := len(others[0]) * len(others[1])
	var next atomic.Int64
	const chunk = 16
	var wg sync.WaitGroup
	for range min(fp.workers, (nl+chunk-1)/chunk) {
		wg.Go(func() {
			t := fourier.NewCmplxFFT(fp.n[a])
			buf := make([]complex128, fp.n[a])
			for {
				lo := int(next.Add(chunk) - chunk)
				if lo >= nl {
					return
				}
				for l := lo; l < min(lo+chunk, nl); l++ {
					base := others[0][l/len(others[1])]*ostride[0] + others[1][l%len(others[1])]*ostride[1]
					for i := range buf {
						buf[i] = data[base+i*st]
					}
					if sign > 0 {
						t.Sequence(buf, buf)
					} else {
						t.Coefficients(buf, buf)
					}
					for _, i := range fp.needed[a] {
						data[base+i*st] = buf[i]
					}
				}
			}
		})
	}
	wg.Wait()
}

// fftFull is run's plain twin: every line of every active axis, no
// pruning (tests compare the two on the indices interpolation reads).
func (fp *fftPlan) fftFull(data []complex128, sign int) {
	full := *fp
	for d := range 3 {
		all := make([]int, fp.n[d])
		for i := range all {
			all[i] = i
		}
		full.nonzero[d], full.needed[d] = all, all
	}
	full.run(data, sign)
}
