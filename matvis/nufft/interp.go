package nufft

import (
	"sync"
	"sync/atomic"
)

// deconvolveInto clears the padded grid and places each outer-grid value,
// divided by the inner kernel's transform at its mode, at that mode's FFT
// index.
func (pl *Plan) deconvolveInto() {
	clear(pl.pad)
	a0, a1, a2 := pl.ax[0], pl.ax[1], pl.ax[2]
	d0, d1, d2 := pl.deconvOrOne(0), pl.deconvOrOne(1), pl.deconvOrOne(2)
	switch {
	case !a1.active: // 1-D: one row along axis 0
		placeRow(pl.pad, pl.grid, 1, d0)
	case !a2.active: // 2-D: rows along axis 1
		for i0 := range a0.nf {
			m0 := wrap(i0-a0.nf/2, a0.n2)
			placeRow(pl.pad[m0*a1.n2:(m0+1)*a1.n2], pl.grid[i0*a1.nf:(i0+1)*a1.nf], d0[i0], d1)
		}
	default:
		for i0 := range a0.nf {
			m0 := wrap(i0-a0.nf/2, a0.n2)
			for i1 := range a1.nf {
				m1 := wrap(i1-a1.nf/2, a1.n2)
				src := pl.grid[(i0*a1.nf+i1)*a2.nf : (i0*a1.nf+i1+1)*a2.nf]
				dst := pl.pad[(m0*a1.n2+m1)*a2.n2 : (m0*a1.n2+m1+1)*a2.n2]
				placeRow(dst, src, d0[i0]*d1[i1], d2)
			}
		}
	}
}

// placeRow writes one outer-grid row src (nf modes, index i = mode + nf/2)
// into the padded row dst times f·d[i]: the modes below 0 go to the row's
// end and the rest to its start (the wrap, without a division per value).
func placeRow(dst, src []complex128, f float64, d []float64) {
	nf := len(src)
	h := nf / 2
	lo := dst[len(dst)-h:]
	for i := range h {
		lo[i] = scale(f*d[i], src[i])
	}
	hi := dst[:nf-h]
	for i := h; i < nf; i++ {
		hi[i-h] = scale(f*d[i], src[i])
	}
}

// deconvOrOne is axis d's deconvolution, or [1] for an inactive axis.
func (pl *Plan) deconvOrOne(d int) []float64 {
	if !pl.ax[d].active {
		return []float64{1}
	}
	return pl.deconv[d]
}

// interp evaluates the kernel-weighted sum of the transformed padded grid
// at every target and applies the post-phase and correction.
func (pl *Plan) interp(f []complex128) {
	const chunk = 256
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(pl.opt.Workers, (pl.m+chunk-1)/chunk) {
		wg.Go(func() {
			ip := newInterpolator(pl)
			for {
				lo := int(next.Add(chunk) - chunk)
				if lo >= pl.m {
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

// interpolator holds one worker's kernel weights on the padded grid.
type interpolator struct {
	pl  *Plan
	wt  [3][]float64
	idx [3][]int
	n   [3]int
}

func newInterpolator(pl *Plan) *interpolator {
	ip := &interpolator{pl: pl}
	for d := range 3 {
		ip.n[d] = pl.ax[d].n2
		w := 1
		if pl.ax[d].active {
			w = pl.ker.w
		}
		ip.wt[d] = make([]float64, w)
		ip.idx[d] = make([]int, w)
	}
	return ip
}

// target is the kernel-weighted sum around target k.
func (ip *interpolator) target(k int) complex128 {
	pl := ip.pl
	var first [3]int
	contiguous := true
	for d := range 3 {
		if !pl.ax[d].active {
			ip.wt[d][0], ip.idx[d][0] = 1, 0
			continue
		}
		first[d] = pl.tab.weights(ip.wt[d], pl.q[d][k])
		for a := range ip.idx[d] {
			ip.idx[d][a] = wrap(first[d]+a, ip.n[d])
		}
		contiguous = contiguous && first[d] >= 0 && first[d]+len(ip.wt[d]) <= ip.n[d]
	}
	n1, n2 := ip.n[1], ip.n[2]
	w0, w1, w2 := ip.wt[0], ip.wt[1], ip.wt[2]
	var sr, si float64
	if contiguous {
		// The usual case (the FFT's output is centred, see Plan.deconv).
		f2 := first[2]
		for a0, k0 := range w0 {
			var s0r, s0i float64
			if n2 == 1 {
				// Two dimensions: the run is along axis 1.
				base := (first[0]+a0)*n1 + first[1]
				row := pl.pad[base : base+len(w1)]
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
				row := pl.pad[base : base+len(w2)]
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
	var sum complex128
	for a0, r0 := range ip.idx[0] {
		var s0 complex128
		for a1, r1 := range ip.idx[1] {
			base := (r0*n1 + r1) * n2
			var s1 complex128
			for a2, r2 := range ip.idx[2] {
				s1 += pl.pad[base+r2] * complex(w2[a2], 0)
			}
			s0 += s1 * complex(w1[a1], 0)
		}
		sum += s0 * complex(w0[a0], 0)
	}
	return sum
}
