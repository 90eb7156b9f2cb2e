package matvis

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"github.com/gomatvis/gomatvis/internal/inputfile"

	"github.com/gomatvis/gomatvis/matvis/astro"
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
// interpolated linearly between its daily rows) or a JSON object
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
	out := make([]astro.EOP, len(timesJD))
	const tol = 1e-3 / 86400 // days
	for i, jd := range timesJD {
		found := false
		for k, e := range f.Times {
			if e.JD == nil || e.DUT1 == nil {
				return nil, fmt.Errorf("eop file %s: times[%d]: jd_utc and ut1_utc_s are required", path, k)
			}
			if math.Abs(*e.JD-jd) <= tol {
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
