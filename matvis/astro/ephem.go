package astro

import "math"

// epv00 returns the Earth's heliocentric position (au) and velocity (au/day)
// and its barycentric position and velocity, in the BCRS, at the two-part
// TDB date d1+d2, from the EPV00 series (P. Bretagnon's VSOP2000-based fit
// distributed with IAU SOFA). Quoted accuracy against DE405 over 1900–2100:
// position ≈ 4.6 km (helio) / 4.6 km (bary), velocity ≈ 1.4 mm/s (helio) /
// 1.3 mm/s (bary); this is the ephemeris astropy uses by default.
func epv00(d1, d2 float64) (ph, vh, pb, vb vec3) {
	t := ((d1 - dj00) + d2) / djy
	t2 := t * t

	// series evaluates Σ a·tⁿ·cos(b + c·t) and its time derivative.
	series := func(rows [][3]float64, pow int, p, v *float64) {
		for _, r := range rows {
			a, b, c := r[0], r[1], r[2]
			ct := c * t
			s, co := math.Sincos(b + ct)
			switch pow {
			case 0:
				*p += a * co
				*v -= a * c * s
			case 1:
				*p += a * t * co
				*v += a * (co - ct*s)
			case 2:
				*p += a * t2 * co
				*v += a * t * (2*co - ct*s)
			}
		}
	}
	e := [3][3][][3]float64{
		{epvE0x[:], epvE1x[:], epvE2x[:]},
		{epvE0y[:], epvE1y[:], epvE2y[:]},
		{epvE0z[:], epvE1z[:], epvE2z[:]},
	}
	s := [3][3][][3]float64{
		{epvS0x[:], epvS1x[:], epvS2x[:]},
		{epvS0y[:], epvS1y[:], epvS2y[:]},
		{epvS0z[:], epvS1z[:], epvS2z[:]},
	}
	var eph, evh, epb, evb vec3 // ecliptic (dynamical, J2000) frame
	for i := 0; i < 3; i++ {
		var p, v float64
		for pw := 0; pw < 3; pw++ {
			series(e[i][pw], pw, &p, &v)
		}
		eph[i], evh[i] = p, v/djy
		for pw := 0; pw < 3; pw++ {
			series(s[i][pw], pw, &p, &v)
		}
		epb[i], evb[i] = p, v/djy
	}
	// Rotation from the EPV00 ecliptic frame to the BCRS (part of the
	// published model).
	rot := mat3{
		{1, 0.000000211284, -0.000000091603},
		{-0.000000230286, 0.917482137087, -0.397776982902},
		{0, 0.397776982902, 0.917482137087},
	}
	return rot.apply(eph), rot.apply(evh), rot.apply(epb), rot.apply(evb)
}

// gd2gc converts WGS84 geodetic longitude, latitude (radians) and height
// (m) to geocentric Cartesian coordinates (m).
func gd2gc(elong, phi, height float64) vec3 {
	sp, cp := math.Sincos(phi)
	w := (1 - wgs84F) * (1 - wgs84F)
	d := cp*cp + w*sp*sp
	ac := wgs84A / math.Sqrt(d)
	as := w * ac
	r := (ac + height) * cp
	se, ce := math.Sincos(elong)
	return vec3{r * ce, r * se, (as + height) * sp}
}

// pom00 is the polar-motion matrix W = R_x(−y_p)·R_y(−x_p)·R_z(s')
// (ITRS to TIRS is its transpose's inverse; IERS Conventions 2010 eq. 5.3).
func pom00(xp, yp, sp float64) mat3 {
	r := identity()
	r.rotZ(sp)
	r.rotY(-xp)
	r.rotX(-yp)
	return r
}

// c2ixys is the celestial-to-intermediate matrix from the CIP X, Y and the
// CIO locator s (IERS Conventions 2010 eq. 5.7).
func c2ixys(x, y, s float64) mat3 {
	r2 := x*x + y*y
	var e float64
	if r2 > 0 {
		e = math.Atan2(y, x)
	}
	d := math.Atan(math.Sqrt(r2 / (1 - r2)))
	r := identity()
	r.rotZ(e)
	r.rotY(d)
	r.rotZ(-(e + s))
	return r
}

// pvtob is the position (m) and velocity (m/s) of a terrestrial observer
// in the CIRS, given the site, polar motion, s' and the Earth rotation angle.
func pvtob(elong, phi, hm, xp, yp, sp, theta float64) (p, v vec3) {
	w := pom00(xp, yp, sp)
	xyz := w.applyT(gd2gc(elong, phi, hm))
	s, c := math.Sincos(theta)
	x, y, z := xyz[0], xyz[1], xyz[2]
	p = vec3{c*x - s*y, s*x + c*y, z}
	v = vec3{omegaEarth * (-s*x - c*y), omegaEarth * (c*x - s*y), 0}
	return p, v
}

// dtdbApprox is TDB − TT (seconds) at the two-part TT date, from the
// largest terms of the Fairhead & Bretagnon (1990) series (the geocentric
// part; terms below 1 µs and the topocentric terms, ≤ 2 µs, are omitted).
// Omitted terms total < 20 µs, which moves the Earth by < 0.6 m along its
// orbit: a direction change below 1e-11 rad in light deflection and a
// velocity change below 1e-6 m/s, far below anything visible in this package.
func dtdbApprox(d1, d2 float64) float64 {
	t := ((d1 - dj00) + d2) / djm // Julian millennia
	terms := [...][3]float64{
		{1656.674564e-6, 6283.075849991, 6.240054195},
		{22.417471e-6, 5753.384884897, 4.296977442},
		{13.839792e-6, 12566.151699983, 6.196904410},
		{4.770086e-6, 529.690965095, 0.444401603},
		{4.676740e-6, 6069.776754553, 4.021195093},
		{2.256707e-6, 213.299095438, 5.543113262},
		{1.694205e-6, -3.523118349, 5.025132748},
		{1.554905e-6, 77713.771467920, 5.198467090},
		{1.276839e-6, 7860.419392439, 5.988822341},
		{1.193379e-6, 5223.693919802, 3.649823730},
		{1.115322e-6, 3930.209696220, 1.422745069},
	}
	var w float64
	for _, r := range terms {
		w += r[0] * math.Sin(r[1]*t+r[2])
	}
	// Leading T^1 term.
	w += t * 102.156724e-6 * math.Sin(6283.075849991*t+4.249032005)
	return w
}
