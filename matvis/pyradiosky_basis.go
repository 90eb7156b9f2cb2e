package matvis

import (
	"fmt"
	"math"

	"github.com/gomatvis/gomatvis/internal/blocks"
	"github.com/gomatvis/gomatvis/internal/matrix3"
)

// RigidBasis is pyradiosky's basis angle (SkyModel._calc_average_rotation_matrix,
// _calc_rotation_matrix and spherical_basis_vector_rotation_matrix), which
// pyuvsim's files hold: per time one rigid rotation U of the whole sky, the
// nearest orthogonal matrix to the images of the ICRS x, y, z axes; per
// source U followed by the smallest rotation that takes U·ŝ_ICRS onto the
// source's actual direction. The sky's θ̂ and φ̂ are turned by that
// rotation and projected onto the local ẑâ. It differs from FDBasis (the
// exact local mapping) by up to 5e-5 rad, the sky's aberration not being a
// rigid rotation (NOTES.md of pyuvsim-fullstokes-airy).
type RigidBasis struct {
	ra, dec []float64
	src     Coordinates
	axes    Coordinates
}

// NewRigidBasis builds it with mk, which must give the simulation's
// astrometry: mk(ra, dec) for the sources and for the three ICRS axes
// (ra, dec) = (0, 0), (π/2, 0), (0, π/2).
func NewRigidBasis(mk func(ra, dec []float64) (Coordinates, error), ra, dec []float64) (*RigidBasis, error) {
	if len(ra) != len(dec) {
		return nil, fmt.Errorf("matvis: rigid polarization basis: %d RAs for %d Decs", len(ra), len(dec))
	}
	b := &RigidBasis{ra: ra, dec: dec}
	var err error
	if b.src, err = mk(ra, dec); err != nil {
		return nil, fmt.Errorf("matvis: rigid polarization basis: %w", err)
	}
	if b.axes, err = mk([]float64{0, math.Pi / 2, 0}, []float64{0, 0, math.Pi / 2}); err != nil {
		return nil, fmt.Errorf("matvis: rigid polarization basis, the ICRS axes: %w", err)
	}
	return b, nil
}

// NSources is the number of sources.
func (b *RigidBasis) NSources() int { return b.src.NSources() }

// NTimes is the number of times.
func (b *RigidBasis) NTimes() int { return b.src.NTimes() }

type m3 [3][3]float64

// NewPolBasis is the basis that goes with a rotation: the exact local
// mapping (FDBasis) with RotationIAU or "" (the default), the physically
// derived one; pyradiosky's own (RigidBasis) with RotationPyradiosky, so
// that pyuvsim's files are reproduced. mk gives the simulation's
// astrometry.
func NewPolBasis(rot CoherencyRotation, mk func(ra, dec []float64) (Coordinates, error), ra, dec []float64) (PolBasis, error) {
	if rot == RotationPyradiosky {
		return NewRigidBasis(mk, ra, dec)
	}
	return NewFDBasis(mk, ra, dec, 0)
}

// Sources are the sources' ICRS right ascensions and declinations
// (radians; the basis's own slices: do not modify).
func (b *RigidBasis) Sources() (ra, dec []float64) { return b.ra, b.dec }

// Frame is the basis's rigid rotation at time ti: U, the orthogonal factor
// of the ICRS axes' images (row i, column j: ENU component i of axis j).
// Per source, Basis turns U·n̂ onto the source's direction by the
// smallest rotation and projects the turned θ̂ and φ̂ onto ẑâ; a device
// doing the same needs U per time and each source's direction.
func (b *RigidBasis) Frame(ti int) ([3][3]float64, error) {
	var ax [3][]float64
	for k := range ax {
		ax[k] = make([]float64, 3)
	}
	if err := b.axes.ENU(ti, ax[0], ax[1], ax[2]); err != nil {
		return [3][3]float64{}, fmt.Errorf("matvis: rigid polarization basis at time %d: %w", ti, err)
	}
	var a m3
	for i := range 3 {
		for j := range 3 {
			a[i][j] = ax[i][j]
		}
	}
	return polarFactor(a), nil
}

// Basis writes cos X and sin X of every source at time ti (PolBasis).
func (b *RigidBasis) Basis(ti int, cosX, sinX []float64) error {
	n := b.NSources()
	if len(cosX) != n || len(sinX) != n {
		return fmt.Errorf("matvis: polarization basis buffers hold %d and %d values for %d sources", len(cosX), len(sinX), n)
	}
	u, err := b.Frame(ti)
	if err != nil {
		return err
	}
	e, nn, up := make([]float64, n), make([]float64, n), make([]float64, n)
	if err := b.src.ENU(ti, e, nn, up); err != nil {
		return fmt.Errorf("matvis: rigid polarization basis at time %d: %w", ti, err)
	}
	// Per source independent, and per time on the host for 10⁶ sources
	// (the GPU waits for it): on every core.
	blocks.Run(n, blocks.Workers(n, 4096), func(lo, hi int) {
		for s := lo; s < hi; s++ {
			sd, cd := math.Sincos(b.dec[s])
			sa, ca := math.Sincos(b.ra[s])
			nf := [3]float64{cd * ca, cd * sa, sd}
			th := [3]float64{sd * ca, sd * sa, -cd} // θ̂ = −deĉ
			ph := [3]float64{-sa, ca, 0}            // φ̂ = râ
			p := [3]float64{e[s], nn[s], up[s]}
			r := matrix3.Mul(alignRotation(matrix3.Apply(u, nf), p), u)
			cosX[s], sinX[s] = projectBasis(p, matrix3.Apply(r, th), matrix3.Apply(r, ph))
		}
	})
	return nil
}

// projectBasis returns ẑâ·θ and ẑâ·φ at direction p, ẑâ of (az, za) as
// AzZa gives them, normalised: above the horizon they already are (to
// rounding); below it AzZa mirrors the direction (those sources are not
// simulated, but their angle stays a valid one).
func projectBasis(p, th, ph [3]float64) (c, s float64) {
	az, za := AzZa(p[0], p[1])
	sa, ca := math.Sincos(az)
	sz, cz := math.Sincos(za)
	zh := [3]float64{cz * ca, cz * sa, -sz}
	c, s = matrix3.Dot(zh, th), matrix3.Dot(zh, ph)
	l := math.Hypot(c, s)
	return c / l, s / l
}

// polarFactor is the orthogonal factor U of A = U·H (the nearest
// orthogonal matrix, scipy's orthogonal_procrustes(A, I)ᵀ), by Newton's
// iteration U ← ½(U + U⁻ᵀ), which converges quadratically for the nearly
// orthogonal A here.
func polarFactor(a m3) m3 {
	u := a
	for range 20 {
		inv := inverse3(u)
		var next m3
		diff := 0.0
		for i := range 3 {
			for j := range 3 {
				next[i][j] = 0.5 * (u[i][j] + inv[j][i])
				diff = math.Max(diff, math.Abs(next[i][j]-u[i][j]))
			}
		}
		u = next
		if diff < 1e-16 {
			break
		}
	}
	return u
}

func inverse3(m m3) m3 {
	c := func(i, j int) float64 {
		i1, i2 := (i+1)%3, (i+2)%3
		j1, j2 := (j+1)%3, (j+2)%3
		return m[i1][j1]*m[i2][j2] - m[i1][j2]*m[i2][j1]
	}
	det := m[0][0]*c(0, 0) + m[0][1]*c(0, 1) + m[0][2]*c(0, 2)
	var inv m3
	for i := range 3 {
		for j := range 3 {
			inv[j][i] = c(i, j) / det
		}
	}
	return inv
}

// alignRotation is the smallest rotation taking r1 onto r2 (unit vectors):
// about r1 × r2 by the angle between them (pyradiosky's vecs2rot).
func alignRotation(r1, r2 [3]float64) m3 {
	k := [3]float64{r1[1]*r2[2] - r1[2]*r2[1], r1[2]*r2[0] - r1[0]*r2[2], r1[0]*r2[1] - r1[1]*r2[0]}
	sn := math.Sqrt(matrix3.Dot(k, k))
	cs := matrix3.Dot(r1, r2)
	if sn == 0 {
		return m3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	}
	psi := math.Atan2(sn, cs)
	for i := range k {
		k[i] /= sn
	}
	s, c := math.Sincos(psi)
	var r m3
	kx := m3{{0, -k[2], k[1]}, {k[2], 0, -k[0]}, {-k[1], k[0], 0}}
	for i := range 3 {
		for j := range 3 {
			r[i][j] = (1-c)*k[i]*k[j] + s*kx[i][j]
			if i == j {
				r[i][j] += c
			}
		}
	}
	return r
}
