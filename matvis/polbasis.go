package matvis

import (
	"fmt"
	"math"
)

// DefaultBasisStep is FDBasis's default difference step in RA and Dec
// (radians): the angle X it gives changes by under 1e-8 rad between steps
// of 1e-3 and 1e-5 (TestFDBasisStep; NOTES.md of pyuvsim-fullstokes-airy
// found the same with astropy), far from both the truncation error
// (∝ step²) and the cancellation of the ENU vectors' rounding
// (∝ 1e-16/step).
const DefaultBasisStep = 1e-4

// FDBasis is a PolBasis computed from a Coordinates provider by central
// differences: the sky basis vectors θ̂ = −∂ŝ/∂dec and φ̂ ∝ ∂ŝ/∂ra are the
// differences of the source's ENU direction at dec ± h and ra ± h, made
// by the same astrometry as the positions themselves (precession,
// nutation, aberration, polar motion included), and projected onto the
// local ẑâ of the direction's (az, za) as AzZa gives them, the angles the
// beams are evaluated at. A differentiation of the astrometric chain
// itself would need every one of its steps' derivatives; the difference
// needs none and is as exact (error ∝ h²·|∂³ŝ| ≈ 1e-8 rad).
type FDBasis struct {
	center Coordinates
	// nb are the neighbours: ra + h, ra − h, dec + h, dec − h.
	nb [4]Coordinates
	h  float64
}

// NewFDBasis builds the neighbours' coordinates with mk, which must give
// the same astrometry as the simulation's Coordinates: mk(ra, dec) for
// the sources and for ra ± step, dec ± step (step 0: DefaultBasisStep). A
// source within step of a pole is refused (its RA derivative vanishes).
func NewFDBasis(mk func(ra, dec []float64) (Coordinates, error), ra, dec []float64, step float64) (*FDBasis, error) {
	if step == 0 {
		step = DefaultBasisStep
	}
	if !(step > 0 && step < 0.1) {
		return nil, fmt.Errorf("matvis: polarization basis step %g rad: must be within (0, 0.1)", step)
	}
	if len(ra) != len(dec) {
		return nil, fmt.Errorf("matvis: polarization basis: %d RAs for %d Decs", len(ra), len(dec))
	}
	for s, d := range dec {
		if math.Abs(d)+step >= math.Pi/2 {
			return nil, fmt.Errorf("matvis: polarization basis: source %d at dec = %g rad is within %g rad of a pole, where its RA direction is undefined", s, d, step)
		}
	}
	shift := func(x []float64, dx float64) []float64 {
		out := make([]float64, len(x))
		for i, v := range x {
			out[i] = v + dx
		}
		return out
	}
	b := &FDBasis{h: step}
	var err error
	if b.center, err = mk(ra, dec); err != nil {
		return nil, fmt.Errorf("matvis: polarization basis: %w", err)
	}
	args := [4][2][]float64{
		{shift(ra, step), dec}, {shift(ra, -step), dec},
		{ra, shift(dec, step)}, {ra, shift(dec, -step)},
	}
	for k, a := range args {
		if b.nb[k], err = mk(a[0], a[1]); err != nil {
			return nil, fmt.Errorf("matvis: polarization basis neighbour %d: %w", k, err)
		}
	}
	return b, nil
}

// NSources is the number of sources.
func (b *FDBasis) NSources() int { return b.center.NSources() }

// NTimes is the number of times.
func (b *FDBasis) NTimes() int { return b.center.NTimes() }

// Basis writes cos X and sin X of every source at time ti (PolBasis).
func (b *FDBasis) Basis(ti int, cosX, sinX []float64) error {
	n := b.NSources()
	if len(cosX) != n || len(sinX) != n {
		return fmt.Errorf("matvis: polarization basis buffers hold %d and %d values for %d sources", len(cosX), len(sinX), n)
	}
	var v [5][3][]float64
	for k, c := range append([]Coordinates{b.center}, b.nb[:]...) {
		for j := range v[k] {
			v[k][j] = make([]float64, n)
		}
		if err := c.ENU(ti, v[k][0], v[k][1], v[k][2]); err != nil {
			return fmt.Errorf("matvis: polarization basis at time %d: %w", ti, err)
		}
	}
	for s := range n {
		var phi, theta [3]float64
		for j := range 3 {
			phi[j] = v[1][j][s] - v[2][j][s]
			theta[j] = v[4][j][s] - v[3][j][s] // −∂ŝ/∂dec
		}
		cosX[s], sinX[s] = basisAngle(v[0][0][s], v[0][1][s], theta, phi)
	}
	return nil
}

// basisAngle projects the sky basis directions theta and phi (any
// lengths) onto the local ẑâ of the direction (e, n, ·), its (az, za) as
// AzZa gives them, and returns the normalised cos X = ẑâ·θ̂, sin X = ẑâ·φ̂.
func basisAngle(e, n float64, theta, phi [3]float64) (cosX, sinX float64) {
	az, za := AzZa(e, n)
	sa, ca := math.Sincos(az)
	sz, cz := math.Sincos(za)
	zh := [3]float64{cz * ca, cz * sa, -sz}
	unit := func(x [3]float64) float64 {
		l := math.Sqrt(x[0]*x[0] + x[1]*x[1] + x[2]*x[2])
		return (zh[0]*x[0] + zh[1]*x[1] + zh[2]*x[2]) / l
	}
	c, s := unit(theta), unit(phi)
	l := math.Hypot(c, s)
	return c / l, s / l
}
