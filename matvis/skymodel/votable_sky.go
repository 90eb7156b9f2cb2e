package skymodel

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// voColumns are the resolved column indices of a table.
type voColumns struct {
	id, lon, lat, index int
	flux                []int
	lonScale, latScale  float64
	fluxScale           float64
}

func (t *voTable) resolve(name string, opt VOTableOptions) (voColumns, error) {
	keys := make([]string, len(t.fields))
	for i, f := range t.fields {
		keys[i] = f.key
	}
	col := voColumns{index: -1}
	find := func(want, exclude string) (int, error) {
		i, err := matchName(want, keys, exclude)
		if err != nil {
			return -1, &ParseError{File: name, Field: "FIELD", Value: want, Err: err}
		}
		return i, nil
	}
	var err error
	if col.id, err = find(opt.IDColumn, ""); err != nil {
		return col, err
	}
	if col.lon, err = find(opt.LonColumn, "_"); err != nil {
		return col, err
	}
	if col.lat, err = find(opt.LatColumn, "_"); err != nil {
		return col, err
	}
	if opt.SpectralIndexColumn != "" {
		if col.index, err = find(opt.SpectralIndexColumn, ""); err != nil {
			return col, err
		}
	}
	seen := map[int]bool{}
	for _, fc := range opt.FluxColumns {
		i, err := find(fc, "")
		if err != nil {
			return col, err
		}
		if seen[i] {
			return col, &ParseError{File: name, Field: "FIELD", Value: fc, Err: errors.New("flux column named twice")}
		}
		seen[i] = true
		col.flux = append(col.flux, i)
	}
	return col, col.units(name, t.fields)
}

func (col *voColumns) units(name string, fields []voField) error {
	var err error
	if col.lonScale, err = angleScale(name, fields[col.lon]); err != nil {
		return err
	}
	if col.latScale, err = angleScale(name, fields[col.lat]); err != nil {
		return err
	}
	for k, i := range col.flux {
		u := strings.TrimSpace(fields[i].unit)
		var s float64
		switch u {
		case "Jy":
			s = 1
		case "mJy":
			s = 1e-3
		default:
			return &ParseError{File: name, Field: "FIELD " + fields[i].key + " unit", Value: u,
				Err: errors.New("flux columns must be in Jy or mJy")}
		}
		if k > 0 && s != col.fluxScale {
			return &ParseError{File: name, Field: "FIELD " + fields[i].key + " unit", Value: u,
				Err: errors.New("all flux columns must have the same unit")}
		}
		col.fluxScale = s
	}
	return nil
}

func angleScale(name string, f voField) (float64, error) {
	s, ok := angleUnits[strings.TrimSpace(f.unit)]
	if !ok {
		return 0, &ParseError{File: name, Field: "FIELD " + f.key + " unit", Value: f.unit,
			Err: errors.New("coordinates must be in deg or rad")}
	}
	return s, nil
}

func (t *voTable) toSky(name string, opt VOTableOptions) (*Sky, error) {
	col, err := t.resolve(name, opt)
	if err != nil {
		return nil, err
	}
	n := len(t.rows)
	if n == 0 {
		return nil, &ParseError{File: name, Field: "TABLE " + t.id, Err: errors.New("table has no TABLEDATA rows")}
	}
	c := Components{Names: make([]string, n), RA: make([]float64, n), Dec: make([]float64, n)}
	nf := len(col.flux)
	c.Stokes[0] = make([]float64, nf*n)
	switch {
	case nf > 1:
		c.Spectral, c.Freqs = Subband, append([]float64(nil), opt.FreqArray...)
	case col.index >= 0:
		c.Spectral, c.Index = SpectralIndex, make([]float64, n)
	default:
		c.Spectral = Flat
	}
	if opt.ReferenceFrequency > 0 && nf == 1 {
		c.RefFreq = make([]float64, n)
		for i := range c.RefFreq {
			c.RefFreq[i] = opt.ReferenceFrequency
		}
	}
	for i, row := range t.rows {
		if err := t.readRow(name, i, row, col, &c); err != nil {
			return nil, err
		}
	}
	fr, _ := ParseFrame(opt.Frame) // checked in opt.check
	ToICRS(fr, c.RA, c.Dec)
	return build(name, c, fluxUnit{scale: 1, original: "Jy"}, 0)
}

// voRow reads the cells of one TABLEDATA row.
type voRow struct {
	t    *voTable
	name string
	i    int // row index
	row  []string
	id   int // ID column, for messages
}

// num parses cell j; an empty cell is NaN, accepted only if allowNaN.
func (r voRow) num(j int, allowNaN bool) (float64, error) {
	s := strings.TrimSpace(r.row[j])
	v := math.NaN()
	var err error
	if s != "" {
		v, err = strconv.ParseFloat(s, 64)
	}
	if err == nil && (math.IsInf(v, 0) || (math.IsNaN(v) && !allowNaN)) {
		err = errors.New("not a finite number")
	}
	if err != nil {
		return 0, r.errf(j, s, err)
	}
	return v, nil
}

func (r voRow) errf(j int, value string, err error) error {
	return &ParseError{File: r.name, Line: r.t.lines[r.i], Value: value, Err: err,
		Field: fmt.Sprintf("row %d (%s) column %s", r.i+1, strings.TrimSpace(r.row[r.id]), r.t.fields[j].key)}
}

func (t *voTable) readRow(name string, i int, row []string, col voColumns, c *Components) error {
	if len(row) != len(t.fields) {
		return &ParseError{File: name, Line: t.lines[i], Field: fmt.Sprintf("row %d", i+1),
			Err: fmt.Errorf("%d cells, the table has %d fields", len(row), len(t.fields))}
	}
	r := voRow{t: t, name: name, i: i, row: row, id: col.id}
	lon, err := r.num(col.lon, false)
	if err != nil {
		return err
	}
	lat, err := r.num(col.lat, false)
	if err != nil {
		return err
	}
	if lat *= col.latScale; math.Abs(lat) > math.Pi/2 {
		return r.errf(col.lat, row[col.lat], errors.New("latitude outside ±90°"))
	}
	c.RA[i], c.Dec[i] = math.Mod(lon*col.lonScale, 2*math.Pi), lat
	if c.RA[i] < 0 {
		c.RA[i] += 2 * math.Pi
	}
	c.Names[i] = strings.TrimSpace(row[col.id])
	n := len(c.RA)
	for k, j := range col.flux {
		v, err := r.num(j, len(col.flux) > 1)
		if err != nil {
			return err
		}
		c.Stokes[0][k*n+i] = v * col.fluxScale
	}
	if col.index >= 0 {
		if c.Index[i], err = r.num(col.index, false); err != nil {
			return err
		}
	}
	return nil
}
