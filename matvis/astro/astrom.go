package astro

import "math"

// astrom holds the star-independent astrometry parameters of one epoch and
// site for ICRS ↔ observed transformations (the quantities of the ERFA
// "astrom" context that this package needs).
type astrom struct {
	pmt    float64 // time since J2000.0, Julian years (proper motion; kept for tests)
	eb     vec3    // observer barycentric position, au
	eh     vec3    // heliocentric direction of the observer (unit vector)
	em     float64 // observer–Sun distance, au
	v      vec3    // observer barycentric velocity, units of c
	bm1    float64 // sqrt(1 − |v|²), reciprocal Lorentz factor
	bpn    mat3    // GCRS → CIRS (CIO-based bias-precession-nutation)
	along  float64 // adjusted longitude, rad
	xpl    float64 // polar motion x w.r.t. the local meridian, rad
	ypl    float64 // polar motion y w.r.t. the local meridian, rad
	sphi   float64 // sin of geodetic latitude
	cphi   float64 // cos of geodetic latitude
	diurab float64 // diurnal aberration magnitude (0 when folded into v)
	eral   float64 // local Earth rotation angle, rad
	refa   float64 // refraction constant A (tan z term), rad
	refb   float64 // refraction constant B (tan³ z term), rad
}

// apcs fills the ICRS ↔ GCRS part of the context for an observer at
// geocentric position pv (m) and velocity vv (m/s, GCRS), given the Earth's
// barycentric position/velocity (au, au/day) and heliocentric position (au).
func (a *astrom) apcs(d1, d2 float64, pv, vv, ebp, ebv, ehp vec3) {
	const auPerDayMS = auM / daySec // au/day in m/s
	const cr = auLightS / daySec    // light time for 1 au, days
	a.pmt = ((d1 - dj00) + d2) / djy
	var pb, vb, ph vec3
	for i := 0; i < 3; i++ {
		dp := pv[i] / auM
		dv := vv[i] / auPerDayMS
		pb[i] = ebp[i] + dp
		vb[i] = ebv[i] + dv
		ph[i] = ehp[i] + dp
	}
	a.eb = pb
	a.em, a.eh = norm(ph)
	var v2 float64
	for i := 0; i < 3; i++ {
		w := vb[i] * cr
		a.v[i] = w
		v2 += w * w
	}
	a.bm1 = math.Sqrt(1 - v2)
	a.bpn = identity()
}

// apco fills the full context for a terrestrial observer: TT date d1+d2,
// Earth barycentric position/velocity and heliocentric position, CIP X, Y,
// CIO locator s, Earth rotation angle theta, site (longitude, geodetic
// latitude in radians, height in m), polar motion xp, yp (rad), TIO locator
// sp and refraction constants (the ERFA eraApco algorithm).
func (a *astrom) apco(d1, d2 float64, ebp, ebv, ehp vec3, x, y, s, theta, elong, phi, hm, xp, yp, sp, refa, refb float64) {
	// CIRS → apparent [HA, Dec] rotation, to extract the local angles.
	r := identity()
	r.rotZ(theta + sp)
	r.rotY(-xp)
	r.rotX(-yp)
	r.rotZ(elong)
	u, w := r[0][0], r[0][1]
	var eral float64
	if u != 0 || w != 0 {
		eral = math.Atan2(w, u)
	}
	a.eral = eral
	a.xpl = math.Atan2(r[0][2], math.Sqrt(u*u+w*w))
	u, w = r[1][2], r[2][2]
	if u != 0 || w != 0 {
		a.ypl = -math.Atan2(u, w)
	} else {
		a.ypl = 0
	}
	a.along = anpm(eral - theta)
	a.sphi, a.cphi = math.Sincos(phi)
	a.refa, a.refb = refa, refb
	a.diurab = 0 // diurnal aberration is in v through the observer velocity

	bpn := c2ixys(x, y, s)
	pc, vc := pvtob(elong, phi, hm, xp, yp, sp, theta)
	pg, vg := bpn.applyT(pc), bpn.applyT(vc)
	a.apcs(d1, d2, pg, vg, ebp, ebv, ehp)
	a.bpn = bpn
}

// ld applies light deflection by one body (mass bm in solar masses) to the
// natural direction p of a source whose direction from the body is q, with
// e the unit vector from the body to the observer, em that distance (au) and
// dlim the deflection limiter.
func ld(bm float64, p, q, e vec3, em, dlim float64) vec3 {
	qpe := vec3{q[0] + e[0], q[1] + e[1], q[2] + e[2]}
	w := bm * srs / em / math.Max(dot(q, qpe), dlim)
	peq := cross(p, cross(e, q))
	return vec3{p[0] + w*peq[0], p[1] + w*peq[1], p[2] + w*peq[2]}
}

// ab applies stellar aberration (relativistic, with the Sun's potential
// term) to the natural direction pnat for an observer moving at v (units of
// c), s the Sun distance (au) and bm1 = sqrt(1 − |v|²).
func ab(pnat, v vec3, s, bm1 float64) vec3 {
	pdv := dot(pnat, v)
	w1 := 1 + pdv/(1+bm1)
	w2 := srs / s
	var p vec3
	for i := 0; i < 3; i++ {
		p[i] = pnat[i]*bm1 + w1*v[i] + w2*(v[i]-pdv*pnat[i])
	}
	_, u := norm(p)
	return u
}

// atciqz transforms an ICRS direction (star at infinity, no proper motion)
// to CIRS (ri, di) as astropy does: Sun light deflection, aberration,
// bias-precession-nutation.
func (a *astrom) atciqz(rc, dc float64) (ri, di float64) {
	pco := s2c(rc, dc)
	pnat := ld(1, pco, pco, a.eh, a.em, 1e-6)
	ppr := ab(pnat, a.v, a.em, a.bm1)
	pi := a.bpn.apply(ppr)
	w, d := c2s(pi)
	return anp(w), d
}

// atioq transforms CIRS (ri, di) to observed azimuth (N = 0, E = 90°) and
// zenith distance, with the ERFA eraAtioq model (polar motion, diurnal
// aberration, refraction constants refa/refb).
func (a *astrom) atioq(ri, di float64) (aob, zob float64) {
	const celmin, selmin = 1e-6, 0.05
	v := s2c(ri-a.eral, di)
	x, y, z := v[0], v[1], v[2]
	sx, cx := math.Sincos(a.xpl)
	sy, cy := math.Sincos(a.ypl)
	xhd := cx*x + sx*z
	yhd := sx*sy*x + cy*y - cx*sy*z
	zhd := -sx*cy*x + sy*y + cx*cy*z
	f := 1 - a.diurab*yhd
	xhdt := f * xhd
	yhdt := f * (yhd + a.diurab)
	zhdt := f * zhd
	xaet := a.sphi*xhdt - a.cphi*zhdt
	yaet := yhdt
	zaet := a.cphi*xhdt + a.sphi*zhdt
	var azobs float64
	if xaet != 0 || yaet != 0 {
		azobs = math.Atan2(yaet, -xaet)
	}
	r := math.Max(math.Sqrt(xaet*xaet+yaet*yaet), celmin)
	zz := math.Max(zaet, selmin)
	tz := r / zz
	w := a.refb * tz * tz
	del := (a.refa + w) * tz / (1 + (a.refa+3*w)/(zz*zz))
	cdel := 1 - del*del/2
	f = cdel - del*zz/r
	xaeo := xaet * f
	yaeo := yaet * f
	zaeo := cdel*zaet + del*r
	zdobs := math.Atan2(math.Sqrt(xaeo*xaeo+yaeo*yaeo), zaeo)
	return anp(azobs), zdobs
}
