package cpu

import (
	"context"
	"fmt"
	"math"
	"math/cmplx"
	"time"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// polState is a polarized sky's per-run state (docs/stokes.md): the
// Stokes parameters of the current channel and the basis angles of the
// current time, cached for every time when the ENU vectors are.
type polState struct {
	sim   *matvis.Simulation
	stoke [4][]float64
	// cos and sin of the basis angle X at the current time; cache[ti]
	// holds them for every time when caching.
	cos, sin []float64
	cache    [][2][]float64
	caching  bool
	// w and sign are the factors of the visible sources' coherencies in
	// chunk order (buildZ's vis order).
	w    [][2][2]complex128
	sign [][2]float64
}

func newPolState(sim *matvis.Simulation, caching bool) *polState {
	n := sim.NSrc()
	p := &polState{sim: sim, caching: caching}
	for k := range p.stoke {
		p.stoke[k] = make([]float64, n)
	}
	if caching {
		p.cache = make([][2][]float64, sim.NTime())
	}
	return p
}

// channelSky loads the sky of frequency index fi: the Stokes-I fluxes, or
// a polarized sky's four Stokes parameters.
func (r *run) channelSky(fi int) error {
	if r.pol == nil {
		return r.sim.FluxAt(fi, r.flux)
	}
	return r.sim.StokesAt(fi, r.pol.stoke)
}

// basisAt sets the basis angles of time ti. They depend on the time only,
// so every channel reuses them.
func (p *polState) basisAt(ctx context.Context, ti int) error {
	if p.caching && p.cache[ti][0] != nil {
		p.cos, p.sin = p.cache[ti][0], p.cache[ti][1]
		return nil
	}
	n := p.sim.NSrc()
	c, s := make([]float64, n), make([]float64, n)
	if err := matvis.BasisContext(ctx, p.sim.PolBasis, ti, c, s); err != nil {
		return fmt.Errorf("polarization basis at time %d: %w", ti, err)
	}
	if p.caching {
		p.cache[ti] = [2][]float64{c, s}
	}
	p.cos, p.sin = c, s
	return nil
}

// factor forms the local coherency of every visible source of the chunk
// (vis order) and stores its factors W and signs. It writes into amp the
// amplitude scaleZ reads, 2·√max|λ|: with peakZ's |Re b| + |Im b| per beam
// component it bounds |Σ_ax A[f,ax]·W[ax,k]| (|W[ax,k]| ≤ √|λ_k|, two axes).
func (r *run) factor(vis []int, amp []float64) {
	p := r.pol
	k := len(vis)
	p.w = grow(p.w, k)
	p.sign = grow(p.sign, k)
	rot := r.sim.Options.Rotation
	r.parallel(k, func(lo, hi int) {
		for s := lo; s < hi; s++ {
			src := vis[s]
			c := matvis.LocalCoherency(p.stoke[0][src], p.stoke[1][src], p.stoke[2][src], p.stoke[3][src], p.cos[src], p.sin[src], rot)
			w, sg := c.Factor()
			p.w[s], p.sign[s] = w, sg
			var l float64
			for kk := range 2 {
				l = max(l, cmplx.Abs(w[0][kk])*cmplx.Abs(w[0][kk])+cmplx.Abs(w[1][kk])*cmplx.Abs(w[1][kk]))
			}
			amp[s] = 2 * math.Sqrt(l)
		}
	})
}

// fillZStokes writes Z of a polarized sky (docs/stokes.md):
//
//	Z±[(a,f),(k,s)] = Σ_ax A_a[f,ax]·W_s[ax,k]·P_a(s)
//
// with W_s the factors of source s's local coherency C = Σ_k sign_k·w_k·w_kᴴ,
// the columns of positive sign in Z (z) and of negative sign in a second Z
// (z.neg) whose Gram is subtracted; a column of the other sign is zero.
// Stored conjugated, as fillZ's: the Gram then gives Σ J_j·C·J_iᴴ·P.
func (r *run) fillZStokes(ctx context.Context, fi int, vis []int, v [3][]float64, beams [][]complex128, st *matvis.StageTimes) (zmat, error) {
	sim := r.sim
	k := len(vis)
	t := time.Now()
	p1 := sim.Options.Precision == 1
	r.buf.gather = grow(r.buf.gather, 4*k)
	amp, ve, vn, vu := r.buf.gather[:k], r.buf.gather[k:2*k], r.buf.gather[2*k:3*k], r.buf.gather[3*k:]
	r.factor(vis, amp)
	r.parallel(k, func(lo, hi int) {
		for s := lo; s < hi; s++ {
			src := vis[s]
			ve[s], vn[s], vu[s] = v[0][src], v[1][src], v[2][src]
		}
	})
	sc := r.scaleZ(amp, beams, p1)
	zs, err := r.stokesZ(ctx, k, sc, p1)
	if err != nil {
		return zmat{}, err
	}
	omega := 2 * math.Pi * sim.Freqs[fi] / beam.SpeedOfLight
	mul := complex(sc.mul, 0)
	ld := r.nf * k
	r.parallel(k, func(lo, hi int) {
		for a := range sim.NAnt() {
			if ctx.Err() != nil {
				return
			}
			x := sim.Antennas[a]
			bm := beams[sim.BeamOf[a]]
			for s := lo; s < hi; s++ {
				tau := omega * (x[0]*ve[s] + x[1]*vn[s] + x[2]*vu[s])
				sn, cs := math.Sincos(tau)
				ph := complex(cs, -sn) // conj(exp(+iτ))
				r.putStokesColumn(zs, bm, a*r.nf*ld, k, s, ph, mul, sc, p1)
			}
		}
	})
	st[matvis.StageTauZ] += time.Since(t)
	if err := ctx.Err(); err != nil {
		return zmat{}, err
	}
	return *zs[0], nil
}

// stokesZ sizes Z for k sources (and z.neg, its negative-eigenvalue
// columns, when a source has one), scaled by sc, poisoned when the
// backend asks; the result is Z then z.neg if any.
func (r *run) stokesZ(ctx context.Context, k int, sc zscale, p1 bool) ([]*zmat, error) {
	z := &r.buf.z
	z.neg = nil
	z.alpha = sc.alpha
	zs := []*zmat{z}
	for s := range k {
		if r.pol.sign[s][1] < 0 || r.pol.sign[s][0] < 0 {
			if r.buf.zneg == nil {
				r.buf.zneg = new(zmat)
			}
			zn := r.buf.zneg
			zn.alpha = -sc.alpha
			z.neg = zn
			zs = append(zs, zn)
			break
		}
	}
	n := r.sim.NAnt() * r.nf * r.nf * k
	for _, zz := range zs {
		var err error
		if p1 {
			zz.c64, err = growContext(ctx, zz.c64, n)
		} else {
			zz.c128, err = growContext(ctx, zz.c128, n)
		}
		if err != nil {
			return nil, err
		}
		if r.b.poisonZ {
			zz.poison()
		}
	}
	return zs, nil
}

// putStokesColumn writes source s's entries of antenna rows from row0 on:
// per feed f and eigen-factor kk, conj(J·w)·ph·mul (in that order) into Z
// when the factor's sign is positive and into z.neg when negative (0 in
// the other).
func (r *run) putStokesColumn(zs []*zmat, bm []complex128, row0, k, s int, ph, mul complex128, sc zscale, p1 bool) {
	nf := r.nf
	ld := nf * k
	w, sg := &r.pol.w[s], &r.pol.sign[s]
	for f := range nf {
		row := row0 + f*ld
		j0, j1 := bm[(f*nf)*k+s], bm[(f*nf+1)*k+s]
		for kk := range 2 {
			val := cmplx.Conj(j0*w[0][kk]+j1*w[1][kk]) * ph * mul
			for zi, zz := range zs {
				// Z gets the positive columns, z.neg the negative.
				if (sg[kk] < 0) == (zi == 1) {
					zz.set(p1, row+kk*k+s, val, sc)
				} else {
					zz.set(p1, row+kk*k+s, 0, sc)
				}
			}
		}
	}
}

// poison fills z with NaN (Backend.poisonZ).
func (z *zmat) poison() {
	nan := math.NaN()
	for i := range z.c64 {
		z.c64[i] = complex64(complex(nan, nan))
	}
	for i := range z.c128 {
		z.c128[i] = complex(nan, nan)
	}
}

// set writes entry i of z, flushed (flush.go) and rounded to its precision.
func (z *zmat) set(p1 bool, i int, v complex128, sc zscale) {
	if p1 {
		z.c64[i] = sc.c64(v)
	} else {
		z.c128[i] = sc.c128(v)
	}
}
