package astro

import "math"

// Constants of the IAU/IERS conventions (values as in IAU SOFA, IERS
// Conventions 2010 and the IAU 2012 astronomical unit).
const (
	twoPi     = 2 * math.Pi
	das2r     = 4.848136811095359935899141e-6 // arcseconds to radians
	turnAS    = 1296000.0                     // arcseconds in a full circle
	daySec    = 86400.0                       // seconds per day
	djy       = 365.25                        // days per Julian year
	djc       = 36525.0                       // days per Julian century
	djm       = 365250.0                      // days per Julian millennium
	dj00      = 2451545.0                     // J2000.0 as a Julian date
	djm0      = 2400000.5                     // MJD zero point as a Julian date
	ttMinusTA = 32.184                        // TT − TAI, seconds
	auM       = 149597870.7e3                 // astronomical unit, m (IAU 2012 B2)
	cLight    = 299792458.0                   // speed of light, m/s
	auLightS  = auM / cLight                  // light time for 1 au, s
	srs       = 1.97412574336e-8              // Schwarzschild radius of the Sun, au
	// Earth rotation rate in radians per UT1 second (IERS Conventions 2010, eq. 5.15).
	omegaEarth = 1.00273781191135448 * twoPi / daySec
)

// WGS84 ellipsoid (NIMA TR8350.2).
const (
	wgs84A = 6378137.0
	wgs84F = 1 / 298.257223563
)

// anp normalises an angle into [0, 2π).
func anp(a float64) float64 {
	w := math.Mod(a, twoPi)
	if w < 0 {
		w += twoPi
	}
	return w
}

// anpm normalises an angle into [−π, π).
func anpm(a float64) float64 {
	w := math.Mod(a, twoPi)
	if math.Abs(w) >= math.Pi {
		if a < 0 {
			w += twoPi
		} else {
			w -= twoPi
		}
	}
	return w
}

// Fundamental arguments of the IERS Conventions 2003/2010 (section 5.7),
// t in Julian centuries of TDB (≈TT) since J2000.0; results in radians.

// delaunayPoly evaluates an arcsecond polynomial, wraps it to one turn and
// converts it to radians.
func delaunayPoly(t, c0, c1, c2, c3, c4 float64) float64 {
	return math.Mod(c0+t*(c1+t*(c2+t*(c3+t*c4))), turnAS) * das2r
}

// faL is the mean anomaly of the Moon.
func faL(t float64) float64 {
	return delaunayPoly(t, 485868.249036, 1717915923.2178, 31.8792, 0.051635, -0.00024470)
}

// faLp is the mean anomaly of the Sun.
func faLp(t float64) float64 {
	return delaunayPoly(t, 1287104.793048, 129596581.0481, -0.5532, 0.000136, -0.00001149)
}

// faF is the mean longitude of the Moon minus that of its ascending node.
func faF(t float64) float64 {
	return delaunayPoly(t, 335779.526232, 1739527262.8478, -12.7512, -0.001037, 0.00000417)
}

// faD is the mean elongation of the Moon from the Sun.
func faD(t float64) float64 {
	return delaunayPoly(t, 1072260.703692, 1602961601.2090, -6.3706, 0.006593, -0.00003169)
}

// faOm is the mean longitude of the Moon's ascending node.
func faOm(t float64) float64 {
	return delaunayPoly(t, 450160.398036, -6962890.5431, 7.4722, 0.007702, -0.00005939)
}

// Planetary mean longitudes (Souchay et al. 1999) and general precession.
func faMe(t float64) float64 { return math.Mod(4.402608842+2608.7903141574*t, twoPi) }
func faVe(t float64) float64 { return math.Mod(3.176146697+1021.3285546211*t, twoPi) }
func faE(t float64) float64  { return math.Mod(1.753470314+628.3075849991*t, twoPi) }
func faMa(t float64) float64 { return math.Mod(6.203480913+334.0612426700*t, twoPi) }
func faJu(t float64) float64 { return math.Mod(0.599546497+52.9690962641*t, twoPi) }
func faSa(t float64) float64 { return math.Mod(0.874016757+21.3299104960*t, twoPi) }
func faUr(t float64) float64 { return math.Mod(5.481293872+7.4781598567*t, twoPi) }
func faPa(t float64) float64 { return (0.024381750 + 0.00000538691*t) * t }

// centuries returns Julian centuries since J2000.0 of a two-part date.
func centuries(d1, d2 float64) float64 { return ((d1 - dj00) + d2) / djc }

// nut00a returns the IAU 2000A nutation in longitude and obliquity
// (radians) at the two-part TT date d1+d2 (MHB2000 model: the luni-solar
// part with IERS 2003 / MHB2000 arguments and the planetary part with its
// own MHB2000 arguments, as the model defines them).
func nut00a(d1, d2 float64) (dpsi, deps float64) {
	const u2r = das2r / 1e7 // 0.1 µas to radians
	t := centuries(d1, d2)

	// Luni-solar arguments: l, F, Ω from IERS 2003; l', D from MHB2000.
	el := faL(t)
	elp := delaunayPoly(t, 1287104.79305, 129596581.0481, -0.5532, 0.000136, -0.00001149)
	f := faF(t)
	d := delaunayPoly(t, 1072260.70369, 1602961601.2090, -6.3706, 0.006593, -0.00003169)
	om := faOm(t)

	var dp, de float64
	for i := len(nutLS) - 1; i >= 0; i-- {
		x := &nutLS[i]
		arg := math.Mod(float64(x.nl)*el+float64(x.nlp)*elp+float64(x.nf)*f+float64(x.nd)*d+float64(x.nom)*om, twoPi)
		s, c := math.Sincos(arg)
		dp += (x.sp+x.spt*t)*s + x.cp*c
		de += (x.ce+x.cet*t)*c + x.se*s
	}
	dpsiLS, depsLS := dp*u2r, de*u2r

	// Planetary arguments (MHB2000 Delaunay variants, IERS 2003 planets,
	// MHB2000 Neptune).
	var a [13]float64
	a[0] = math.Mod(2.35555598+8328.6914269554*t, twoPi)
	a[1] = math.Mod(1.627905234+8433.466158131*t, twoPi)
	a[2] = math.Mod(5.198466741+7771.3771468121*t, twoPi)
	a[3] = math.Mod(2.18243920-33.757045*t, twoPi)
	a[4] = faMe(t)
	a[5] = faVe(t)
	a[6] = faE(t)
	a[7] = faMa(t)
	a[8] = faJu(t)
	a[9] = faSa(t)
	a[10] = faUr(t)
	a[11] = math.Mod(5.321159000+3.8127774000*t, twoPi)
	a[12] = faPa(t)

	dp, de = 0, 0
	for i := len(nutPL) - 1; i >= 0; i-- {
		x := &nutPL[i]
		var arg float64
		for k := 0; k < 13; k++ {
			arg += float64(x.n[k]) * a[k]
		}
		s, c := math.Sincos(math.Mod(arg, twoPi))
		dp += x.sp*s + x.cp*c
		de += x.se*s + x.ce*c
	}
	return dpsiLS + dp*u2r, depsLS + de*u2r
}

// nut06a is IAU 2000A nutation with the IAU 2006 (P03) adjustments
// (Wallace & Capitaine 2006, eq. 5).
func nut06a(d1, d2 float64) (dpsi, deps float64) {
	t := centuries(d1, d2)
	fj2 := -2.7774e-6 * t
	dp, de := nut00a(d1, d2)
	return dp + dp*(0.4697e-6+fj2), de + de*fj2
}

// obl06 is the IAU 2006 mean obliquity of the ecliptic (radians).
func obl06(d1, d2 float64) float64 {
	t := centuries(d1, d2)
	return (84381.406 + (-46.836769+(-0.0001831+(0.00200340+(-0.000000576+(-0.0000000434)*t)*t)*t)*t)*t) * das2r
}

// pfw06 returns the IAU 2006 Fukushima-Williams bias-precession angles
// γ̄, φ̄, ψ̄ and the mean obliquity ε_A (radians).
func pfw06(d1, d2 float64) (gamb, phib, psib, epsa float64) {
	t := centuries(d1, d2)
	gamb = (-0.052928 + (10.556378+(0.4932044+(-0.00031238+(-0.000002788+(0.0000000260)*t)*t)*t)*t)*t) * das2r
	phib = (84381.412819 + (-46.811016+(0.0511268+(0.00053289+(-0.000000440+(-0.0000000176)*t)*t)*t)*t)*t) * das2r
	psib = (-0.041775 + (5038.481484+(1.5584175+(-0.00018522+(-0.000026452+(-0.0000000148)*t)*t)*t)*t)*t) * das2r
	return gamb, phib, psib, obl06(d1, d2)
}

// pnm06a is the IAU 2006/2000A bias-precession-nutation matrix (GCRS to
// true equator and equinox of date).
func pnm06a(d1, d2 float64) mat3 {
	gamb, phib, psib, epsa := pfw06(d1, d2)
	dp, de := nut06a(d1, d2)
	return fw2m(gamb, phib, psib+dp, epsa+de)
}

// fw2m forms the rotation matrix from Fukushima-Williams angles:
// R_x(−ε)·R_z(−ψ)·R_x(φ)·R_z(γ).
func fw2m(gamb, phib, psi, eps float64) mat3 {
	r := identity()
	r.rotZ(gamb)
	r.rotX(phib)
	r.rotZ(-psi)
	r.rotX(-eps)
	return r
}

// s06 is the IAU 2006 CIO locator s (radians) given the CIP X, Y.
func s06(d1, d2, x, y float64) float64 {
	t := centuries(d1, d2)
	fa := [8]float64{faL(t), faLp(t), faF(t), faD(t), faOm(t), faVe(t), faE(t), faPa(t)}
	sum := func(terms []s06Term) float64 {
		var w float64
		for i := len(terms) - 1; i >= 0; i-- {
			var a float64
			for j := 0; j < 8; j++ {
				a += float64(terms[i].n[j]) * fa[j]
			}
			s, c := math.Sincos(a)
			w += terms[i].s*s + terms[i].c*c
		}
		return w
	}
	w0 := s06Poly[0] + sum(s06T0[:])
	w1 := s06Poly[1] + sum(s06T1[:])
	w2 := s06Poly[2] + sum(s06T2[:])
	w3 := s06Poly[3] + sum(s06T3[:])
	w4 := s06Poly[4] + sum(s06T4[:])
	w5 := s06Poly[5]
	return (w0+(w1+(w2+(w3+(w4+w5*t)*t)*t)*t)*t)*das2r - x*y/2
}

// era00 is the Earth rotation angle (IAU 2000) at the two-part UT1 date.
func era00(d1, d2 float64) float64 {
	a, b := d1, d2
	if a > b {
		a, b = b, a
	}
	t := a + (b - dj00)
	f := math.Mod(a, 1) + math.Mod(b, 1)
	return anp(twoPi * (f + 0.7790572732640 + 0.00273781191135448*t))
}

// sp00 is the TIO locator s' (radians), IERS Conventions 2003/2010.
func sp00(d1, d2 float64) float64 {
	return -47e-6 * centuries(d1, d2) * das2r
}
