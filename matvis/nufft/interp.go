package nufft

import (
	"sync"
	"sync/atomic"
)

// interp evaluates the kernel-weighted sum of the transformed grid out
// (fftPlan.run's W0·W1·W2 values) at every target and applies the
// post-phase and correction.
func (pl *Plan) interp(out, f []complex128) {
	const chunk = 256
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(pl.opt.Workers, (pl.m+chunk-1)/chunk) {
		wg.Go(func() {
			ip := newInterpolator(pl, out)
			for {
				lo := int(next.Add(chunk) - chunk)
				if lo >= pl.m || pl.stopped() {
					return
				}
				for i := lo; i < min(lo+chunk, pl.m); i++ {
					pl.fs[i] = pl.post[i] * ip.target(i)
				}
			}
		})
	}
	wg.Wait()
	for i, k := range pl.qOrder {
		f[k] = pl.fs[i]
	}
}

// interpolator holds one worker's kernel weights on the transformed grid.
type interpolator struct {
	pl  *Plan
	out []complex128
	wt  [3][]float64
	idx [3][]int
	n   [3]int // the kept widths W
	lo  [3]int // the padded index of each axis's first kept one
}

// newInterpolator is a worker's interpolator on pl's transformed grid out.
func newInterpolator(pl *Plan, out []complex128) *interpolator {
	ip := &interpolator{pl: pl, out: out}
	for d := range 3 {
		ip.n[d], ip.lo[d] = pl.fft.width(d), pl.fft.lo[d]
		w := 1
		if pl.ax[d].active {
			w = pl.ker.w
		}
		ip.wt[d] = make([]float64, w)
		ip.idx[d] = make([]int, w)
	}
	return ip
}

// target is the kernel-weighted sum around target k. Its kernel lies
// within the kept widths (newFFTPlan chose them so); only where an axis
// is kept whole (lo = 0, W = n2) can it wrap around.
func (ip *interpolator) target(k int) complex128 {
	pl := ip.pl
	var first [3]int
	contiguous := true
	for d := range 3 {
		if !pl.ax[d].active {
			ip.wt[d][0] = 1
			continue
		}
		first[d] = pl.tab.weights(ip.wt[d], pl.q[d][k]) - ip.lo[d]
		contiguous = contiguous && first[d] >= 0 && first[d]+len(ip.wt[d]) <= ip.n[d]
	}
	if !contiguous {
		return ip.wrapped(first)
	}
	n1, n2 := ip.n[1], ip.n[2]
	w0, w1, w2 := ip.wt[0], ip.wt[1], ip.wt[2]
	out := ip.out
	var sr, si float64
	f2 := first[2]
	for a0, k0 := range w0 {
		var s0r, s0i float64
		if n2 == 1 {
			// Two dimensions: the run is along axis 1.
			base := (first[0]+a0)*n1 + first[1]
			row := out[base : base+len(w1)]
			for a1, k1 := range w1 {
				s0r += real(row[a1]) * k1
				s0i += imag(row[a1]) * k1
			}
			sr += s0r * k0
			si += s0i * k0
			continue
		}
		for a1, k1 := range w1 {
			base := ((first[0]+a0)*n1+first[1]+a1)*n2 + f2
			row := out[base : base+len(w2)]
			var s1r, s1i float64
			for a2, k2 := range w2 {
				s1r += real(row[a2]) * k2
				s1i += imag(row[a2]) * k2
			}
			s0r += s1r * k1
			s0i += s1i * k1
		}
		sr += s0r * k0
		si += s0i * k0
	}
	return complex(sr, si)
}

// wrapped is target's sum with every index wrapped around its axis, for
// kernels starting at first.
func (ip *interpolator) wrapped(first [3]int) complex128 {
	for d := range 3 {
		for a := range ip.idx[d] {
			ip.idx[d][a] = wrap(first[d]+a, ip.n[d])
		}
	}
	n1, n2 := ip.n[1], ip.n[2]
	w0, w1, w2 := ip.wt[0], ip.wt[1], ip.wt[2]
	var sum complex128
	for a0, r0 := range ip.idx[0] {
		var s0 complex128
		for a1, r1 := range ip.idx[1] {
			base := (r0*n1 + r1) * n2
			var s1 complex128
			for a2, r2 := range ip.idx[2] {
				s1 += ip.out[base+r2] * complex(w2[a2], 0)
			}
			s0 += s1 * complex(w1[a1], 0)
		}
		sum += s0 * complex(w0[a0], 0)
	}
	return sum
}
