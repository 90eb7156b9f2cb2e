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
	// PoleContinued makes each azimuth column's za axis a meridian
	// through the pole: the spline's za pass (map_coordinates' prefilter,
	// az_za_simple's not-a-knot solve) runs along the whole great circle
	// [s·E(za_{n−1} … za_1, az + π), E(za_0 … za_{n−1}, az)], s = −1 for
	// E-field components and +1 for powers, with the far ends treated as
	// today; the table keeps the coefficient row at za = −Δza that the
	// cubic footprint reads (map_coordinates: one row more, PlaneGrid's
	// ZaMin one step lower; az_za_simple: the same table size, its extra
	// coefficient row now the continuation's). Where az + π is not a grid
	// column (an uneven azimuth step such as the HERA beamfits' 359°/179),
	// the values there come from the cubic B-spline of the wrapped row.
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

// meridian returns the (2·nza − 1) × naz plane whose column a is the
// great circle through the pole along raw column a of the nza × naz plane
// p: rows 0 … nza−2 hold s·E(za_{nza−1} … za_1, az_a + π), rows nza−1 …
// 2·nza−2 hold p itself.
func (g *Gridded) meridian(p []float64, s float64) []float64 {
	nza, naz := len(g.spec.ZaRad), len(g.spec.AzRad)
	out := make([]float64, (2*nza-1)*naz)
	copy(out[(nza-1)*naz:], p)
	opp := g.oppositeRows(p)
	for k := 1; k < nza; k++ {
		dst := out[(nza-1-k)*naz : (nza-k)*naz]
		src := opp[k*naz : (k+1)*naz]
		for a, v := range src {
			dst[a] = s * v
		}
	}
	return out
}

// oppositeRows returns the nza × naz plane of p's values at (za_k,
// az_a + π): the column naz/2 further on when the azimuths are an even
// number of exact steps round the circle, otherwise the cubic B-spline of
// each row wrapped as Prepare wraps it (3 columns each side, mirror
// prefilter) at az_a + π reduced into [az_0, az_0 + 2π).
func (g *Gridded) oppositeRows(p []float64) []float64 {
	az := g.spec.AzRad
	nza, naz := len(g.spec.ZaRad), len(az)
	d := az[1] - az[0]
	out := make([]float64, len(p))
	if naz%2 == 0 && math.Abs(float64(naz)*d-2*math.Pi) <= 1e-9*2*math.Pi {
		for r := range nza {
			row, o := p[r*naz:(r+1)*naz], out[r*naz:(r+1)*naz]
			for a := range o {
				o[a] = row[(a+naz/2)%naz]
			}
		}
		return out
	}
	nazE := naz + 2*azExtend
	t := make([]float64, nza*nazE)
	transpose(t, extendAz(p, nza, naz), nza, nazE)
	prefilterColumns(t, nazE, nza) // each row's az spline, rows side by side
	var idx [4]int
	var w [4]float64
	for a := range naz {
		phi := az[0] + math.Mod(az[a]+math.Pi-az[0], 2*math.Pi)
		c := (phi - (az[0] - azExtend*d)) / d
		axisWeights(c, nazE, 3, &idx, &w)
		for r := range nza {
			var v float64
			for k := range 4 {
				v += w[k] * t[idx[k]*nza+r]
			}
			out[r*naz+a] = v
		}
	}
	return out
}

// continuedPlane is the pole-continued counterpart of the extension and
// spline step of planes: raw nza × naz plane pl (the frequency step done)
// becomes the table of grid (map_coordinates: (nza+1) × nazE coefficients
// from za = −Δza; az_za_simple: (nza+2) × (nazE+2) as notAKnot2D's).
func (g *Gridded) continuedPlane(pl []float64, s float64) []float64 {
	nza, naz := len(g.spec.ZaRad), len(g.spec.AzRad)
	nm := 2*nza - 1
	nazE := naz + 2*azExtend
	mer := extendAz(g.meridian(pl, s), nm, naz)
	if g.azZaSimple() {
		a := notAKnotColumns(mer, nm, nazE)      // c_{−nza} … c_{nza}
		kept := a[(nza-1)*nazE : (2*nza+1)*nazE] // c_{−1} … c_{nza}
		return notAKnotAz(kept, nza+2, nazE)
	}
	prefilterColumns(mer, nm, nazE)
	kept := mer[(nza-2)*nazE:] // za_{−1} … za_{nza−1}
	prefilterRows(kept, nza+1, nazE)
	return kept
}
