package beam

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Spatial interpolation choices of a gridded beam (WithSpatialInterp),
// named after pyuvdata's UVBeam.interp interpolation_function values.
const (
	// SpatialMapCoordinates is matvis's choice, pyuvdata's
	// "az_za_map_coordinates": scipy.ndimage.map_coordinates on the
	// mirror-prefiltered cubic B-spline (or bilinear), 0 outside the grid.
	SpatialMapCoordinates = "map_coordinates"
	// SpatialAzZaSimple is pyuvdata's default "az_za_simple", which pyuvsim
	// uses: scipy.interpolate.RectBivariateSpline(za, az, plane, kx, ky,
	// s=0) per plane, real and imaginary parts separately, evaluated with
	// grid=False, so arguments are clamped to the grid (fitpack's bispeu).
	SpatialAzZaSimple = "az_za_simple"
)

// SpatialInterps are the spatial interpolation choices WithSpatialInterp
// takes.
func SpatialInterps() []string { return []string{SpatialMapCoordinates, SpatialAzZaSimple} }

// azZaUniformTol is how evenly spaced (relative to a step) an axis must be
// for az_za_simple: its spline is evaluated here as a uniform B-spline
// series, while fitpack places its knots at the samples themselves, so an
// uneven step δ (in steps) moves values by about δ times the data's
// variation; beamfits axes (CRVAL + i·CDELT) are uniform to ~1e-14.
const azZaUniformTol = 1e-9

// WithSpatialInterp returns the beam interpolating over (za, az) with kind,
// one of SpatialInterps: "map_coordinates" (the default, matvis's) or
// "az_za_simple" (pyuvdata's default and pyuvsim's). The raw grid is
// shared.
//
// az_za_simple needs at least 4 zenith angles (and 4 azimuths when the
// azimuth axis does not wrap: RectBivariateSpline needs more points than
// its degree), axes even to 1e-9 of a step, and a wrapping azimuth axis
// that starts at 0: pyuvdata places the 3 columns it copies below the
// first at −az[2] − Δ, −az[1] − Δ, −az[0] − Δ, which continue the grid
// evenly only then. As pyuvdata, it refuses basis vectors that are not
// aligned with (θ̂, φ̂).
func (g *Gridded) WithSpatialInterp(kind string) (*Gridded, error) {
	switch kind {
	case SpatialMapCoordinates, "":
		c := *g
		c.spatial = ""
		return &c, nil
	case SpatialAzZaSimple:
		if err := g.checkAzZaSimple(); err != nil {
			return nil, err
		}
		c := *g
		c.spatial = SpatialAzZaSimple
		return &c, nil
	}
	return nil, fmt.Errorf("beam: %s: spatial interpolation %q: want one of %s", g, kind, strings.Join(SpatialInterps(), ", "))
}

// SpatialInterp is the spatial interpolation (see WithSpatialInterp).
func (g *Gridded) SpatialInterp() string {
	if g.spatial == "" {
		return SpatialMapCoordinates
	}
	return g.spatial
}

// checkAzZaSimple reports a grid az_za_simple cannot interpolate.
func (g *Gridded) checkAzZaSimple() error {
	az, za := g.spec.AzRad, g.spec.ZaRad
	bad := func(format string, a ...any) error {
		return fmt.Errorf("beam: %s: az_za_simple: "+format, append([]any{g}, a...)...)
	}
	if len(za) < 4 {
		return bad("zenith-angle axis has %d samples: the bicubic spline needs at least 4", len(za))
	}
	if !g.Wraps() && len(az) < 4 {
		return bad("azimuth axis has %d samples and does not wrap: the bicubic spline needs at least 4", len(az))
	}
	for _, ax := range []struct {
		name string
		v    []float64
	}{{"zenith-angle", za}, {"azimuth", az}} {
		d := ax.v[1] - ax.v[0]
		for i := 2; i < len(ax.v); i++ {
			if s := ax.v[i] - ax.v[i-1]; math.Abs(s-d) > azZaUniformTol*d {
				return bad("%s step %d is %v rad, the first is %v rad: the axis must be even to %g of a step", ax.name, i, s, d, azZaUniformTol)
			}
		}
	}
	if b := g.spec.Basis; b != nil && g.spec.NAxesVec >= 2 {
		// pyuvdata's own test (NotImplementedError): any positive value in
		// basis_vector_array[0, 1] or [1, 0].
		np := g.nplane()
		for _, part := range []struct {
			name string
			v    []float64
		}{{"[0, 1]", b[1*np : 2*np]}, {"[1, 0]", b[2*np : 3*np]}} {
			if i := slices.IndexFunc(part.v, func(x float64) bool { return x > 0 }); i >= 0 {
				return bad("basis vector component %s at pixel %d is %v: pyuvdata interpolates only basis vectors aligned with (θ̂, φ̂)", part.name, i, part.v[i])
			}
		}
	}
	if g.Wraps() && math.Abs(az[0]) > azZaUniformTol*(az[1]-az[0]) {
		return bad("the azimuth axis wraps but starts at %v rad, not 0: pyuvdata's copied columns below it (at −az[k] − Δaz) would not continue it evenly", az[0])
	}
	return nil
}

// azZaSimple says the beam's planes are az_za_simple splines.
func (g *Gridded) azZaSimple() bool { return g.spatial == SpatialAzZaSimple }

// notAKnot2D returns the uniform cubic B-spline coefficients of the
// not-a-knot bicubic interpolant of the row-major nrow × ncol plane p (rows
// along za, columns along az): (nrow+2) × (ncol+2) values, coefficient
// (j, k) for j = −1 … nrow, k = −1 … ncol at row j+1, column k+1.
//
// RectBivariateSpline with s = 0 and degree 3 is the tensor product of
// fitpack's 1-D interpolating cubic splines, whose interior knots are the
// samples except the 2nd and the second-to-last: the not-a-knot spline.
// On an even grid of step h that spline is Σ c_j B(x/h − j) with B the
// centred cubic B-spline, the m interpolation conditions
// (c_{j−1} + 4c_j + c_{j+1})/6 = y_j and, for not-a-knot, a continuous
// third derivative at the 2nd and second-to-last samples: a vanishing
// fourth difference c_{−1} − 4c_0 + 6c_1 − 4c_2 + c_3 = 0 and its mirror.
// The tensor product is solved one axis at a time.
func notAKnot2D(p []float64, nrow, ncol int) []float64 {
	return notAKnotAz(notAKnotColumns(p, nrow, ncol), nrow+2, ncol)
}

// notAKnotAz is notAKnot2D's second pass: the not-a-knot solve along each
// row of the row-major nrow × ncol plane a (the za pass's coefficients),
// giving nrow × (ncol+2) coefficients.
func notAKnotAz(a []float64, nrow, ncol int) []float64 {
	t := make([]float64, len(a))
	transpose(t, a, nrow, ncol)
	b := notAKnotColumns(t, ncol, nrow) // (ncol+2) × nrow
	out := make([]float64, len(b))
	transpose(out, b, ncol+2, nrow)
	return out
}

// notAKnotColumns solves the not-a-knot conditions (see notAKnot2D) along
// axis 0 of the row-major m × ncol plane y, m ≥ 4, for every column at
// once, and returns the (m+2) × ncol coefficients c_{−1} … c_m by rows.
//
// Eliminating c_{−1}, c_3 (rows 0 and 2) and c_0 + c_2 (row 1) from the
// first fourth-difference condition leaves c_1 = (8y_1 − y_0 − y_2)/6, and
// its mirror gives c_{m−2}; the rows 2 … m−3 are then a (1, 4, 1)
// tridiagonal system in c_2 … c_{m−3} (diagonally dominant: the Thomas
// algorithm is stable), and rows 1, 0, m−2, m−1 give c_0, c_{−1},
// c_{m−1}, c_m.
func notAKnotColumns(y []float64, m, ncol int) []float64 {
	out := make([]float64, (m+2)*ncol)
	yr := func(i int) []float64 { return y[i*ncol : (i+1)*ncol] }
	cr := func(j int) []float64 { return out[(j+1)*ncol : (j+2)*ncol] } // c_j
	c1, cm := cr(1), cr(m-2)
	y0, y1, y2 := yr(0), yr(1), yr(2)
	ya, yb, yc := yr(m-3), yr(m-2), yr(m-1)
	for k := range ncol {
		c1[k] = (8*y1[k] - y0[k] - y2[k]) / 6
		cm[k] = (8*yb[k] - ya[k] - yc[k]) / 6
	}
	// Thomas algorithm on c_2 … c_{m−3}: diag 4, off-diagonals 1.
	n := m - 4
	if n > 0 {
		dp := make([]float64, n) // the eliminated diagonal
		dp[0] = 4
		for i := 1; i < n; i++ {
			dp[i] = 4 - 1/dp[i-1]
		}
		for i := range n { // forward sweep: c_{2+i} holds the modified rhs
			ci, yi := cr(2+i), yr(2+i)
			for k := range ncol {
				ci[k] = 6 * yi[k]
			}
			if i == 0 {
				for k := range ncol {
					ci[k] -= c1[k]
				}
			} else {
				prev := cr(1 + i)
				f := 1 / dp[i-1]
				for k := range ncol {
					ci[k] -= f * prev[k]
				}
			}
			if i == n-1 {
				for k := range ncol {
					ci[k] -= cm[k]
				}
			}
		}
		last := cr(m - 3)
		for k := range ncol {
			last[k] /= dp[n-1]
		}
		for i := n - 2; i >= 0; i-- {
			ci, next := cr(2+i), cr(3+i)
			for k := range ncol {
				ci[k] = (ci[k] - next[k]) / dp[i]
			}
		}
	}
	c0, cneg, c2 := cr(0), cr(-1), cr(2)
	ce, cend, cm3 := cr(m-1), cr(m), cr(m-3)
	for k := range ncol {
		c0[k] = 6*y1[k] - 4*c1[k] - c2[k]
		cneg[k] = 6*y0[k] - 4*c0[k] - c1[k]
		ce[k] = 6*yb[k] - 4*cm[k] - cm3[k]
		cend[k] = 6*yc[k] - 4*ce[k] - cm[k]
	}
	return out
}

// nodeDist is the distance, in steps, from fractional index c to the
// nearest of the samples lo, lo+1, …, hi.
func nodeDist(c float64, lo, hi int) float64 {
	switch {
	case c < float64(lo):
		return float64(lo) - c
	case c > float64(hi):
		return c - float64(hi)
	}
	return math.Abs(c - math.Round(c))
}

// clampedWeights is axisWeights for az_za_simple: c is first clamped to
// the data samples [e, n−1−e] of a table of n coefficients (e = 1 for the
// cubic's extra coefficient at each end, 0 for order 1), as fitpack clamps
// arguments to its knot range; the last data sample is evaluated from the
// interval below it (fitpack's), so the footprint never leaves the table.
func clampedWeights(c float64, n, order int, idx *[4]int, w *[4]float64) {
	e := 0
	if order == 3 {
		e = 1
	}
	c = max(float64(e), min(c, float64(n-1-e)))
	fl := math.Floor(c)
	start := int(fl)
	if start > n-2-e {
		start = n - 2 - e
	}
	x := c - float64(start)
	if order == 1 {
		w[0] = 1 - x
		w[1] = 1 - w[0]
	} else {
		start--
		*w = CubicWeights(x)
	}
	for k := 0; k <= order; k++ {
		idx[k] = start + k
	}
}

// locateClamped is locate for az_za_simple geometries: a direction whose
// nearest (extended) grid sample is farther than g.cover — pyuvdata's
// check_azza_domain test, 2 × the larger of the first az and za steps,
// where pyuvdata raises — is marked outside (Eval gives 0 there);
// otherwise it is clamped to the grid and located.
func locateClamped(g *pointGeom, az, za []float64, pts []gridPoint) {
	e := 0
	if g.order == 3 {
		e = 1
	}
	var iz, ia [4]int
	for i := range pts {
		pt := &pts[i]
		cz := (za[i] - g.zaMin) * g.zaScale
		ca := (az[i] - g.azMin) * g.azScale
		dz := nodeDist(cz, e, g.nza-1-e) * g.zaStep
		da := nodeDist(ca, e, g.naz-1-e) * g.azStep
		if !(dz*dz+da*da <= g.cover*g.cover) { // NaN too
			pt.row[0] = -1
			continue
		}
		clampedWeights(cz, g.nza, g.order, &iz, &pt.wz)
		clampedWeights(ca, g.naz, g.order, &ia, &pt.wa)
		for k := 0; k <= g.order; k++ {
			pt.row[k] = int32(iz[k] * g.naz)
			pt.col[k] = int32(ia[k])
		}
	}
}
