package beam

import (
	"fmt"
	"math"
	"strings"
)

// Treatments of the zenith (za = 0) edge of a gridded beam (WithPole).
//
// A gridded beam lies on a (za, az) grid whose za = 0 row is the pole of
// its coordinates, not an edge of the sphere: past it the meridian at az
// continues as the meridian at az + π, (−za, az) ≡ (za, az + π), and the
// basis vectors θ̂ (along za) and φ̂ (along az) both flip there. So a
// component of a vector field continues as E(−za, az) = −E(za, az + π) and
// a scalar (a power) as P(−za, az) = +P(za, az + π). matvis's
// map_coordinates mirrors at za = 0 (E(−za, az) = E(za, az)) and pyuvdata's
// az_za_simple ends its spline there with a not-a-knot condition: neither
// is the field's continuation, and a source through zenith, which jumps
// from az to az + π at transit, samples the two halves of the wrong edge —
// a step of 0.3 % in the HERA beam's cross-correlations.
const (
	// PoleEdge is the exact reproduction of matvis and pyuvdata: za = 0
	// is an ordinary edge of the spline (the default).
	PoleEdge = "edge"
	// PoleContinued treats the grid as the sphere it samples, whose
	// coordinates have two seams, the pole and the azimuth wrap:
	//
	//   - each azimuth column's za axis is a meridian through the pole:
	//     the spline's za pass (map_coordinates' prefilter, az_za_simple's
	//     not-a-knot solve) runs along the whole great circle
	//     [s·E(za_{n−1} … za_1, az + π), E(za_0 … za_{n−1}, az)], s = −1
	//     for E-field components and +1 for powers, with the far ends
	//     treated as before; the table keeps the coefficient row at
	//     za = −Δza that the cubic footprint reads (map_coordinates: one
	//     row more, PlaneGrid's ZaMin one step lower; az_za_simple: the
	//     same table size, its extra coefficient row now the
	//     continuation's);
	//   - the azimuth pass runs wrapExtend columns past each end of a row
	//     continued by true azimuth (periodicStencil), so the spline is
	//     periodic, even where the copied columns would be misplaced (the
	//     HERA beamfits' 180 samples of 359°/179 leave a 1° gap to 360°,
	//     which the 3 copied columns place 2.0056° away); the table keeps
	//     the usual columns;
	//   - the za = 0 row, one point sampled once per azimuth, becomes the
	//     one vector (a power: the one value) that fits it best (poleRow).
	//
	// Where az + π is not a grid column, its values come from
	// periodicStencil.
	PoleContinued = "continued"
)

// PoleTreatments are the names WithPole takes.
func PoleTreatments() []string { return []string{PoleEdge, PoleContinued} }

// WithPole returns the beam with the zenith treatment kind, one of
// PoleTreatments ("" is PoleEdge). PoleContinued takes effect only where
// the continuation is defined (PoleApplies says where and why not):
// elsewhere the beam keeps the edge treatment. The raw grid is shared.
func (g *Gridded) WithPole(kind string) (*Gridded, error) {
	switch kind {
	case "", PoleEdge:
		c := *g
		c.pole = false
		return &c, nil
	case PoleContinued:
		c := *g
		c.pole = true
		return &c, nil
	}
	return nil, fmt.Errorf("beam: %s: pole treatment %q: want one of %s", g, kind, strings.Join(PoleTreatments(), ", "))
}

// Pole is the zenith treatment asked for (WithPole): PoleEdge or
// PoleContinued.
func (g *Gridded) Pole() string {
	if g.pole {
		return PoleContinued
	}
	return PoleEdge
}

// PoleApplies reports whether the planes prepared for mode continue
// through the pole, and when PoleContinued was asked for but cannot apply,
// why: the za axis must start at 0, the azimuths must wrap, the spline be
// cubic (bilinear interpolation at za ≥ 0 reads no row below 0), and a
// polarized run's E-field must be in the aligned (θ̂, φ̂) basis, whose
// flip at the pole is known.
func (g *Gridded) PoleApplies(mode Mode) (ok bool, why string) {
	if !g.pole {
		return false, ""
	}
	za := g.spec.ZaRad
	switch {
	case g.order != 3:
		return false, "bilinear interpolation reads no row past the pole"
	case math.Abs(za[0]) > 1e-9*(za[1]-za[0]):
		return false, fmt.Sprintf("the zenith-angle axis starts at %v rad, not 0", za[0])
	case !g.Wraps():
		return false, "the azimuth axis does not wrap"
	case mode.Polarized && g.spec.Basis != nil:
		return false, "the E-field's basis vectors are not the aligned (θ̂, φ̂)"
	}
	return true, ""
}

// poleRow replaces row0, the za = 0 row of one plane (raw plane s, its
// imaginary part with imag, after the frequency step with channel weights
// w), by the one value the pole has: za = 0 is a single point of the
// sphere, which a grid samples once per azimuth, and a beam file's samples
// there disagree a little (the HERA beamfits' feed power varies by 3.5e-4
// round the za = 0 row), which a source passing beside the zenith, its
// azimuth sweeping round within a few integrations, would show as a jitter.
// A power (power or powerFromE) becomes its mean over the row. An E-field
// component becomes the least-squares tangent vector's: with (θ̂, φ̂) =
// ((cos az, sin az), (−sin az, cos az)) in (east, north) at za = 0 (the
// beams' azimuth, East through North) and the components E_φ (axis 0), E_θ
// (axis 1), the vector (V_e, V_n) minimising Σ_az |E_φ − (−V_e sin az +
// V_n cos az)|² + |E_θ − (V_e cos az + V_n sin az)|², which is V_e = Σ (E_θ
// cos az − E_φ sin az)/n, V_n = Σ (E_θ sin az + E_φ cos az)/n for any
// azimuths (the normal matrix is n·I). It is linear in the plane's
// samples, as the rest of the preparation.
func (g *Gridded) poleRow(row0 []float64, s planeSrc, imag bool, w []float64, power bool) {
	n := float64(len(row0))
	if power || g.spec.Type == Power {
		var m float64
		for _, v := range row0 {
			m += v
		}
		for i := range row0 {
			row0[i] = m / n
		}
		return
	}
	az := g.spec.AzRad
	naz := len(az)
	comp := func(vec int) []float64 { // row 0 of axis vec of feed s.comp after the frequency step
		r := make([]float64, naz)
		for j, wj := range w {
			if wj != 0 {
				g.addPlane(r, g.planeStart(vec, s.comp, j), imag, wj)
			}
		}
		return r
	}
	ephi, eth := comp(0), comp(1)
	var ve, vn float64
	for i, a := range az {
		sa, ca := math.Sincos(a)
		ve += eth[i]*ca - ephi[i]*sa
		vn += eth[i]*sa + ephi[i]*ca
	}
	ve, vn = ve/n, vn/n
	for i, a := range az {
		sa, ca := math.Sincos(a)
		if s.vec == 0 {
			row0[i] = -ve*sa + vn*ca
		} else {
			row0[i] = ve*ca + vn*sa
		}
	}
}

// wrapExtend is how many columns on each side of a row the continued
// treatment's azimuth pass runs past the data before its ends: the
// recursive filter's (and the not-a-knot solve's) end effects decay as
// 0.268 per column, to below 1e-17 after 32, so the kept columns are the
// periodic spline's.
const wrapExtend = 32

// periodicStencil says how a row of n samples at az_0 + j·Δ, periodic in
// 2π, gives its value at azimuth phi: the sample itself when phi is on one
// (to 1e-9 of a step), otherwise the cubic Lagrange interpolant of the 4
// samples around phi at their true azimuths, which continues the row
// across the wrap even when n·Δ is not 2π (the HERA beamfits: 180 samples
// of 359°/179, a 1° gap between the last and 360°). The value is
// Σ_m w[m]·row[idx[m]].
func periodicStencil(n int, d, phiFromAz0 float64) (idx [4]int, w [4]float64) {
	u := math.Mod(phiFromAz0, 2*math.Pi)
	if u < 0 {
		u += 2 * math.Pi
	}
	i := min(int(math.Floor(u/d)), n-1)
	var x [4]float64
	for m := range 4 {
		k := i - 1 + m // unwrapped index
		switch {
		case k < 0:
			idx[m], x[m] = k+n, float64(k+n)*d-2*math.Pi
		case k >= n:
			idx[m], x[m] = k-n, float64(k-n)*d+2*math.Pi
		default:
			idx[m], x[m] = k, float64(k)*d
		}
	}
	for m := range 4 {
		if math.Abs(u-x[m]) <= 1e-9*d {
			return [4]int{idx[m], idx[m], idx[m], idx[m]}, [4]float64{1, 0, 0, 0}
		}
	}
	for m := range 4 {
		w[m] = 1
		for l := range 4 {
			if l != m {
				w[m] *= (u - x[l]) / (x[m] - x[l])
			}
		}
	}
	return idx, w
}

// longRows returns the nrow × (naz + 2·wrapExtend) plane whose row r holds
// s·(row r of the nrow × naz plane p) at azimuths az_0 + (c − wrapExtend)·Δ
// + shift, c = 0 … naz + 2·wrapExtend − 1: the data themselves where those
// are its samples, periodicStencil's interpolant elsewhere (one stencil per
// column, for every row).
func (g *Gridded) longRows(p []float64, nrow int, shift, s float64) []float64 {
	az := g.spec.AzRad
	naz := len(az)
	d := az[1] - az[0]
	nl := naz + 2*wrapExtend
	// A grid whose last azimuth is the first again (0 … 360°, which
	// pyuvdata's wrap test also takes) holds the circle in one sample
	// fewer; the stencils need distinct azimuths.
	nper := naz
	for nper > 1 && float64(nper-1)*d >= 2*math.Pi*(1-1e-9) {
		nper--
	}
	type stencil struct {
		idx [4]int
		w   [4]float64
	}
	st := make([]stencil, nl)
	for c := range st {
		st[c].idx, st[c].w = periodicStencil(nper, d, float64(c-wrapExtend)*d+shift)
	}
	out := make([]float64, nrow*nl)
	for r := range nrow {
		row, o := p[r*naz:(r+1)*naz], out[r*nl:(r+1)*nl]
		for c := range o {
			k := &st[c]
			o[c] = s * (k.w[0]*row[k.idx[0]] + k.w[1]*row[k.idx[1]] + k.w[2]*row[k.idx[2]] + k.w[3]*row[k.idx[3]])
		}
	}
	return out
}

// continuedPlane is the continued treatment's counterpart of the azimuth
// extension and the spline step of planes: the raw nza × naz plane pl
// (frequency step done) becomes the table of the grid planeGrid gives.
// Its za pass runs along each column's great circle through the pole, the
// rows (2·nza − 1 of them, za_{nza−1} … za_1 at az + π times s, then za_0
// … za_{nza−1} at az); its azimuth pass along rows continued periodically
// (longRows) wrapExtend columns past each end, so that the spline is
// periodic across the wrap, as the sphere is. The table keeps the usual
// columns (3 wrap columns each side; az_za_simple one more coefficient
// each side) and, along za, map_coordinates' coefficient rows za_{−1} …
// za_{nza−1} or az_za_simple's c_{−1} … c_{nza}.
func (g *Gridded) continuedPlane(pl []float64, s float64) []float64 {
	nza, naz := len(g.spec.ZaRad), len(g.spec.AzRad)
	nm := 2*nza - 1
	nl := naz + 2*wrapExtend
	mer := make([]float64, 0, nm*nl)
	opp := g.longRows(pl[naz:], nza-1, math.Pi, s) // za_1 … za_{nza−1} at az + π
	for k := nza - 2; k >= 0; k-- {
		mer = append(mer, opp[k*nl:(k+1)*nl]...)
	}
	mer = append(mer, g.longRows(pl, nza, 0, 1)...)
	if g.azZaSimple() {
		a := notAKnotColumns(mer, nm, nl)    // c_{−nza} … c_{nza}
		kept := a[(nza-1)*nl : (2*nza+1)*nl] // c_{−1} … c_{nza}
		b := notAKnotAz(kept, nza+2, nl)     // (nza+2) × (nl+2): columns c_{−1} … c_{nl}
		return cropColumns(b, nza+2, nl+2, wrapExtend-azExtend, naz+2*azExtend+2)
	}
	prefilterColumns(mer, nm, nl)
	kept := mer[(nza-2)*nl:] // za_{−1} … za_{nza−1}
	prefilterRows(kept, nza+1, nl)
	return cropColumns(kept, nza+1, nl, wrapExtend-azExtend, naz+2*azExtend)
}

// cropColumns returns columns first … first+n−1 of the row-major nrow ×
// ncol plane p.
func cropColumns(p []float64, nrow, ncol, first, n int) []float64 {
	out := make([]float64, 0, nrow*n)
	for r := range nrow {
		out = append(out, p[r*ncol+first:r*ncol+first+n]...)
	}
	return out
}
