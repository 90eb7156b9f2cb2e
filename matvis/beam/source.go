package beam

import "fmt"

// Source is what an accelerator needs to prepare a Gridded beam's planes
// itself, channel by channel, instead of taking them from Prepare: the raw
// grid as stored, which raw planes make which prepared plane, and the
// prepared planes' geometry. Prepare's steps are linear in the raw
// samples of each beam channel — the frequency step is a weighted sum over
// channels (FreqWeights), the azimuth extension copies, the prefilter is a
// linear recursive filter, and the power of an unpolarized run is formed
// per channel before the frequency step — so a device may prefilter each
// beam channel once and form any frequency as the same weighted sum of
// those prefiltered channels.
type Source struct {
	// Grid is the prepared planes' geometry (FrequencyHz and
	// NearestChannelHz are left zero: they are the channel's).
	Grid PlaneGrid
	// RawNZa and RawNAz are the raw grid's axes (Grid.NAz includes the
	// azimuth extension's columns when Grid.Extended).
	RawNZa, RawNAz int
	// FreqsHz are the beam channels.
	FreqsHz []float64
	// NComp is the raw grid's feed or polarisation count, NVec its
	// basis-vector axes.
	NComp, NVec int
	// Complex says the raw samples are (re, im) pairs.
	Complex bool
	// Raw32 or Raw64 (exactly one is set) is the raw grid, layout
	// [vec][comp][freq][za][az] (PlaneStart), interleaved re/im when
	// Complex. It is the beam's own storage: read it, never write it.
	Raw32 []float32
	Raw64 []float64
	// Planes are the prepared planes in output order (Prepare's Planes):
	// the raw plane (Vec, Comp) each is made of.
	Planes []PlaneSource
	// PowerFromE: the one prepared plane is the power of feed Planes[0].Comp
	// formed from the E-field's two basis-vector axes (with Basis, when
	// set, as in the unpolarized Prepare).
	PowerFromE bool
	// Basis is the beam's basis vectors (GridSpec.Basis) or nil.
	Basis []float64
	// OutComplex says the prepared planes have imaginary parts; without,
	// only the raw real parts are used.
	OutComplex bool
}

// PlaneSource names one raw plane: basis-vector axis Vec, feed or
// polarisation Comp.
type PlaneSource struct{ Vec, Comp int }

// PlaneStart is the index of the first sample of raw plane (vec, comp) at
// beam channel freq, in complex samples (twice it in Raw32/Raw64 when
// Complex).
func (s *Source) PlaneStart(vec, comp, freq int) int {
	return ((vec*s.NComp+comp)*len(s.FreqsHz) + freq) * s.RawNZa * s.RawNAz
}

// Source describes how the beam's planes for mode are made (see Source);
// the errors are Prepare's for a mode the beam cannot serve.
func (g *Gridded) Source(mode Mode) (*Source, error) {
	srcs, powerFromE, err := g.planeSources(mode)
	if err != nil {
		return nil, err
	}
	s := &Source{
		Grid:   g.planeGrid(0, mode, 0),
		RawNZa: len(g.spec.ZaRad), RawNAz: len(g.spec.AzRad),
		FreqsHz: g.spec.FreqsHz, NComp: g.ncomp, NVec: g.spec.NAxesVec, Complex: g.cplx,
		Raw32: g.d32, Raw64: g.d64, PowerFromE: powerFromE, Basis: g.spec.Basis,
		OutComplex: mode.Polarized && g.cplx,
	}
	for _, p := range srcs {
		s.Planes = append(s.Planes, PlaneSource{Vec: p.vec, Comp: p.comp})
	}
	if powerFromE && len(s.Planes) != 1 {
		return nil, fmt.Errorf("beam: %s: power from the E-field makes one plane, have %d", g, len(s.Planes))
	}
	return s, nil
}

// FreqWeights are the weights, one per beam channel, with which Prepare
// combines the beam channels into freqHz (the nearest channel alone
// within FreqTolHz, else the beam's frequency interpolation, FreqInterp:
// by default the not-a-knot cubic spline along frequency); zero weights
// are channels Prepare skips.
func (g *Gridded) FreqWeights(freqHz float64) ([]float64, error) {
	w, err := g.freqWeights(freqHz)
	if err != nil {
		return nil, fmt.Errorf("beam: %s: %w", g, err)
	}
	return w, nil
}

// CubicPole is the pole of the cubic B-spline prefilter (√3 − 2), which
// a device's copy of the prefilter uses.
const CubicPole = cubicPole

// NPlanes is the number of planes (Planes without copying them).
func (r *GriddedResponse) NPlanes() int { return r.nplane }

// ChannelParts are the prepared planes of beam channel j alone (weight 1,
// no frequency interpolation) for mode, as the device's channel
// preparation lays out its scratch: per prepared plane in Source's Planes
// order its real part, followed by its imaginary part when
// Source.OutComplex; each row-major Grid.NZa × Grid.NAz float64 values
// (after the azimuth extension and the prefilter or, for az_za_simple,
// the not-a-knot solve). Prepare at a frequency is the same linear steps
// applied to the FreqWeights-weighted sum of the channels.
func (g *Gridded) ChannelParts(j int, mode Mode) ([][]float64, error) {
	if j < 0 || j >= len(g.spec.FreqsHz) {
		return nil, fmt.Errorf("beam: %s: beam channel %d of %d", g, j, len(g.spec.FreqsHz))
	}
	srcs, powerFromE, err := g.planeSources(mode)
	if err != nil {
		return nil, err
	}
	w := make([]float64, len(g.spec.FreqsHz))
	w[j] = 1
	cplx := mode.Polarized && g.cplx
	re, im := g.planes(srcs, w, powerFromE, cplx, g.planeGrid(g.spec.FreqsHz[j], mode, g.spec.FreqsHz[j]))
	var parts [][]float64
	for p := range re {
		parts = append(parts, re[p])
		if cplx {
			parts = append(parts, im[p])
		}
	}
	return parts, nil
}
