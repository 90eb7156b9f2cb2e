package astro

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// ParseC04 reads an IERS EOP C04 series (eopc04_IAU2000.62-now, the
// IERS-B table astropy bundles, or eopc04.1962-now): fixed columns as the
// file's FORMAT line and astropy's ReadMe.eopc04_IAU2000 give them —
// year 1–4, month 5–8, day 9–12, MJD 13–19 (I7), PM-x 20–30 and PM-y
// 31–41 (F11.6, arcsec), UT1−UTC 42–53 (F12.7, s), then LOD, dX, dY and
// the errors. Lines before the first data line (one whose year and MJD
// columns are integers) are the header; after it every non-blank line
// must be a data line, and a malformed one is an error naming its line
// number. All rows are final values (Predicted false).
func ParseC04(r io.Reader) (*EOPTable, error) {
	t := &EOPTable{}
	rows := rowAdder{t: t}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 512), 1<<20)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		_, errY := strconv.Atoi(field(line, 1, 4))
		mjdI, errM := strconv.Atoi(field(line, 13, 19))
		if len(t.MJD) == 0 && (errY != nil || errM != nil) {
			continue // header
		}
		if errY != nil || errM != nil || len(line) < 53 {
			return nil, fmt.Errorf("astro: C04 line %d: not a data line (year in columns 1-4, MJD in 13-19, UT1-UTC ending at column 53)", lineNo)
		}
		mjd := float64(mjdI)
		if mjd < eopMinMJD || mjd > eopMaxMJD {
			return nil, fmt.Errorf("astro: C04 line %d: MJD (columns 13-19) = %v: outside 1960–2500 (MJD %v to %v)", lineNo, mjd, eopMinMJD, eopMaxMJD)
		}
		var v [3]float64
		for k, c := range []struct {
			a, b int
			what string
		}{{20, 30, "PM-x (columns 20-30)"}, {31, 41, "PM-y (columns 31-41)"}, {42, 53, "UT1-UTC (columns 42-53)"}} {
			s := field(line, c.a, c.b)
			x, err := strconv.ParseFloat(s, 64)
			if err != nil || !finite(x) {
				return nil, fmt.Errorf("astro: C04 line %d: %s %q: not a finite number", lineNo, c.what, s)
			}
			v[k] = x
		}
		if err := rows.add(lineNo, mjd, v[0], v[1], v[2], false); err != nil {
			return nil, fmt.Errorf("astro: C04 line %d: %w", lineNo, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("astro: reading C04: %w", err)
	}
	if len(t.MJD) < 2 {
		return nil, fmt.Errorf("astro: C04: %d data rows, need at least 2", len(t.MJD))
	}
	return t, nil
}

// AstropyDefaultPolarMotion is the polar motion (arcsec) astropy takes for
// times outside its IERS table: _DEFAULT_PM, "the 50-yr mean" of
// astropy.coordinates.builtin_frames.utils.
var AstropyDefaultPolarMotion = [2]float64{0.035, 0.29}

// AtAstropy interpolates the table at the UTC Julian date jdUTC exactly
// as astropy's IERS._interpolate does: the row index is
// searchsorted(MJD, mjd, side="right") with mjd = floor(MJD) and the day
// fraction added apart, each column is blended linearly between the rows
// at and after the date, and the UT1 − UTC step loses its whole seconds
// (a leap second) first. inRange is false before the first row and at or
// after the last (astropy's TIME_BEFORE/BEYOND_IERS_RANGE); e then holds
// what astropy's coordinates use there: UT1 − UTC = 0 (its IERSRangeError
// caught, "Assuming UT1-UTC=0") and AstropyDefaultPolarMotion.
func (t *EOPTable) AtAstropy(jdUTC float64) (e EOP, inRange bool, err error) {
	if !finite(jdUTC) {
		return e, false, fmt.Errorf("astro: EOP at jd = %v: not finite", jdUTC)
	}
	n := len(t.MJD)
	if n < 2 || len(t.UT1MinusUTC) != n || len(t.XpArcsec) != n || len(t.YpArcsec) != n {
		return e, false, fmt.Errorf("astro: EOP table is malformed (%d rows, column lengths differ or < 2)", n)
	}
	mjd := math.Floor(jdUTC - djm0)
	utc := jdUTC - (djm0 + mjd)
	i := sort.Search(n, func(k int) bool { return t.MJD[k] > mjd })
	if i == 0 || i == n {
		return EOP{XpArcsec: AstropyDefaultPolarMotion[0], YpArcsec: AstropyDefaultPolarMotion[1]}, false, nil
	}
	f := (mjd - t.MJD[i-1] + utc) / (t.MJD[i] - t.MJD[i-1])
	du := t.UT1MinusUTC[i] - t.UT1MinusUTC[i-1]
	du -= math.RoundToEven(du) // numpy's round is half to even
	return EOP{
		UT1MinusUTCSec: t.UT1MinusUTC[i-1] + f*du,
		XpArcsec:       t.XpArcsec[i-1] + f*(t.XpArcsec[i]-t.XpArcsec[i-1]),
		YpArcsec:       t.YpArcsec[i-1] + f*(t.YpArcsec[i]-t.YpArcsec[i-1]),
	}, true, nil
}
