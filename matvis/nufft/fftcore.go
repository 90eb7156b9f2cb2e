package nufft

import "math"

// fftCore is a mixed-radix Stockham FFT of one length and sign that
// transforms a batch of interleaved sequences at once: element i of
// sequence b at x[i·batch + b]. Batching lets the strided axes of a grid
// be transformed a block of adjacent lines at a time, reading whole cache
// lines, and the butterflies' inner loop runs over the batch with its
// twiddle factors loaded once.
//
// Each stage of radix r splits a length-nn transform as in the
// decimation-in-frequency step: with nn = r·m, input index p + j·m and
// output index r·k' + κ,
//
//	X[r·k' + κ] = Σ_p ω_m^{p·k'} · (ω_nn^{p·κ} Σ_j x[p + j·m] ω_r^{j·κ}),
//
// so each stage writes y[q + s·(r·p + κ)] = ω_nn^{p·κ}·DFT_r(…)[κ] and the
// next stage transforms the m-point sequences with stride s·r; the output
// comes out in natural order without a bit-reversal pass (Stockham's
// autosort).
type fftCore struct {
	n       int
	sign    int
	radices []int
	tw      [][]complex128 // per stage: tw[p·(r−1) + κ−1] = ω_nn^{p·κ}
	small   [][]complex128 // per stage of a generic radix r: ω_r^{j·κ} at j·r + κ
}

// newFFTCore factors n into radices 4, 2, 3, 5 and then any other primes,
// and precomputes each stage's twiddle factors, exp(sign·2πi·p·κ/nn).
func newFFTCore(n, sign int) *fftCore {
	c := &fftCore{n: n, sign: sign}
	r := n
	for r%4 == 0 {
		c.radices = append(c.radices, 4)
		r /= 4
	}
	for _, f := range []int{2, 3, 5} {
		for r%f == 0 {
			c.radices = append(c.radices, f)
			r /= f
		}
	}
	for f := 7; r > 1; f += 2 {
		for r%f == 0 {
			c.radices = append(c.radices, f)
			r /= f
		}
	}
	nn := n
	for _, rad := range c.radices {
		m := nn / rad
		tw := make([]complex128, m*(rad-1))
		for p := range m {
			for k := 1; k < rad; k++ {
				tw[p*(rad-1)+k-1] = expi(float64(sign) * 2 * math.Pi * float64(p*k) / float64(nn))
			}
		}
		c.tw = append(c.tw, tw)
		var sm []complex128
		if rad > 5 {
			sm = make([]complex128, rad*rad)
			for j := range rad {
				for k := range rad {
					sm[j*rad+k] = expi(float64(sign) * 2 * math.Pi * float64((j*k)%rad) / float64(rad))
				}
			}
		}
		c.small = append(c.small, sm)
		nn = m
	}
	return c
}

// smallStride is the stride below which a stage indexes its sequences
// directly instead of slicing them per butterfly group.
const smallStride = 8

// scale is a·z with a real: two multiplications, where Go's complex
// product with complex(a, 0) makes four.
func scale(a float64, z complex128) complex128 { return complex(a*real(z), a*imag(z)) }

// expi is e^{iθ}.
func expi(theta float64) complex128 {
	s, c := math.Sincos(theta)
	return complex(c, s)
}

// run transforms the batch in x (length n·batch), using y (the same
// length) as work space, and returns whichever of the two holds the
// result.
func (c *fftCore) run(x, y []complex128, batch int) []complex128 {
	return c.stages(x[:c.n*batch], y[:c.n*batch], batch, 0)
}

// sparse reports whether runSparse applies: a first stage of radix 4,
// whose inputs j·n/4 + p for j = 1, 2 then lie in the middle half.
func (c *fftCore) sparse() bool { return len(c.radices) > 0 && c.radices[0] == 4 }

// runSparse is run for a batch whose inputs [n/4, 3n/4) are zero (the
// padded lines of a σ = 2 transform: the nf = n/2 modes fill the first
// and last quarters) and need not be set: the first radix-4 stage reads
// only its first and fourth inputs, x0 and x3, whose butterfly is
// x0 ± x3 and x0 ∓ sign·i·x3 (sparse must hold).
func (c *fftCore) runSparse(x, y []complex128, batch int) []complex128 {
	src, dst := x[:c.n*batch], y[:c.n*batch]
	m, s := c.n/4, batch
	tw := c.tw[0]
	sg := float64(c.sign)
	for p := range m {
		w1, w2, w3 := tw[3*p], tw[3*p+1], tw[3*p+2]
		a0 := src[s*p : s*p+s]
		a3 := src[s*(p+3*m) : s*(p+3*m)+s]
		d := dst[s*4*p : s*4*p+4*s]
		for q := range a0 {
			x0, x3 := a0[q], a3[q]
			// t3 = sign·i·(x1 − x3) with x1 = 0.
			t3 := complex(sg*imag(x3), -sg*real(x3))
			d[q] = x0 + x3
			d[s+q] = (x0 + t3) * w1
			d[2*s+q] = (x0 - x3) * w2
			d[3*s+q] = (x0 - t3) * w3
		}
	}
	return c.stages(dst, src, 4*batch, 1)
}

// stages runs the stages from first on, src holding the input (the
// sequences interleaved with stride s), and returns the buffer holding
// the result.
func (c *fftCore) stages(src, dst []complex128, s, first int) []complex128 {
	nn := c.n
	for st := range first {
		nn /= c.radices[st]
	}
	for st := first; st < len(c.radices); st++ {
		r := c.radices[st]
		m := nn / r
		switch r {
		case 2:
			c.radix2(src, dst, m, s, c.tw[st])
		case 3:
			c.radix3(src, dst, m, s, c.tw[st])
		case 4:
			c.radix4(src, dst, m, s, c.tw[st])
		case 5:
			c.radix5(src, dst, m, s, c.tw[st])
		default:
			c.radixN(src, dst, r, m, s, c.tw[st], c.small[st])
		}
		src, dst = dst, src
		nn, s = m, s*r
	}
	return src
}

func (c *fftCore) radix2(src, dst []complex128, m, s int, tw []complex128) {
	if s < smallStride {
		for q := range s {
			for p := range m {
				a, b := src[q+s*p], src[q+s*(p+m)]
				o := q + s*2*p
				dst[o] = a + b
				dst[o+s] = (a - b) * tw[p]
			}
		}
		return
	}
	for p := range m {
		w := tw[p]
		a0, a1 := src[s*p:s*p+s], src[s*(p+m):s*(p+m)+s]
		d0, d1 := dst[s*2*p:s*2*p+s], dst[s*(2*p+1):s*(2*p+1)+s]
		for q := range d0 {
			a, b := a0[q], a1[q]
			d0[q] = a + b
			d1[q] = (a - b) * w
		}
	}
}

func (c *fftCore) radix3(src, dst []complex128, m, s int, tw []complex128) {
	// ω_3 = −1/2 + sign·i·√3/2.
	si := float64(c.sign) * math.Sqrt(3) / 2
	if s < smallStride {
		for q := range s {
			for p := range m {
				x0, x1, x2 := src[q+s*p], src[q+s*(p+m)], src[q+s*(p+2*m)]
				t := x1 + x2
				d := x1 - x2
				base := x0 - scale(0.5, t)
				rot := complex(-si*imag(d), si*real(d))
				o := q + s*3*p
				dst[o] = x0 + t
				dst[o+s] = (base + rot) * tw[2*p]
				dst[o+2*s] = (base - rot) * tw[2*p+1]
			}
		}
		return
	}
	for p := range m {
		w1, w2 := tw[2*p], tw[2*p+1]
		a0, a1, a2 := src[s*p:s*p+s], src[s*(p+m):s*(p+m)+s], src[s*(p+2*m):s*(p+2*m)+s]
		d0 := dst[s*3*p : s*3*p+s]
		d1 := dst[s*(3*p+1) : s*(3*p+1)+s]
		d2 := dst[s*(3*p+2) : s*(3*p+2)+s]
		for q := range d0 {
			x0, x1, x2 := a0[q], a1[q], a2[q]
			t := x1 + x2
			d := x1 - x2
			base := x0 - scale(0.5, t)
			// i·si·d
			rot := complex(-si*imag(d), si*real(d))
			d0[q] = x0 + t
			d1[q] = (base + rot) * w1
			d2[q] = (base - rot) * w2
		}
	}
}

func (c *fftCore) radix4(src, dst []complex128, m, s int, tw []complex128) {
	sg := float64(c.sign)
	if s < smallStride {
		// Few interleaved sequences: index directly rather than cut
		// eight short slices per butterfly group.
		for q := range s {
			for p := range m {
				x0, x1, x2, x3 := src[q+s*p], src[q+s*(p+m)], src[q+s*(p+2*m)], src[q+s*(p+3*m)]
				t0, t1 := x0+x2, x0-x2
				t2, u := x1+x3, x1-x3
				t3 := complex(-sg*imag(u), sg*real(u))
				o := q + s*4*p
				dst[o] = t0 + t2
				dst[o+s] = (t1 + t3) * tw[3*p]
				dst[o+2*s] = (t0 - t2) * tw[3*p+1]
				dst[o+3*s] = (t1 - t3) * tw[3*p+2]
			}
		}
		return
	}
	for p := range m {
		w1, w2, w3 := tw[3*p], tw[3*p+1], tw[3*p+2]
		a0 := src[s*p : s*p+s]
		a1 := src[s*(p+m) : s*(p+m)+s]
		a2 := src[s*(p+2*m) : s*(p+2*m)+s]
		a3 := src[s*(p+3*m) : s*(p+3*m)+s]
		d0 := dst[s*4*p : s*4*p+s]
		d1 := dst[s*(4*p+1) : s*(4*p+1)+s]
		d2 := dst[s*(4*p+2) : s*(4*p+2)+s]
		d3 := dst[s*(4*p+3) : s*(4*p+3)+s]
		for q := range d0 {
			x0, x1, x2, x3 := a0[q], a1[q], a2[q], a3[q]
			t0, t1 := x0+x2, x0-x2
			t2, u := x1+x3, x1-x3
			// ω_4 = sign·i: t3 = sign·i·(x1 − x3).
			t3 := complex(-sg*imag(u), sg*real(u))
			d0[q] = t0 + t2
			d1[q] = (t1 + t3) * w1
			d2[q] = (t0 - t2) * w2
			d3[q] = (t1 - t3) * w3
		}
	}
}

func (c *fftCore) radix5(src, dst []complex128, m, s int, tw []complex128) {
	sg := float64(c.sign)
	c1, c2 := math.Cos(2*math.Pi/5), math.Cos(4*math.Pi/5)
	s1, s2 := sg*math.Sin(2*math.Pi/5), sg*math.Sin(4*math.Pi/5)
	if s < smallStride {
		for q := range s {
			for p := range m {
				x0, x1, x2, x3, x4 := src[q+s*p], src[q+s*(p+m)], src[q+s*(p+2*m)], src[q+s*(p+3*m)], src[q+s*(p+4*m)]
				t1, t2, t3, t4 := x1+x4, x2+x3, x1-x4, x2-x3
				a1 := x0 + scale(c1, t1) + scale(c2, t2)
				a2 := x0 + scale(c2, t1) + scale(c1, t2)
				u1 := scale(s1, t3) + scale(s2, t4)
				u2 := scale(s2, t3) - scale(s1, t4)
				b1 := complex(-imag(u1), real(u1))
				b2 := complex(-imag(u2), real(u2))
				o := q + s*5*p
				w := tw[4*p : 4*p+4]
				dst[o] = x0 + t1 + t2
				dst[o+s] = (a1 + b1) * w[0]
				dst[o+2*s] = (a2 + b2) * w[1]
				dst[o+3*s] = (a2 - b2) * w[2]
				dst[o+4*s] = (a1 - b1) * w[3]
			}
		}
		return
	}
	for p := range m {
		w := tw[4*p : 4*p+4]
		var a [5][]complex128
		var d [5][]complex128
		for j := range 5 {
			a[j] = src[s*(p+j*m) : s*(p+j*m)+s]
			d[j] = dst[s*(5*p+j) : s*(5*p+j)+s]
		}
		for q := range d[0] {
			x0, x1, x2, x3, x4 := a[0][q], a[1][q], a[2][q], a[3][q], a[4][q]
			t1, t2, t3, t4 := x1+x4, x2+x3, x1-x4, x2-x3
			a1 := x0 + scale(c1, t1) + scale(c2, t2)
			a2 := x0 + scale(c2, t1) + scale(c1, t2)
			// i·(s1·t3 + s2·t4) and i·(s2·t3 − s1·t4), sign folded in.
			u1 := scale(s1, t3) + scale(s2, t4)
			u2 := scale(s2, t3) - scale(s1, t4)
			b1 := complex(-imag(u1), real(u1))
			b2 := complex(-imag(u2), real(u2))
			d[0][q] = x0 + t1 + t2
			d[1][q] = (a1 + b1) * w[0]
			d[2][q] = (a2 + b2) * w[1]
			d[3][q] = (a2 - b2) * w[2]
			d[4][q] = (a1 - b1) * w[3]
		}
	}
}

// radixN is the plain r-point DFT butterfly for any radix.
func (c *fftCore) radixN(src, dst []complex128, r, m, s int, tw, sm []complex128) {
	a := make([]complex128, r)
	for p := range m {
		for q := range s {
			for j := range r {
				a[j] = src[q+s*(p+j*m)]
			}
			for k := range r {
				var sum complex128
				for j := range r {
					sum += a[j] * sm[j*r+k]
				}
				if k > 0 {
					sum *= tw[p*(r-1)+k-1]
				}
				dst[q+s*(r*p+k)] = sum
			}
		}
	}
}
