package astro

// nutLSTerm is one luni-solar term of the IAU 2000A nutation series:
// multipliers of the Delaunay arguments l, l', F, D, Ω, then the longitude
// sine, t·sine and cosine coefficients and the obliquity cosine, t·cosine and
// sine coefficients (units of 0.1 µas).
type nutLSTerm struct {
	nl, nlp, nf, nd, nom int8
	sp, spt, cp          float64
	ce, cet, se          float64
}

// nutPLTerm is one planetary term of the IAU 2000A nutation series:
// multipliers of l, F, D, Ω, the longitudes of Mercury … Neptune and the
// general precession p_A, then the longitude sine and cosine and the
// obliquity sine and cosine coefficients (units of 0.1 µas).
type nutPLTerm struct {
	n              [13]int8
	sp, cp, se, ce float64
}

// s06Term is one periodic term of the CIO locator series: multipliers of
// l, l', F, D, Ω, L_Ve, L_E, p_A and the sine and cosine coefficients
// (arcseconds).
type s06Term struct {
	n    [8]int8
	s, c float64
}
