package astro

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// EOPTable is a daily table of Earth-orientation parameters, as read from
// an IERS finals2000A file, interpolated linearly in UTC MJD as astropy's
// IERS tables are.
type EOPTable struct {
	MJD         []float64 // UTC MJD of each row, strictly increasing
	UT1MinusUTC []float64 // seconds
	XpArcsec    []float64 // arcseconds
	YpArcsec    []float64 // arcseconds
	Predicted   []bool    // true where the row's values are Bulletin A predictions
}

// ErrOutsideEOPTable is wrapped by EOPTable.At for dates outside the table.
var ErrOutsideEOPTable = errors.New("date outside the EOP table")

// field returns the 1-based inclusive column range [a, b] of line, trimmed
// ("" when the line is shorter).
func field(line string, a, b int) string {
	if len(line) < a {
		return ""
	}
	return strings.TrimSpace(line[a-1 : min(b, len(line))])
}

// ParseFinals2000A reads an IERS finals2000A-format file (finals2000A.all,
// finals2000A.data, finals2000A.daily: fixed columns as documented in the
// IERS readme.finals2000A). Bulletin B values (columns 135–165) are used
// where present, Bulletin A values otherwise, as astropy's IERS_A does.
// Rows without UT1 − UTC or polar motion (the file's future end) are
// skipped. A malformed line is an error naming the line number.
func ParseFinals2000A(r io.Reader) (*EOPTable, error) {
	t := &EOPTable{}
	rows := rowAdder{t: t}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 512), 1<<20)
	lineNo := 0
	parse := func(s, what string) (float64, error) {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, fmt.Errorf("astro: finals2000A line %d: %s %q: %w", lineNo, what, s, err)
		}
		if !finite(v) {
			return 0, fmt.Errorf("astro: finals2000A line %d: %s = %v: not finite", lineNo, what, v)
		}
		return v, nil
	}
	for sc.Scan() {
		lineNo++
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if len(line) < 15 {
			return nil, fmt.Errorf("astro: finals2000A line %d: too short (%d characters) for an MJD in columns 8-15", lineNo, len(line))
		}
		mjd, err := parse(field(line, 8, 15), "MJD (columns 8-15)")
		if err != nil {
			return nil, err
		}
		if mjd < eopMinMJD || mjd > eopMaxMJD {
			return nil, fmt.Errorf("astro: finals2000A line %d: MJD (columns 8-15) = %v: outside 1960–2500 (MJD %v to %v)", lineNo, mjd, eopMinMJD, eopMaxMJD)
		}
		if err := wholeFields(line); err != nil {
			return nil, fmt.Errorf("astro: finals2000A line %d: %w", lineNo, err)
		}
		xa, ya, ua := field(line, 19, 27), field(line, 38, 46), field(line, 59, 68)
		xb, yb, ub := field(line, 135, 144), field(line, 145, 154), field(line, 155, 165)
		pred := field(line, 17, 17) == "P" || field(line, 58, 58) == "P"
		if xb != "" && yb != "" && ub != "" {
			xa, ya, ua = xb, yb, ub
			pred = false
		}
		if xa == "" || ya == "" || ua == "" {
			continue // no values yet for this date
		}
		x, err := parse(xa, "PM-x")
		if err != nil {
			return nil, err
		}
		y, err := parse(ya, "PM-y")
		if err != nil {
			return nil, err
		}
		u, err := parse(ua, "UT1-UTC")
		if err != nil {
			return nil, err
		}
		if err := rows.add(lineNo, mjd, x, y, u, pred); err != nil {
			return nil, fmt.Errorf("astro: finals2000A line %d: %w", lineNo, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("astro: reading finals2000A: %w", err)
	}
	if len(t.MJD) < 2 {
		return nil, fmt.Errorf("astro: finals2000A: %d usable rows, need at least 2", len(t.MJD))
	}
	return t, nil
}

// finalsFields are finals2000A's value columns (1-based, inclusive; the
// IERS readme.finals2000A): each is read only whole.
var finalsFields = []struct {
	a, b int
	what string
}{
	{19, 27, "Bulletin A PM-x"}, {38, 46, "Bulletin A PM-y"}, {59, 68, "Bulletin A UT1-UTC"},
	{135, 144, "Bulletin B PM-x"}, {145, 154, "Bulletin B PM-y"}, {155, 165, "Bulletin B UT1-UTC"},
}

// wholeFields refuses a line that ends inside a value field it has text
// in: the fields are right-aligned Fortran F formats, so a line cut there
// holds the value's first digits, which parse as another number (UT1-UTC
// "-0.0" from "-0.0054471"). Trailing blanks may be trimmed; a field left
// blank, or a line ending between fields, is whole.
func wholeFields(line string) error {
	for _, f := range finalsFields {
		if len(line) >= f.a && len(line) < f.b && field(line, f.a, f.b) != "" {
			return fmt.Errorf("%s (columns %d-%d) %q is cut short: the line ends at column %d, inside the field (is the file truncated? download finals2000A.all again)",
				f.what, f.a, f.b, field(line, f.a, f.b), len(line))
		}
	}
	return nil
}

// rowAdder adds a parser's rows to t, remembering the line of the last
// one so that a repeated date names both lines.
type rowAdder struct {
	t        *EOPTable
	lastLine int
}

// add adds the row of line lineNo. A row repeating the last one's date
// with the same values is skipped (a file joined from two overlapping
// downloads); with other values it is an error naming both lines, since
// either could be the one meant.
func (r *rowAdder) add(lineNo int, mjd, x, y, u float64, pred bool) error {
	t := r.t
	if n := len(t.MJD); n > 0 && mjd == t.MJD[n-1] {
		if x == t.XpArcsec[n-1] && y == t.YpArcsec[n-1] && u == t.UT1MinusUTC[n-1] {
			return nil
		}
		return fmt.Errorf("MJD %v is also on line %d, with other values (PM-x %v, PM-y %v, UT1-UTC %v there; %v, %v, %v here): keep one of the two lines",
			mjd, r.lastLine, t.XpArcsec[n-1], t.YpArcsec[n-1], t.UT1MinusUTC[n-1], x, y, u)
	}
	if err := t.addRow(mjd, x, y, u, pred); err != nil {
		return err
	}
	r.lastLine = lineNo
	return nil
}

// addRow appends one day's values after checking them (eopInRange) and
// that the day follows the last row's: the checks both table readers make.
func (t *EOPTable) addRow(mjd, x, y, u float64, pred bool) error {
	if err := eopInRange(x, y, u); err != nil {
		return err
	}
	if n := len(t.MJD); n > 0 && mjd <= t.MJD[n-1] {
		return fmt.Errorf("MJD %v does not follow %v", mjd, t.MJD[n-1])
	}
	t.MJD = append(t.MJD, mjd)
	t.XpArcsec = append(t.XpArcsec, x)
	t.YpArcsec = append(t.YpArcsec, y)
	t.UT1MinusUTC = append(t.UT1MinusUTC, u)
	t.Predicted = append(t.Predicted, pred)
	return nil
}

// Ranges ParseFinals2000A accepts: values outside them are unit slips
// (milliarcseconds, milliseconds) or corruption, and would make At return
// values far off or infinite.
const (
	eopMinMJD     = 36934  // 1960-01-01
	eopMaxMJD     = 416787 // 2500-01-01
	eopMaxPMArcs  = 10     // |xp|, |yp|; the pole wanders by well under 1″
	eopMaxUT1UTCs = 2      // |UT1 − UTC|; leap seconds keep it below 0.9 s
)

// eopInRange checks one row's polar motion and UT1 − UTC.
func eopInRange(x, y, u float64) error {
	for _, v := range []struct {
		name string
		v    float64
	}{{"PM-x", x}, {"PM-y", y}} {
		if math.Abs(v.v) > eopMaxPMArcs {
			return fmt.Errorf("%s = %v: polar motion must be within ±%d arcsec", v.name, v.v, eopMaxPMArcs)
		}
	}
	if math.Abs(u) > eopMaxUT1UTCs {
		return fmt.Errorf("UT1-UTC = %v: must be within ±%d s", u, eopMaxUT1UTCs)
	}
	return nil
}

// At interpolates the table linearly at the UTC Julian date jdUTC. A jump
// of UT1 − UTC by a whole second between rows (a leap second) is removed
// before interpolating, as astropy does. predicted reports whether either
// bracketing row is a prediction.
func (t *EOPTable) At(jdUTC float64) (e EOP, predicted bool, err error) {
	if !finite(jdUTC) {
		return e, false, fmt.Errorf("astro: EOP at jd = %v: not finite", jdUTC)
	}
	n := len(t.MJD)
	if n < 2 || len(t.UT1MinusUTC) != n || len(t.XpArcsec) != n || len(t.YpArcsec) != n {
		return e, false, fmt.Errorf("astro: EOP table is malformed (%d rows, column lengths differ or < 2)", n)
	}
	mjd := jdUTC - djm0
	if mjd < t.MJD[0] || mjd > t.MJD[n-1] {
		return e, false, fmt.Errorf("astro: EOP at jd = %v (MJD %.5f): %w [%v, %v]", jdUTC, mjd, ErrOutsideEOPTable, t.MJD[0], t.MJD[n-1])
	}
	i := sort.SearchFloat64s(t.MJD, mjd) // first index with MJD >= mjd
	if i == 0 {
		i = 1
	}
	f := (mjd - t.MJD[i-1]) / (t.MJD[i] - t.MJD[i-1])
	lin := func(c []float64) float64 { return c[i-1] + f*(c[i]-c[i-1]) }
	du := t.UT1MinusUTC[i] - t.UT1MinusUTC[i-1]
	du -= math.Round(du)
	e = EOP{
		UT1MinusUTCSec: t.UT1MinusUTC[i-1] + f*du,
		XpArcsec:       lin(t.XpArcsec),
		YpArcsec:       lin(t.YpArcsec),
	}
	if len(t.Predicted) == n {
		predicted = t.Predicted[i-1] || t.Predicted[i]
	}
	return e, predicted, nil
}

// ForTimes returns the interpolated EOP of each UTC Julian date, failing on
// the first date outside the table.
func (t *EOPTable) ForTimes(timesJD []float64) ([]EOP, error) {
	out := make([]EOP, len(timesJD))
	for i, jd := range timesJD {
		e, _, err := t.At(jd)
		if err != nil {
			return nil, fmt.Errorf("astro: times_jd[%d]: %w", i, err)
		}
		out[i] = e
	}
	return out, nil
}
