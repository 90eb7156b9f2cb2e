package astro

import "math"

// Observer converts between ICRS and apparent (topocentric, current-epoch)
// right ascension and declination for one site and UTC instant, as
// pyuvdata 2.4 does when it phases (utils.transform_icrs_to_app and
// transform_app_to_icrs with the default "erfa" library), and finds the
// ICRS position of the zenith as pyuvdata's phase_to_time does (astropy's
// AltAz → ICRS).
//
// "Apparent" is pyuvdata's meaning: ERFA atco13's observed place without
// refraction (light deflection, annual and diurnal aberration, precession,
// nutation and polar motion applied), with its CIO-based right ascension
// turned equinox-based by subtracting the equation of the origins.
type Observer struct {
	erfa    astrom  // eraApco13's context: Earth ephemeris at TT
	eo      float64 // equation of the origins, rad
	astropy astrom  // astropy's AltAz context: Earth ephemeris at TDB
}

// NewObserver builds the astrometry of site at the UTC Julian date jdUTC
// with the Earth-orientation values eop (UT1 − UTC and polar motion, as
// astropy interpolates them from its IERS table).
func NewObserver(site Site, jdUTC float64, eop EOP) (*Observer, error) {
	b, err := newBase(Config{Site: site, TimesJD: []float64{jdUTC}, EOP: []EOP{eop}}, nil, nil)
	if err != nil {
		return nil, err
	}
	o := &Observer{astropy: *b.astromAt(0)}
	// eraApco13: as astromAt, but ERFA evaluates the Earth ephemeris at TT
	// where astropy uses TDB (a 1.7 ms difference in time).
	ep := &b.epochs[0]
	ph, _, pb, vb := epv00(ep.tt1, ep.tt2)
	rbpn := pnm06a(ep.tt1, ep.tt2)
	x, y := rbpn[2][0], rbpn[2][1]
	s := s06(ep.tt1, ep.tt2, x, y)
	o.erfa.apco(ep.tt1, ep.tt2, pb, vb, ph, x, y, s, era00(ep.ut11, ep.ut12), b.elong, b.phi, b.hm,
		eop.XpArcsec*das2r, eop.YpArcsec*das2r, sp00(ep.tt1, ep.tt2), 0, 0)
	o.eo = eors(rbpn, s)
	return o, nil
}

// ICRSToApparent is pyuvdata's transform_icrs_to_app for one position
// (radians; no proper motion, parallax or radial velocity): ERFA atco13
// with zero refraction, app_ra = rob − eo wrapped to [0, 2π), app_dec = dob.
func (o *Observer) ICRSToApparent(ra, dec float64) (appRA, appDec float64) {
	ri, di := o.erfa.atciq(ra, dec)
	aob, zob := o.erfa.atioq(ri, di)
	_, dob, rob := o.erfa.observedHADec(aob, zob)
	return anp(rob - o.eo), dob
}

// ApparentToICRS is pyuvdata's transform_app_to_icrs for one position
// (radians): ERFA atoc13 of type "R" at app_ra + eo.
func (o *Observer) ApparentToICRS(appRA, appDec float64) (ra, dec float64) {
	ri, di := o.erfa.atoiq('R', appRA+o.eo, appDec)
	return o.erfa.aticq(ri, di, ldsunLimit(o.erfa.em))
}

// ZenithICRS is the ICRS position (radians) of the site's zenith, as
// pyuvdata's phase_to_time computes it: astropy's AltAz(alt = 90°, az = 0)
// transformed to ICRS (atoiq of type "A", then astropy's aticq, whose light
// deflection uses a fixed 1e-6 limiter).
func (o *Observer) ZenithICRS() (ra, dec float64) {
	ri, di := o.astropy.atoiq('A', 0, 0)
	return o.astropy.aticq(ri, di, 1e-6)
}

// ldsunLimit is ERFA ldsun's deflection limiter for an observer em au from
// the Sun.
func ldsunLimit(em float64) float64 {
	return 1e-6 / math.Max(em*em, 1)
}

// atciq is ERFA atciq for a star at infinity without proper motion: light
// deflection by the Sun (ERFA ldsun's limiter), aberration and
// bias-precession-nutation, ICRS → CIRS.
func (a *astrom) atciq(rc, dc float64) (ri, di float64) {
	pco := s2c(rc, dc)
	pnat := ld(1, pco, pco, a.eh, a.em, ldsunLimit(a.em))
	ppr := ab(pnat, a.v, a.em, a.bm1)
	w, d := c2s(a.bpn.apply(ppr))
	return anp(w), d
}

// observedHADec completes ERFA atioq: from the observed azimuth (N = 0,
// E = 90°) and zenith distance it returns the observed hour angle,
// declination and CIO-based right ascension. atioq's own Az/El vector is
// rebuilt from the angles, which costs an ulp or two.
func (a *astrom) observedHADec(aob, zob float64) (hob, dob, rob float64) {
	sz, cz := math.Sincos(zob)
	sa, ca := math.Sincos(aob)
	xaeo, yaeo, zaeo := -ca*sz, sa*sz, cz // Az/El, S = 0, E = 90°
	v := vec3{a.sphi*xaeo + a.cphi*zaeo, yaeo, -a.cphi*xaeo + a.sphi*zaeo}
	hmobs, dcobs := c2s(v)
	return -hmobs, dcobs, anp(a.eral + hmobs)
}

// atoiq is ERFA atoiq: observed place → CIRS. typ is 'R' (ob1 = CIO-based
// right ascension, ob2 = declination), 'H' (hour angle, declination) or
// 'A' (azimuth N = 0, E = 90°, zenith distance).
func (a *astrom) atoiq(typ byte, ob1, ob2 float64) (ri, di float64) {
	const selmin = 0.05
	sphi, cphi := a.sphi, a.cphi
	var xaeo, yaeo, zaeo float64
	if typ == 'A' {
		ce := math.Sin(ob2)
		xaeo, yaeo, zaeo = -math.Cos(ob1)*ce, math.Sin(ob1)*ce, math.Cos(ob2)
	} else {
		if typ == 'R' {
			ob1 = a.eral - ob1
		}
		v := s2c(-ob1, ob2)
		xaeo = sphi*v[0] - cphi*v[2]
		yaeo = v[1]
		zaeo = cphi*v[0] + sphi*v[2]
	}
	var az float64
	if xaeo != 0 || yaeo != 0 {
		az = math.Atan2(yaeo, xaeo)
	}
	sz := math.Sqrt(xaeo*xaeo + yaeo*yaeo)
	zdo := math.Atan2(sz, zaeo)
	tz := sz / math.Max(zaeo, selmin)
	zdt := zdo + (a.refa+a.refb*tz*tz)*tz
	ce := math.Sin(zdt)
	xaet, yaet, zaet := math.Cos(az)*ce, math.Sin(az)*ce, math.Cos(zdt)
	xmhda := sphi*xaet + cphi*zaet
	ymhda := yaet
	zmhda := -cphi*xaet + sphi*zaet
	f := 1 + a.diurab*ymhda
	xhd, yhd, zhd := f*xmhda, f*(ymhda-a.diurab), f*zmhda
	sx, cx := math.Sincos(a.xpl)
	sy, cy := math.Sincos(a.ypl)
	v := vec3{cx*xhd + sx*sy*yhd - sx*cy*zhd, cy*yhd + sy*zhd, sx*xhd - cx*sy*yhd + cx*cy*zhd}
	hma, d := c2s(v)
	return anp(a.eral + hma), d
}

// aticq is ERFA aticq (astropy's aticq with dlim = 1e-6): CIRS → ICRS for
// a star at infinity, inverting bias-precession-nutation, then aberration
// (two iterations) and light deflection by the Sun (five), with the
// deflection limiter dlim.
func (a *astrom) aticq(ri, di, dlim float64) (rc, dc float64) {
	ppr := a.bpn.applyT(s2c(ri, di))
	pnat := invertIter(ppr, 2, func(before vec3) vec3 { return ab(before, a.v, a.em, a.bm1) })
	pco := invertIter(pnat, 5, func(before vec3) vec3 { return ld(1, before, before, a.eh, a.em, dlim) })
	w, d := c2s(pco)
	return anp(w), d
}

// invertIter inverts a small displacement of unit vectors, p = f(q), by
// ERFA's fixed-point iteration: q = norm(p − (f(q′) − q′)) from q′ = p.
func invertIter(p vec3, n int, f func(vec3) vec3) vec3 {
	var d, q vec3
	for range n {
		_, before := norm(vec3{p[0] - d[0], p[1] - d[1], p[2] - d[2]})
		after := f(before)
		d = vec3{after[0] - before[0], after[1] - before[1], after[2] - before[2]}
		_, q = norm(vec3{p[0] - d[0], p[1] - d[1], p[2] - d[2]})
	}
	return q
}
