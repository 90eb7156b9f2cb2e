package beam

import (
	"fmt"
	"math"
)

// NewGriddedFromAnalytic samples beam b onto an E-field az/za grid at the
// given frequencies, as pyuvdata's AnalyticBeam.to_uvbeam does for
// matvis's profiler (a 14 m Gaussian on 360 × 181 points): nAz azimuths
// i·2π/nAz (i < nAz, so the grid wraps) and nZa zenith angles j·π/(nZa−1)
// from 0 to π inclusive, both as numpy.linspace computes them. Feeds are x
// and y, the basis is aligned (axis 0 = θ̂, axis 1 = φ̂), and the values
// are b's polarized response. The result interpolates with cubic splines
// in float64 (see WithOrder, WithPrecision).
func NewGriddedFromAnalytic(b Beam, freqs []float64, nAz, nZa int) (*Gridded, error) {
	if b == nil {
		return nil, fmt.Errorf("beam: gridded from analytic: beam is nil")
	}
	if nAz < 2 || nZa < 2 {
		return nil, fmt.Errorf("beam: gridded from %v: grid %d × %d (az × za): need at least 2 samples per axis", b, nAz, nZa)
	}
	if len(freqs) == 0 {
		return nil, fmt.Errorf("beam: gridded from %v: no frequencies", b)
	}
	az := linspace(0, 2*math.Pi, nAz+1)[:nAz]
	za := linspace(0, math.Pi, nZa)
	npix := nAz * nZa
	pa := make([]float64, npix)
	pz := make([]float64, npix)
	for j := 0; j < nZa; j++ {
		for i := 0; i < nAz; i++ {
			pa[j*nAz+i], pz[j*nAz+i] = az[i], za[j]
		}
	}
	nf := len(freqs)
	data := make([]complex128, 2*2*nf*npix)
	out := make([]complex128, 4*npix)
	for fi, f := range freqs {
		r, err := b.At(f, Mode{Polarized: true})
		if err != nil {
			return nil, fmt.Errorf("beam: gridded from %v at %g Hz: %w", b, f, err)
		}
		r.Eval(pa, pz, out)
		for feed := 0; feed < 2; feed++ {
			for k := 0; k < 2; k++ {
				dst := data[((k*2+feed)*nf+fi)*npix:][:npix]
				copy(dst, out[(2*feed+k)*npix:][:npix])
			}
		}
	}
	spec := GridSpec{
		Name:     fmt.Sprintf("%v on a %d × %d az/za grid", b, nAz, nZa),
		Type:     EField,
		AzRad:    az,
		ZaRad:    za,
		FreqsHz:  append([]float64(nil), freqs...),
		Feeds:    []string{"x", "y"},
		NAxesVec: 2,
	}
	return NewGridded(spec, data)
}

// linspace is numpy.linspace(start, stop, num) with the endpoint: start +
// i·step, the last value set to stop.
func linspace(start, stop float64, num int) []float64 {
	out := make([]float64, num)
	if num == 1 {
		out[0] = start
		return out
	}
	step := (stop - start) / float64(num-1)
	for i := range out {
		out[i] = float64(i)*step + start
	}
	out[num-1] = stop
	return out
}
