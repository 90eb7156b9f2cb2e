package matvis

import (
	"context"
	"fmt"
	"math"

	"github.com/gomatvis/gomatvis/internal/blocks"
)

// DefaultBasisStep is FDBasis's default difference step in Dec (radians):
// the angle X it gives changes by about 1e-8 rad between steps of 1e-3 and
// 1e-5 (TestFDBasisStep; NOTES.md of pyuvsim-fullstokes-airy found the
// same with astropy), far from both the truncation error (∝ step²) and
// the cancellation of the ENU vectors' rounding (∝ 1e-16/step).
const DefaultBasisStep = 1e-4

// FDBasis is a PolBasis computed from a Coordinates provider by central
// differences: the sky's θ̂ = −∂ŝ/∂dec is the difference of the source's
// ENU direction at dec − h and dec + h, made by the same astrometry as the
// positions themselves (precession, nutation, aberration, polar motion),
// and φ̂ = ŝ × θ̂. The chain's rotations map the sphere conformally and its
// aberration nearly so: more than 15° from the Sun the image of râ from an
// RA difference is ŝ × θ̂ to 3e-6 rad (TestFDBasisConformal), well below
// pyradiosky's own basis approximation (4.8e-5). So one neighbour pair
// does instead of two, without the loss of precision near the poles,
// where an RA difference vanishes (cos dec). Near the Sun, light
// deflection shears the mapping (3e-5 rad at 10°, 4e-4 within a degree or
// two): the images of θ̂ and râ are then not orthogonal, and this basis
// follows θ̂'s. A differentiation of the astrometric chain itself would
// need every step's derivative; the difference needs none and is exact
// to O(h²).
type FDBasis struct {
	center Coordinates
	// nb are the neighbours at dec + h and dec − h.
	nb [2]Coordinates
}

// NewFDBasis builds the coordinates of the sources and of their
// neighbours at dec ± h with mk, which must give the same astrometry as
// the simulation's Coordinates. h is step (0: DefaultBasisStep) or, for a
// source within 2·step of a pole, half its distance to the pole (the
// differences are normalised, so each source may have its own h). A
// source exactly at a pole, where râ and deĉ are undefined, is refused.
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
	up, down := make([]float64, len(dec)), make([]float64, len(dec))
	for s, d := range dec {
		h := min(step, (math.Pi/2-math.Abs(d))/2)
		if !(h > 0) {
			return nil, fmt.Errorf("matvis: polarization basis: source %d at dec = %g rad is at a pole, where its RA and Dec directions are undefined", s, d)
		}
		up[s], down[s] = d+h, d-h
	}
	b := &FDBasis{}
	var err error
	if b.center, err = mk(ra, dec); err != nil {
		return nil, fmt.Errorf("matvis: polarization basis: %w", err)
	}
	for k, d := range [2][]float64{up, down} {
		if b.nb[k], err = mk(ra, d); err != nil {
			return nil, fmt.Errorf("matvis: polarization basis neighbour %d: %w", k, err)
		}
	}
	return b, nil
}

// Neighbours are the coordinates of the sources' neighbours at dec + h
// (up) and dec − h (down), whose directions' difference is θ̂: what a
// device doing Basis's arithmetic needs besides the sources' directions.
func (b *FDBasis) Neighbours() (up, down Coordinates) { return b.nb[0], b.nb[1] }

// NSources is the number of sources.
func (b *FDBasis) NSources() int { return b.center.NSources() }

// NTimes is the number of times.
func (b *FDBasis) NTimes() int { return b.center.NTimes() }

// Basis writes cos X and sin X of every source at time ti (PolBasis).
func (b *FDBasis) Basis(ti int, cosX, sinX []float64) error {
	return b.BasisContext(context.Background(), ti, cosX, sinX)
}

// BasisContext is Basis stopping within a block of sources of ctx's
// cancel (ContextPolBasis).
func (b *FDBasis) BasisContext(ctx context.Context, ti int, cosX, sinX []float64) error {
	n := b.NSources()
	if len(cosX) != n || len(sinX) != n {
		return fmt.Errorf("matvis: polarization basis buffers hold %d and %d values for %d sources", len(cosX), len(sinX), n)
	}
	var v [3][3][]float64
	for k, c := range [3]Coordinates{b.center, b.nb[0], b.nb[1]} {
		for j := range v[k] {
			v[k][j] = make([]float64, n)
		}
		if err := ENUContext(ctx, c, ti, v[k][0], v[k][1], v[k][2]); err != nil {
			return fmt.Errorf("matvis: polarization basis at time %d: %w", ti, err)
		}
	}
	return blocks.RunContext(ctx, n, 1, 0, func(lo, hi int) {
		for s := lo; s < hi; s++ {
			var p, theta [3]float64
			for j := range 3 {
				p[j] = v[0][j][s]
				theta[j] = v[2][j][s] - v[1][j][s] // −∂ŝ/∂dec
			}
			cosX[s], sinX[s] = basisAngle(p, theta)
		}
	})
}

// basisAngle returns cos X = ẑâ·θ̂ and sin X = ẑâ·φ̂ for the direction p
// (its (az, za) as AzZa gives them, the beams' angles) and the sky's θ̂
// along theta (any length), φ̂ = p̂ × θ̂; normalised, which also removes
// any component of theta along p.
func basisAngle(p, theta [3]float64) (cosX, sinX float64) {
	az, za := AzZa(p[0], p[1])
	sa, ca := math.Sincos(az)
	sz, cz := math.Sincos(za)
	zh := [3]float64{cz * ca, cz * sa, -sz}
	phi := [3]float64{p[1]*theta[2] - p[2]*theta[1], p[2]*theta[0] - p[0]*theta[2], p[0]*theta[1] - p[1]*theta[0]}
	c := zh[0]*theta[0] + zh[1]*theta[1] + zh[2]*theta[2]
	s := zh[0]*phi[0] + zh[1]*phi[1] + zh[2]*phi[2]
	l := math.Hypot(c, s)
	return c / l, s / l
}
