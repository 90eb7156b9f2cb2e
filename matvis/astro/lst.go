package astro

import (
	"fmt"
	"math"
)

// ApparentLST is the local apparent sidereal time (radians, [0, 2π)) at the
// UTC Julian date jdUTC and east longitude lonRad, as pyuvdata's
// get_lst_for_time computes the UVH5 lst_array with ERFA: Greenwich
// apparent sidereal time (IAU 2006/2000A, ERFA gst06a: the Earth rotation
// angle minus the equation of the origins) plus the TIO locator s′ plus
// the longitude. UT1 − UTC comes from eop; polar motion, which pyuvdata
// leaves out as below the IERS accuracy, is not used.
func ApparentLST(jdUTC, lonRad float64, eop EOP) (float64, error) {
	if !finite(jdUTC) || !finite(lonRad) || !finite(eop.UT1MinusUTCSec) {
		return 0, fmt.Errorf("astro: LST at jd = %v, longitude %v rad, UT1−UTC %v s: not finite", jdUTC, lonRad, eop.UT1MinusUTCSec)
	}
	e, err := newEpoch(jdUTC, eop.UT1MinusUTCSec)
	if err != nil {
		return 0, fmt.Errorf("astro: LST at jd = %v: %w", jdUTC, err)
	}
	rnpb := pnm06a(e.tt1, e.tt2)
	x, y := rnpb[2][0], rnpb[2][1]
	s := s06(e.tt1, e.tt2, x, y)
	gst := anp(era00(e.ut11, e.ut12) - eors(rnpb, s))
	return anp(gst + sp00(e.tt1, e.tt2) + lonRad), nil
}

// eors is the equation of the origins (ERFA eors, Wallace & Capitaine
// 2006 eq. 16) from the bias-precession-nutation matrix and the CIO
// locator s.
func eors(rnpb mat3, s float64) float64 {
	x := rnpb[2][0]
	ax := x / (1 + rnpb[2][2])
	xs, ys, zs := 1-ax*x, -ax*rnpb[2][1], -x
	p := rnpb[0][0]*xs + rnpb[0][1]*ys + rnpb[0][2]*zs
	q := rnpb[1][0]*xs + rnpb[1][1]*ys + rnpb[1][2]*zs
	if p == 0 && q == 0 {
		return s
	}
	return s - math.Atan2(q, p)
}
