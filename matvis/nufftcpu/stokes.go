package nufftcpu

import (
	"fmt"
	"math/cmplx"

	"github.com/gomatvis/gomatvis/matvis"
)

// Full-Stokes skies (docs/stokes.md): V_pq(i, j) = Σ_s J_j[p]·C_loc·J_i[q]ᴴ
// e^{+iω(x_j − x_i)·ŝ}, so each feed pair's transform takes the strengths
//
//	c_pq(s) = Σ_{k,l} A_h[p,k](s)·C_loc(s)[k][l]·conj(A_g[q,l](s))
//
// (g the beam of the pairs' first antennas, h of their second), C_loc
// the source's local coherency (matvis.LocalCoherency, Options.Rotation).
// For a Stokes-I sky C_loc = ½I·1 and these are the strengths of
// run.strengths. C_loc is Hermitian, so with one beam c_pp is real and
// c_qp = conj(c_pq): the pairing of storePaired, and the mirror of two
// beams' jobs, hold as for Stokes I.

// polSky is a full-Stokes run's sky: the channel's Stokes parameters, and
// the visible sources' local coherencies at the current time (the first
// job fills them; every job reads them).
type polSky struct {
	stoke    [4][]float64
	cos, sin []float64
	coh      []matvis.Coherency
}

// newPolSky is the sky buffers of sim, nil for a Stokes-I sky.
func newPolSky(sim *matvis.Simulation) *polSky {
	if !sim.SkyPolarized() {
		return nil
	}
	n := sim.NSrc()
	p := &polSky{cos: make([]float64, n), sin: make([]float64, n)}
	for k := range p.stoke {
		p.stoke[k] = make([]float64, n)
	}
	return p
}

// channelSky loads channel fi's fluxes, or its Stokes parameters.
func (r *run) channelSky(fi int) error {
	if r.pol == nil {
		return r.sim.FluxAt(fi, r.flux)
	}
	return r.sim.StokesAt(fi, r.pol.stoke)
}

// coherencies forms the visible sources' local coherencies at time ti
// (nothing for a Stokes-I sky).
func (r *run) coherencies(ti int) error {
	p := r.pol
	if p == nil {
		return nil
	}
	if err := matvis.BasisContext(r.ctx, r.sim.PolBasis, ti, p.cos, p.sin); err != nil {
		return fmt.Errorf("nufftcpu: polarization basis at time %d: %w", ti, err)
	}
	p.coh = grow(p.coh, len(r.vis))
	rot := r.sim.Options.Rotation
	return parallelContext(r.ctx, r.b.workers, len(r.vis), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s := r.vis[i]
			p.coh[i] = matvis.LocalCoherency(p.stoke[0][s], p.stoke[1][s], p.stoke[2][s], p.stoke[3][s], p.cos[s], p.sin[s], rot)
		}
	})
}

// stokesStrength is c_pq of visible source i (two feeds and axes).
func (r *run) stokesStrength(i, p, q int) complex128 {
	k := len(r.vis)
	c := &r.pol.coh[i]
	var sum complex128
	for a := range 2 {
		ap := r.amp2[(p*2+a)*k+i]
		for b := range 2 {
			sum += ap * c[a][b] * cmplx.Conj(r.amp[(q*2+b)*k+i])
		}
	}
	return sum
}
