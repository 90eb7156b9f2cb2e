package beam

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// This file tests az_za_simple against a slow twin written from the
// definition of what pyuvdata 2.4's _interp_az_za_rect_spline computes:
// the azimuth axis extended as pyuvdata extends it (3 columns each side,
// placed at −az[2]−Δ, −az[1]−Δ, −az[0]−Δ and az[−3:]+3Δ), then
// scipy.interpolate.RectBivariateSpline(za, az, plane, kx=3, ky=3, s=0):
// fitpack's interpolating knot vector (the end samples four times, the
// interior samples but the 2nd and second-to-last once), B-splines by the
// Cox–de Boor recursion, coefficients by a dense solve of the collocation
// systems, and evaluation at arguments clamped to the knot range.

// twinKnots is fitpack's knot vector of the s = 0 cubic interpolant on
// samples x: x₀ four times, x₂ … x_{m−3}, x_{m−1} four times.
func twinKnots(x []float64) []float64 {
	m := len(x)
	t := []float64{x[0], x[0], x[0], x[0]}
	t = append(t, x[2:m-2]...)
	return append(t, x[m-1], x[m-1], x[m-1], x[m-1])
}

// twinBSpline is B_{i,k}(v) on knots t by the Cox–de Boor recursion, the
// degree-0 splines being the indicators of [t_i, t_{i+1}) except that of
// the last non-empty interval, which is closed (so the right end has a
// value); 0/0 terms are 0.
func twinBSpline(t []float64, i, k int, v float64) float64 {
	if k == 0 {
		last := len(t) - 1
		for last > 0 && t[last-1] == t[last] {
			last--
		}
		if t[i] <= v && (v < t[i+1] || (i+1 == last && v == t[i+1])) {
			return 1
		}
		return 0
	}
	var s float64
	if d := t[i+k] - t[i]; d != 0 {
		s += (v - t[i]) / d * twinBSpline(t, i, k-1, v)
	}
	if d := t[i+k+1] - t[i+1]; d != 0 {
		s += (t[i+k+1] - v) / d * twinBSpline(t, i+1, k-1, v)
	}
	return s
}

// twinSolve solves a·x = b (n × n, row-major; both copied) by Gaussian
// elimination with partial pivoting.
func twinSolve(a0, b0 []float64, n int) []float64 {
	a := append([]float64(nil), a0...)
	b := append([]float64(nil), b0...)
	for k := range n {
		p := k
		for r := k + 1; r < n; r++ {
			if math.Abs(a[r*n+k]) > math.Abs(a[p*n+k]) {
				p = r
			}
		}
		for c := range n {
			a[k*n+c], a[p*n+c] = a[p*n+c], a[k*n+c]
		}
		b[k], b[p] = b[p], b[k]
		for r := k + 1; r < n; r++ {
			f := a[r*n+k] / a[k*n+k]
			for c := k; c < n; c++ {
				a[r*n+c] -= f * a[k*n+c]
			}
			b[r] -= f * b[k]
		}
	}
	for k := n - 1; k >= 0; k-- {
		s := b[k]
		for c := k + 1; c < n; c++ {
			s -= a[k*n+c] * b[c]
		}
		b[k] = s / a[k*n+k]
	}
	return b
}

// twinSpline is one RectBivariateSpline(x, y, z, kx=3, ky=3, s=0).
type twinSpline struct {
	x, y, tx, ty []float64
	c            []float64 // len(x) × len(y)
}

// newTwinSpline fits z (row-major len(x) × len(y)): C = Aₓ⁻¹ Z A_yᵀ⁻¹ with
// A_{ij} = B_j(sample i), by dense solves along each axis.
func newTwinSpline(x, y, z []float64) *twinSpline {
	s := &twinSpline{x: x, y: y, tx: twinKnots(x), ty: twinKnots(y)}
	m, n := len(x), len(y)
	colloc := func(v, t []float64) []float64 {
		a := make([]float64, len(v)*len(v))
		for i, vi := range v {
			for j := range v {
				a[i*len(v)+j] = twinBSpline(t, j, 3, vi)
			}
		}
		return a
	}
	ax, ay := colloc(x, s.tx), colloc(y, s.ty)
	tmp := make([]float64, m*n) // Aₓ⁻¹ Z, column by column
	col := make([]float64, m)
	for j := range n {
		for i := range m {
			col[i] = z[i*n+j]
		}
		sol := twinSolve(ax, col, m)
		for i := range m {
			tmp[i*n+j] = sol[i]
		}
	}
	s.c = make([]float64, m*n) // then each row times A_y⁻ᵀ
	for i := range m {
		sol := twinSolve(ay, tmp[i*n:(i+1)*n], n)
		copy(s.c[i*n:], sol)
	}
	return s
}

// at evaluates the spline at (u, v) clamped to [x₀, x_last] × [y₀, y_last].
func (s *twinSpline) at(u, v float64) float64 {
	u = max(s.x[0], min(u, s.x[len(s.x)-1]))
	v = max(s.y[0], min(v, s.y[len(s.y)-1]))
	n := len(s.y)
	var sum float64
	for i := range s.x {
		bi := twinBSpline(s.tx, i, 3, u)
		if bi == 0 {
			continue
		}
		for j := range s.y {
			sum += bi * s.c[i*n+j] * twinBSpline(s.ty, j, 3, v)
		}
	}
	return sum
}

// twinPlane is what pyuvdata fits for one plane (row-major za × az): the
// azimuth samples and data extended when the axis wraps.
func twinPlane(az []float64, wraps bool, plane []float64, nza int) (phi, data []float64) {
	naz := len(az)
	if !wraps {
		return az, plane
	}
	d := az[1] - az[0]
	phi = []float64{-az[2] - d, -az[1] - d, -az[0] - d}
	phi = append(phi, az...)
	phi = append(phi, az[naz-3]+3*d, az[naz-2]+3*d, az[naz-1]+3*d)
	n := naz + 6
	data = make([]float64, nza*n)
	for r := range nza {
		row := plane[r*naz : (r+1)*naz]
		o := data[r*n : (r+1)*n]
		copy(o[:3], row[naz-3:])
		copy(o[3:3+naz], row)
		copy(o[3+naz:], row[:3])
	}
	return phi, data
}

// twinEval is pyuvdata's az_za_simple at (az[s], za[s]) for the raw plane
// (vec, comp, channel 0) of g, real and imaginary parts separately.
func twinEval(g *Gridded, vec, comp int, az, za []float64) []complex128 {
	nza, naz := len(g.spec.ZaRad), len(g.spec.AzRad)
	re := make([]float64, nza*naz)
	im := make([]float64, nza*naz)
	base := g.planeStart(vec, comp, 0)
	for i := range re {
		re[i], im[i] = g.value(base + i)
	}
	phi, dre := twinPlane(g.spec.AzRad, g.Wraps(), re, nza)
	_, dim := twinPlane(g.spec.AzRad, g.Wraps(), im, nza)
	sr := newTwinSpline(g.spec.ZaRad, phi, dre)
	si := newTwinSpline(g.spec.ZaRad, phi, dim)
	out := make([]complex128, len(az))
	for s := range az {
		out[s] = complex(sr.at(za[s], az[s]), si.at(za[s], az[s]))
	}
	return out
}

// azzaPoints are n random directions, za over [0, zaMax] and az over
// [0, 2π), a third of them within two grid steps of the wrap (az near 0
// or near 2π).
func azzaPoints(rng *rand.Rand, n int, zaMax, step float64) (az, za []float64) {
	for i := range n {
		a := rng.Float64() * 2 * math.Pi
		switch i % 3 {
		case 1:
			a = rng.Float64() * 2 * step
		case 2:
			a = 2*math.Pi - rng.Float64()*2*step
		}
		az = append(az, a)
		za = append(za, rng.Float64()*zaMax)
	}
	return az, za
}

// mustAzZa is g with az_za_simple.
func mustAzZa(t *testing.T, g *Gridded) *Gridded {
	t.Helper()
	s, err := g.WithSpatialInterp(SpatialAzZaSimple)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestAzZaSimpleTwin: az_za_simple against the slow twin on random
// directions over za 0–90°, all azimuths and across the wrap, for a
// complex E-field beam (polarized: 4 planes) and a power beam (unpolarized:
// the square root of the interpolated power), on a grid that reaches 90°
// and one that stops at 80° (directions past it are clamped), wrapping and
// not. Float64: ≤ 1e-12 of the data's scale; float32 planes: ≤ 1e-6.
func TestAzZaSimpleTwin(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 1))
	cases := []struct {
		name  string
		az    []float64
		zaTop float64 // degrees
		nza   int
	}{
		{"wrap/za0-90", linspace(0, 2*math.Pi, 37)[:36], 90, 19},
		{"wrap/za0-80", linspace(0, 2*math.Pi, 31)[:30], 80, 9},
		{"nowrap/az0-180", linspace(0, math.Pi, 13), 90, 10},
		{"wrap/small", linspace(0, 2*math.Pi, 5)[:4], 90, 4},
	}
	for _, c := range cases {
		za := linspace(0, c.zaTop*math.Pi/180, c.nza)
		for _, typ := range []GridType{EField, Power} {
			for _, prec := range []int{2, 1} {
				t.Run(c.name+"/"+typ.String()+map[int]string{1: "/fp32", 2: "/fp64"}[prec], func(t *testing.T) {
					g0, _ := randomBeam(t, typ, c.az, za, []float64{1e8}, rng.Uint64())
					g0, err := g0.WithPrecision(prec)
					if err != nil {
						t.Fatal(err)
					}
					g := mustAzZa(t, g0)
					az, zap := azzaPoints(rng, 300, math.Pi/2, c.az[1]-c.az[0])
					if !g.Wraps() { // inside the azimuth range (pyuvdata refuses far outside)
						for i := range az {
							az[i] = rng.Float64() * math.Pi
						}
					}
					mode := Mode{Polarized: typ == EField}
					r, err := g.Prepare(1e8, mode)
					if err != nil {
						t.Fatal(err)
					}
					n := len(az)
					got := make([]complex128, mode.Components()*n)
					r.Eval(az, zap, got)
					tol := 1e-12
					if prec == 1 {
						tol = 1e-6
					}
					var worst float64
					for p, src := range mustSources(t, g, mode) {
						want := twinEval(g, src.vec, src.comp, az, zap)
						for s := range n {
							w := want[s]
							if !mode.Polarized {
								w = complex(math.Sqrt(real(w)), 0)
							}
							worst = max(worst, cdiff(got[p*n+s], w))
						}
					}
					// The data are O(1) (|re|, |im| ≤ 1; power 0.5 … 1.5).
					if worst > tol {
						t.Errorf("largest |az_za_simple − twin| = %.3g, want ≤ %g", worst, tol)
					}
					t.Logf("largest |az_za_simple − twin| = %.3g", worst)
				})
			}
		}
	}
}

// mustSources is the planes a mode interpolates.
func mustSources(t *testing.T, g *Gridded, mode Mode) []planeSrc {
	t.Helper()
	srcs, _, err := g.planeSources(mode)
	if err != nil {
		t.Fatal(err)
	}
	return srcs
}

// TestAzZaSimpleBicubic: the not-a-knot bicubic spline reproduces any
// bicubic polynomial p(za, az) = Σ a_ij za^i az^j (i, j ≤ 3) exactly on a
// grid that does not wrap (extending a wrapping one breaks the
// polynomial), inside the grid and — by the clamp — at the clamped point
// beyond it.
func TestAzZaSimpleBicubic(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 2))
	az := linspace(0.2, 2.0, 10)
	za := linspace(0, 1.2, 7)
	var a [4][4]float64
	for i := range a {
		for j := range a[i] {
			a[i][j] = rng.Float64()*2 - 1
		}
	}
	poly := func(z, x float64) float64 {
		s := 100.0 // > Σ|a_ij| za^i az^j: positive, so Eval's square root is real
		for i := range 4 {
			for j := range 4 {
				s += a[i][j] * math.Pow(z, float64(i)) * math.Pow(x, float64(j))
			}
		}
		return s
	}
	data := make([]complex128, len(za)*len(az))
	for i, z := range za {
		for j, x := range az {
			data[i*len(az)+j] = complex(poly(z, x), 0)
		}
	}
	g0, err := NewGridded(GridSpec{Name: "bicubic", Type: Power, AzRad: az, ZaRad: za, FreqsHz: []float64{1e8}, Pols: []int{PolXX}, NAxesVec: 1}, data)
	if err != nil {
		t.Fatal(err)
	}
	g := mustAzZa(t, g0)
	r, err := g.Prepare(1e8, Mode{})
	if err != nil {
		t.Fatal(err)
	}
	var paz, pza, want []float64
	for range 500 {
		x, z := 0.2+1.8*rng.Float64(), 1.2*rng.Float64()
		paz, pza, want = append(paz, x), append(pza, z), append(want, poly(z, x))
	}
	// Beyond the grid (within pyuvdata's cover of 2 steps): the clamped point.
	paz, pza, want = append(paz, 2.1), append(pza, 1.3), append(want, poly(1.2, 2.0))
	got := make([]complex128, len(paz))
	r.Eval(paz, pza, got)
	for s := range got {
		// Eval square-roots power: compare squares.
		if d := math.Abs(real(got[s])*real(got[s]) - want[s]); !(d <= 1e-12*want[s]) {
			t.Errorf("(az, za) = (%.4f, %.4f): %.15g, want %.15g", paz[s], pza[s], real(got[s])*real(got[s]), want[s])
		}
	}
}

// TestAzZaSimpleGridValues: at the grid samples az_za_simple returns the
// samples (an interpolating spline), across the azimuth wrap too.
func TestAzZaSimpleGridValues(t *testing.T) {
	for _, wrap := range []bool{true, false} {
		az, za := testGrid(24, 11, wrap)
		g0, data := randomBeam(t, EField, az, za, []float64{1e8}, 3)
		g := mustAzZa(t, g0)
		r, err := g.Prepare(1e8, Mode{Polarized: true})
		if err != nil {
			t.Fatal(err)
		}
		var pa, pz []float64
		for j := range za {
			for i := range az {
				pa, pz = append(pa, az[i]), append(pz, za[j])
			}
		}
		n := len(pa)
		out := make([]complex128, 4*n)
		r.Eval(pa, pz, out)
		np := len(az) * len(za)
		var worst float64
		for f := range 2 {
			for k := range 2 {
				for s := range n {
					want := data[(k*2+f)*np+s] // layout [vec][comp][freq=0][za][az]
					worst = max(worst, cdiff(out[(2*f+k)*n+s], want))
				}
			}
		}
		if worst > 1e-12 {
			t.Errorf("wrap %v: largest |value − sample| at the samples = %.3g, want ≤ 1e-12", wrap, worst)
		}
	}
}

// TestAzZaSimpleOutside: a direction farther than pyuvdata's cover (2 × the
// larger step) from every sample gives 0 (pyuvdata raises there); one
// inside it is clamped.
func TestAzZaSimpleOutside(t *testing.T) {
	az := linspace(0, 2*math.Pi, 37)[:36] // 10°
	za := linspace(0, 80*math.Pi/180, 17) // 5°
	g0, _ := randomBeam(t, Power, az, za, []float64{1e8}, 4)
	r, err := mustAzZa(t, g0).Prepare(1e8, Mode{})
	if err != nil {
		t.Fatal(err)
	}
	deg := math.Pi / 180
	out := make([]complex128, 3)
	r.Eval([]float64{1, 1, 1}, []float64{80 * deg, 99 * deg, 101 * deg}, out)
	if cdiff(out[0], out[1]) > 1e-14 {
		t.Errorf("za 99° (19° past the grid, inside the 20° cover): %v, want the clamped value at 80°, %v", out[1], out[0])
	}
	if out[2] != 0 {
		t.Errorf("za 101° (21° past the grid, outside the 20° cover): %v, want 0", out[2])
	}
}

// TestAzZaSimpleErrors: grids az_za_simple cannot interpolate are refused
// with the value that fails.
func TestAzZaSimpleErrors(t *testing.T) {
	wrap := linspace(0, 2*math.Pi, 37)[:36]
	za := linspace(0, math.Pi/2, 10)
	shifted := make([]float64, len(wrap))
	for i, v := range wrap {
		shifted[i] = v + 5*math.Pi/180
	}
	uneven := append([]float64(nil), za...)
	uneven[4] += 1e-7 * (za[1] - za[0]) // accepted by NewGridded (1e-6), not here
	cases := []struct {
		name    string
		az, za  []float64
		kind    string
		wantErr string
	}{
		{"few za", wrap, za[:3], SpatialAzZaSimple, "3 samples"},
		{"few az", linspace(0, 1, 3), za, SpatialAzZaSimple, "azimuth axis has 3 samples"},
		{"uneven za", wrap, uneven, SpatialAzZaSimple, "zenith-angle step 4"},
		{"wrap not at 0", shifted, za, SpatialAzZaSimple, "starts at 0.0872"},
		{"unknown kind", wrap, za, "bicubic", `"bicubic"`},
	}
	// E-field beams with basis vectors: aligned (a negative component
	// passes pyuvdata's "> 0" test) and not.
	for _, tc := range []struct {
		v01     float64
		wantErr string
	}{{0, ""}, {-0.5, ""}, {0.25, "component [0, 1] at pixel 7 is 0.25"}} {
		naz, nza := len(wrap), len(za)
		np := naz * nza
		basis := make([]float64, 2*2*np)
		for i := range np {
			basis[i], basis[3*np+i] = 1, 1 // θ̂ on axis 0, φ̂ on axis 1
		}
		basis[np+7] = tc.v01
		spec := GridSpec{Name: "basis", Type: EField, AzRad: wrap, ZaRad: za, FreqsHz: []float64{1e8}, Feeds: []string{"x", "y"}, NAxesVec: 2, Basis: basis}
		g, err := NewGridded(spec, make([]complex128, 2*2*np))
		if err != nil {
			t.Fatal(err)
		}
		_, err = g.WithSpatialInterp(SpatialAzZaSimple)
		if (tc.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("basis [0, 1] pixel 7 = %v: error %v, want %q", tc.v01, err, tc.wantErr)
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, _ := randomBeam(t, Power, c.az, c.za, []float64{1e8}, 5)
			_, err := g.WithSpatialInterp(c.kind)
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, c.wantErr)
			}
		})
	}
}

// TestMapCoordinatesUnchanged: choosing map_coordinates explicitly gives
// bit for bit the default's values, and SpatialInterp names both.
func TestMapCoordinatesUnchanged(t *testing.T) {
	az, za := testGrid(24, 11, true)
	g, _ := randomBeam(t, EField, az, za, []float64{1e8}, 6)
	m, err := mustAzZa(t, g).WithSpatialInterp(SpatialMapCoordinates)
	if err != nil {
		t.Fatal(err)
	}
	if g.SpatialInterp() != SpatialMapCoordinates || mustAzZa(t, g).SpatialInterp() != SpatialAzZaSimple {
		t.Fatalf("SpatialInterp: %q, %q", g.SpatialInterp(), mustAzZa(t, g).SpatialInterp())
	}
	rng := rand.New(rand.NewPCG(27, 6))
	pa, pz := azzaPoints(rng, 200, math.Pi/2, az[1]-az[0])
	mode := Mode{Polarized: true}
	want := make([]complex128, 4*len(pa))
	got := make([]complex128, 4*len(pa))
	r0, _ := g.Prepare(1e8, mode)
	r1, _ := m.Prepare(1e8, mode)
	r0.Eval(pa, pz, want)
	r1.Eval(pa, pz, got)
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("value %d: %v, want %v", i, got[i], want[i])
		}
	}
}

// TestAzZaSimpleLinear: with spline order 1 (spline_interp_opts kx = ky =
// 1) RectBivariateSpline with s = 0 is the bilinear interpolant of the
// samples, so inside the grid az_za_simple equals map_coordinates' order 1
// (bilinear, tested against scipy elsewhere); past the last zenith angle
// it is clamped where map_coordinates gives 0.
func TestAzZaSimpleLinear(t *testing.T) {
	az := linspace(0, 2*math.Pi, 37)[:36]
	za := linspace(0, 80*math.Pi/180, 17)
	g0, _ := randomBeam(t, EField, az, za, []float64{1e8}, 7)
	lin, err := g0.WithOrder(1)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(27, 7))
	pa, pz := azzaPoints(rng, 300, 80*math.Pi/180, az[1]-az[0])
	pa, pz = append(pa, 1, 1), append(pz, 80*math.Pi/180, 85*math.Pi/180)
	n := len(pa)
	mode := Mode{Polarized: true}
	want := make([]complex128, 4*n)
	got := make([]complex128, 4*n)
	r0, _ := lin.Prepare(1e8, mode)
	r1, err := mustAzZa(t, lin).Prepare(1e8, mode)
	if err != nil {
		t.Fatal(err)
	}
	r0.Eval(pa, pz, want)
	r1.Eval(pa, pz, got)
	for p := range 4 {
		for s := range n - 1 {
			if d := cdiff(got[p*n+s], want[p*n+s]); d > 1e-14 {
				t.Errorf("component %d, (az, za) = (%.4f, %.4f): %v, bilinear %v", p, pa[s], pz[s], got[p*n+s], want[p*n+s])
			}
		}
		if d := cdiff(got[p*n+n-1], want[p*n+n-2]); d > 1e-14 || want[p*n+n-1] != 0 {
			t.Errorf("component %d at za 85°: %v, want the clamped %v (map_coordinates: %v, want 0)", p, got[p*n+n-1], want[p*n+n-2], want[p*n+n-1])
		}
	}
}

// TestChannelParts: a beam channel's parts are, at that channel's
// frequency, Prepare's planes (real, then imaginary parts), for
// az_za_simple and map_coordinates, polarized and not, at the edge and
// continued through the pole.
func TestChannelParts(t *testing.T) {
	az, za := testGrid(24, 11, true)
	freqs := []float64{1e8, 1.1e8, 1.2e8}
	for _, typ := range []GridType{EField, Power} {
		g0, _ := randomBeam(t, typ, az, za, freqs, 8)
		for _, g := range []*Gridded{g0, mustAzZa(t, g0), mustPole(t, g0), mustPole(t, mustAzZa(t, g0))} {
			mode := Mode{Polarized: typ == EField}
			for j, f := range freqs {
				parts, err := g.ChannelParts(j, mode)
				if err != nil {
					t.Fatal(err)
				}
				r, err := g.Prepare(f, mode)
				if err != nil {
					t.Fatal(err)
				}
				var want [][]float64
				for _, pl := range r.Planes() {
					want = append(want, pl.Re)
					if pl.Im != nil {
						want = append(want, pl.Im)
					}
				}
				if len(parts) != len(want) {
					t.Fatalf("%s %s channel %d: %d parts, want %d", typ, g.SpatialInterp(), j, len(parts), len(want))
				}
				for p := range want {
					if gr := r.Grid(); len(parts[p]) != gr.NZa*gr.NAz {
						t.Fatalf("part %d: %d values, want %d × %d", p, len(parts[p]), gr.NZa, gr.NAz)
					}
					for i := range want[p] {
						if parts[p][i] != want[p][i] {
							t.Fatalf("%s %s channel %d part %d value %d: %v, Prepare %v", typ, g.SpatialInterp(), j, p, i, parts[p][i], want[p][i])
						}
					}
				}
			}
			if _, err := g.ChannelParts(3, mode0(typ)); err == nil || !strings.Contains(err.Error(), "channel 3 of 3") {
				t.Errorf("channel 3 of 3: error %v", err)
			}
		}
	}
}

func mode0(typ GridType) Mode { return Mode{Polarized: typ == EField} }

// mustPole is g continued through the pole (WithPole), where it must apply.
func mustPole(t *testing.T, g *Gridded) *Gridded {
	t.Helper()
	c, err := g.WithPole(PoleContinued)
	if err != nil {
		t.Fatal(err)
	}
	if ok, why := c.PoleApplies(mode0(g.Type())); !ok {
		t.Fatalf("%s: the continuation does not apply: %s", g, why)
	}
	return c
}
