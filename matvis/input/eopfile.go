package input

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/gomatvis/gomatvis/internal/inputfile"

	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/matvis/astro/iersdata"
)

// maxEOPFileBytes bounds an EOP file (IERS finals2000A.all is ~3.5 MB).
const maxEOPFileBytes = 64 << 20

// eopJSON is the per-time list of Earth-orientation values that the
// pyuvsim reference folders carry (eop.json): what astropy used.
type eopJSON struct {
	Times []struct {
		JD   *float64 `json:"jd_utc"`
		DUT1 *float64 `json:"ut1_utc_s"`
		Xp   float64  `json:"xp_arcsec"`
		Yp   float64  `json:"yp_arcsec"`
	} `json:"times"`
}

// ReadEOPFile returns the Earth orientation at each of timesJD (UTC Julian
// dates) from path: an IERS finals2000A file (what astropy downloads,
// interpolated linearly between its daily rows), an IERS EOP C04 file in
// the eopc04_IAU2000.62-now layout (its header has the FORMAT line
// "FORMAT(3(I4),I7,…"; interpolated as astropy does) or a JSON object
// {"times": [{"jd_utc", "ut1_utc_s", "xp_arcsec", "yp_arcsec"}, …]} whose
// entries must include every time (to 1 ms).
func ReadEOPFile(path string, timesJD []float64) ([]astro.EOP, error) {
	data, err := inputfile.ReadAll(path, maxEOPFileBytes)
	if err != nil {
		return nil, fmt.Errorf("eop file: %w", err)
	}
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		return eopFromJSON(path, data, timesJD)
	}
	if isC04(data) {
		tab, err := astro.ParseC04(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("eop file %s: %w", path, err)
		}
		out := make([]astro.EOP, len(timesJD))
		for i, jd := range timesJD {
			e, ok, err := tab.AtAstropy(jd)
			if err == nil && !ok {
				err = fmt.Errorf("jd %.9f (MJD %.5f) %w [%v, %v)", jd, jd-2400000.5, astro.ErrOutsideEOPTable, tab.MJD[0], tab.MJD[len(tab.MJD)-1])
			}
			if err != nil {
				return nil, fmt.Errorf("eop file %s: times_jd[%d]: %w", path, i, err)
			}
			out[i] = e
		}
		return out, nil
	}
	tab, err := astro.ParseFinals2000A(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("eop file %s: %w", path, err)
	}
	eop, err := tab.ForTimes(timesJD)
	if err != nil {
		return nil, fmt.Errorf("eop file %s: %w", path, err)
	}
	return eop, nil
}

func eopFromJSON(path string, data []byte, timesJD []float64) ([]astro.EOP, error) {
	var f eopJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("eop file %s: %w", path, err)
	}
	if err := f.check(); err != nil {
		return nil, fmt.Errorf("eop file %s: %w", path, err)
	}
	out := make([]astro.EOP, len(timesJD))
	for i, jd := range timesJD {
		found := false
		for _, e := range f.Times {
			if math.Abs(*e.JD-jd) <= eopJSONTol {
				out[i] = astro.EOP{UT1MinusUTCSec: *e.DUT1, XpArcsec: e.Xp, YpArcsec: e.Yp}
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("eop file %s: no entry for time jd %.9f (times[%d] of the simulation)", path, jd, i)
		}
	}
	return out, nil
}

// eopJSONTol is how near an entry's jd_utc must be to a time (1 ms, in
// days) to give its values.
const eopJSONTol = 1e-3 / 86400

// check refuses an entry without jd_utc or ut1_utc_s (JSON has no NaN or
// infinity to check for) and two entries for one time (within eopJSONTol) with other
// values, naming both: which one a time took would depend on their order.
// The same values twice are taken once.
func (f *eopJSON) check() error {
	for k, e := range f.Times {
		if e.JD == nil || e.DUT1 == nil {
			return fmt.Errorf("times[%d]: jd_utc and ut1_utc_s are required", k)
		}
	}
	idx := make([]int, len(f.Times))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return *f.Times[idx[a]].JD < *f.Times[idx[b]].JD })
	for k := 1; k < len(idx); k++ {
		a, b := f.Times[idx[k-1]], f.Times[idx[k]]
		if *b.JD-*a.JD > eopJSONTol || (*a.DUT1 == *b.DUT1 && a.Xp == b.Xp && a.Yp == b.Yp) {
			continue
		}
		i, j := min(idx[k-1], idx[k]), max(idx[k-1], idx[k])
		return fmt.Errorf("times[%d] and times[%d] are both for jd %.9f, with other values (ut1_utc_s %v and %v, xp_arcsec %v and %v, yp_arcsec %v and %v): keep one of them",
			i, j, *f.Times[i].JD, *f.Times[i].DUT1, *f.Times[j].DUT1, f.Times[i].Xp, f.Times[j].Xp, f.Times[i].Yp, f.Times[j].Yp)
	}
	return nil
}

// isC04 reports whether data is an IERS EOP C04 file in the
// eopc04_IAU2000.62-now layout: its header's FORMAT line.
func isC04(data []byte) bool {
	head := data[:min(len(data), 4096)]
	return bytes.Contains(head, []byte("FORMAT(3(I4),I7,2(F11.6),2(F12.7)"))
}

// BuiltinEOPSource names the Earth orientation BuiltinEOP gives.
const BuiltinEOPSource = iersdata.Name

// BuiltinEOP returns the Earth orientation at each of timesJD (UTC Julian
// dates) from the IERS EOP C04 table embedded in gomatvis (package
// iersdata: astropy's bundled IERS-B), interpolated exactly as astropy
// does. A time outside the table gets what astropy's coordinates then use
// (UT1 − UTC = 0, the 50-year mean polar motion) and one warning for all
// such times, naming the table's span and how to give a newer one.
func BuiltinEOP(timesJD []float64, warn func(string)) ([]astro.EOP, error) {
	tab, err := iersdata.Table()
	if err != nil {
		return nil, err
	}
	out := make([]astro.EOP, len(timesJD))
	outside, first := 0, -1
	for i, jd := range timesJD {
		e, ok, err := tab.AtAstropy(jd)
		if err != nil {
			return nil, fmt.Errorf("times_jd[%d]: %w", i, err)
		}
		if !ok {
			if outside == 0 {
				first = i
			}
			outside++
		}
		out[i] = e
	}
	if outside > 0 && warn != nil {
		n := len(tab.MJD)
		warn(fmt.Sprintf("%d of %d times (the first times_jd[%d] = %.6f, MJD %.5f) lie outside the embedded IERS table %s (MJD %v to %v, %s to %s): "+
			"there UT1 − UTC = 0 and polar motion (%v″, %v″), as astropy takes outside its table, which turns the sky by up to 0.9 s of rotation; "+
			"give a newer table with --eop FILE (an IERS finals2000A.all, an eopc04_IAU2000.62-now or a per-time eop.json) or refresh the embedded copy (scripts/refresh-iers.sh, matvis/astro/iersdata/README.md)",
			outside, len(timesJD), first, timesJD[first], timesJD[first]-2400000.5, iersdata.File, tab.MJD[0], tab.MJD[n-1],
			mjdDate(tab.MJD[0]), mjdDate(tab.MJD[n-1]), astro.AstropyDefaultPolarMotion[0], astro.AstropyDefaultPolarMotion[1]))
	}
	return out, nil
}

// mjdDate is an integer MJD as a calendar date (YYYY-MM-DD).
func mjdDate(mjd float64) string {
	return time.Date(1858, 11, 17, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(mjd)).Format("2006-01-02")
}
