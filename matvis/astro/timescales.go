package astro

import (
	"errors"
	"fmt"
	"math"
)

// leapEntry is one line of the TAI − UTC history: from 0h UTC of the first
// day of year/month on, TAI − UTC = dat + (MJD − driftRef) · drift seconds.
type leapEntry struct {
	year, month int
	dat         float64
	driftRef    float64 // MJD
	drift       float64 // s/day (0 after 1972)
}

// leapTable is the TAI − UTC history. Sources: the USNO table tai-utc.dat
// (1961–1972 rubber-second era, with the 1960 start from the Explanatory
// Supplement to the Astronomical Almanac, 1992, table 2.58.1) and IERS
// Bulletin C (integer leap seconds from 1972; the last change, to 37 s, at
// 2017 January 1, announced in Bulletin C 52). Bulletin C 70 (July 2025)
// announced no leap second at the end of December 2025, so the table is
// valid up to leapTableExpiresMJD.
var leapTable = [...]leapEntry{
	{1960, 1, 1.4178180, 37300, 0.0012960},
	{1961, 1, 1.4228180, 37300, 0.0012960},
	{1961, 8, 1.3728180, 37300, 0.0012960},
	{1962, 1, 1.8458580, 37665, 0.0011232},
	{1963, 11, 1.9458580, 37665, 0.0011232},
	{1964, 1, 3.2401300, 38761, 0.0012960},
	{1964, 4, 3.3401300, 38761, 0.0012960},
	{1964, 9, 3.4401300, 38761, 0.0012960},
	{1965, 1, 3.5401300, 38761, 0.0012960},
	{1965, 3, 3.6401300, 38761, 0.0012960},
	{1965, 7, 3.7401300, 38761, 0.0012960},
	{1965, 9, 3.8401300, 38761, 0.0012960},
	{1966, 1, 4.3131700, 39126, 0.0025920},
	{1968, 2, 4.2131700, 39126, 0.0025920},
	{1972, 1, 10, 0, 0},
	{1972, 7, 11, 0, 0},
	{1973, 1, 12, 0, 0},
	{1974, 1, 13, 0, 0},
	{1975, 1, 14, 0, 0},
	{1976, 1, 15, 0, 0},
	{1977, 1, 16, 0, 0},
	{1978, 1, 17, 0, 0},
	{1979, 1, 18, 0, 0},
	{1980, 1, 19, 0, 0},
	{1981, 7, 20, 0, 0},
	{1982, 7, 21, 0, 0},
	{1983, 7, 22, 0, 0},
	{1985, 7, 23, 0, 0},
	{1988, 1, 24, 0, 0},
	{1990, 1, 25, 0, 0},
	{1991, 1, 26, 0, 0},
	{1992, 7, 27, 0, 0},
	{1993, 7, 28, 0, 0},
	{1994, 7, 29, 0, 0},
	{1996, 1, 30, 0, 0},
	{1997, 7, 31, 0, 0},
	{1999, 1, 32, 0, 0},
	{2006, 1, 33, 0, 0},
	{2009, 1, 34, 0, 0},
	{2012, 7, 35, 0, 0},
	{2015, 7, 36, 0, 0},
	{2017, 1, 37, 0, 0},
}

// LeapTableExpiresJD is the UTC Julian date up to which the built-in
// leap-second table is known to be complete (2026 June 28, the expiry date
// of the IERS Leap_Second.dat issued after Bulletin C 70). Later times use
// the last TAI − UTC value and are reported as stale.
const LeapTableExpiresJD = 2461219.5

// MinJD is the earliest UTC Julian date this package accepts
// (1960 January 1, 0h UTC: the start of the UTC/TAI table).
const MinJD = 2436934.5

// MaxJD is the latest UTC Julian date this package accepts (year 3000);
// beyond 2100 the EPV00 ephemeris already degrades and a warning is given.
const MaxJD = 2816787.5

// ErrBeforeUTC is wrapped by errors for dates before 1960, where UTC is
// not defined.
var ErrBeforeUTC = errors.New("date before 1960 January 1 (UTC undefined)")

// cal2mjd is the Modified Julian Date of 0h on a Gregorian calendar date
// (valid for years after −4799; Fliegel & Van Flandern 1968).
func cal2mjd(y, m, d int) float64 {
	my := (m - 14) / 12
	iypmy := y + my
	return float64((1461*(iypmy+4800))/4 + (367*(m-2-12*my))/12 - (3*((iypmy+4900)/100))/4 + d - 2432076)
}

// jd2cal splits a two-part Julian date into Gregorian calendar date and the
// fraction of the day since 0h, carrying the day count exactly.
func jd2cal(d1, d2 float64) (y, m, d int, fd float64) {
	n1 := math.Round(d1)
	n2 := math.Round(d2)
	jd := int64(n1) + int64(n2)
	f1 := d1 - n1
	f2 := d2 - n2
	// f1 + f2 + 0.5 with the rounding error kept.
	s := 0.5 + f1
	cs := (0.5 - s) + f1
	t := s + f2
	if math.Abs(s) >= math.Abs(f2) {
		cs += (s - t) + f2
	} else {
		cs += (f2 - t) + s
	}
	f := t + cs
	for f < 0 {
		f++
		jd--
	}
	for f >= 1 {
		f--
		jd++
	}
	// Fliegel & Van Flandern (1968), integer arithmetic.
	l := jd + 68569
	n := (4 * l) / 146097
	l -= (146097*n + 3) / 4
	i := (4000 * (l + 1)) / 1461001
	l -= (1461*i)/4 - 31
	k := (80 * l) / 2447
	d = int(l - (2447*k)/80)
	l = k / 11
	m = int(k + 2 - 12*l)
	y = int(100*(n-49) + i + l)
	return y, m, d, f
}

// datAt returns TAI − UTC (s) on a calendar date at day fraction fd, whether
// the date is past the table's validity, or an error before 1960.
func datAt(y, m, d int, fd float64) (dat float64, stale bool, err error) {
	key := 12*y + m
	i := len(leapTable) - 1
	for ; i >= 0; i-- {
		if key >= 12*leapTable[i].year+leapTable[i].month {
			break
		}
	}
	if i < 0 {
		return 0, false, fmt.Errorf("astro: %04d-%02d-%02d: %w", y, m, d, ErrBeforeUTC)
	}
	e := leapTable[i]
	dat = e.dat
	if e.drift != 0 {
		dat += (cal2mjd(y, m, d) + fd - e.driftRef) * e.drift
	}
	stale = cal2mjd(y, m, d)+fd > LeapTableExpiresJD-djm0
	return dat, stale, nil
}

// TAIminusUTC returns TAI − UTC in seconds at the UTC Julian date jdUTC,
// from the built-in leap-second table (with the 1960–1971 drift formulas).
// stale is true after LeapTableExpiresJD, where the last known value is
// returned (as astropy does, with a warning). Dates before 1960 and
// non-finite dates are errors.
func TAIminusUTC(jdUTC float64) (sec float64, stale bool, err error) {
	if math.IsNaN(jdUTC) || math.IsInf(jdUTC, 0) {
		return 0, false, fmt.Errorf("astro: TAIminusUTC: jd = %v is not finite", jdUTC)
	}
	y, m, d, fd := jd2cal(jdUTC, 0)
	return datAt(y, m, d, fd)
}

// epoch holds the time scales of one instant as two-part Julian dates.
type epoch struct {
	utc1, utc2 float64
	tai1, tai2 float64
	tt1, tt2   float64
	tdb1, tdb2 float64
	ut11, ut12 float64
	dat        float64 // TAI − UTC at 0h of the UTC day, s
	stale      bool
}

// newEpoch converts a UTC Julian date (one float64, split as astropy does
// into an integer day and a fraction) and UT1 − UTC to all time scales,
// following the ERFA utctai/utcut1 rules (leap-second days are stretched,
// pre-1972 UTC seconds are scaled).
func newEpoch(jd, dut1 float64) (epoch, error) {
	u1 := math.RoundToEven(jd)
	return newEpochSplit(u1, jd-u1, dut1) // jd − u1 is exact
}

// newEpochSplit is newEpoch for a two-part UTC date u1 + u2 with |u1| ≥ |u2|.
func newEpochSplit(u1, u2, dut1 float64) (epoch, error) {
	var ep epoch
	ep.utc1, ep.utc2 = u1, u2
	y, m, d, fd := jd2cal(u1, u2)
	dat0, stale, err := datAt(y, m, d, 0)
	if err != nil {
		return ep, err
	}
	dat12, _, err := datAt(y, m, d, 0.5)
	if err != nil {
		return ep, err
	}
	yt, mt, dt, _ := jd2cal(u1+1.5, u2-fd)
	dat24, _, err := datAt(yt, mt, dt, 0)
	if err != nil {
		return ep, err
	}
	dlod := 2 * (dat12 - dat0)
	dleap := dat24 - (dat0 + dlod)
	fd *= (daySec + dleap) / daySec
	fd *= (daySec + dlod) / daySec
	z := cal2mjd(y, m, d)
	a2 := (djm0 - u1) + z
	a2 += fd + dat0/daySec
	ep.tai1, ep.tai2 = u1, a2
	ep.tt1, ep.tt2 = u1, a2+ttMinusTA/daySec
	ep.ut11, ep.ut12 = u1, a2+(dut1-dat0)/daySec
	ep.tdb1, ep.tdb2 = ep.tt1, ep.tt2+dtdbApprox(ep.tt1, ep.tt2)/daySec
	ep.dat = dat0
	ep.stale = stale
	return ep, nil
}

// taiSecondsSince returns (e − o) in TAI seconds.
func (e *epoch) taiSecondsSince(o *epoch) float64 {
	return ((e.tai1 - o.tai1) + (e.tai2 - o.tai2)) * daySec
}
