package skymodel

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gomatvis/gomatvis/internal/inputfile"
)

// VOTableOptions names the table and columns to read, as the arguments of
// pyradiosky's SkyModel.read_votable_catalog (and pyuvsim's obsparam
// source keys table_name, id_column, lon_column, lat_column, flux_columns,
// frame, reference_frequency, freq_array, spectral_index_column).
// Each name matches case-insensitively as a substring of exactly one
// table ID/name or column name; where several contain it, an exact match
// wins, and for the coordinates columns starting with "_" (VizieR's
// computed columns) are then dropped.
type VOTableOptions struct {
	Table               string
	IDColumn            string
	LonColumn           string
	LatColumn           string
	FluxColumns         []string // one: flat or spectral_index; several: subband
	Frame               string   // icrs, fk5 (J2000) or galactic
	ReferenceFrequency  float64  // Hz; 0 for none
	FreqArray           []float64
	SpectralIndexColumn string
}

// GLEAMOptions returns the columns pyradiosky's read_gleam_catalog uses for
// the GLEAM EGC catalog (VizieR VIII/100): flat uses Fintwide at 200 MHz;
// spectral_index uses Fintfit200 at 200 MHz with alpha; subband uses the
// 20 Fint076…Fint227 columns at the catalog's nominal frequencies. The
// positions are RAJ2000/DEJ2000 in FK5 J2000.
func GLEAMOptions(t SpectralType) (VOTableOptions, error) {
	o := VOTableOptions{Table: "GLEAM", IDColumn: "GLEAM", LonColumn: "RAJ2000", LatColumn: "DEJ2000", Frame: "fk5"}
	switch t {
	case Flat:
		o.FluxColumns, o.ReferenceFrequency = []string{"Fintwide"}, 200e6
	case SpectralIndex:
		o.FluxColumns, o.ReferenceFrequency, o.SpectralIndexColumn = []string{"Fintfit200"}, 200e6, "alpha"
	case Subband:
		for _, mhz := range []int{76, 84, 92, 99, 107, 115, 122, 130, 143, 151, 158, 166, 174, 181, 189, 197, 204, 212, 220, 227} {
			o.FluxColumns = append(o.FluxColumns, fmt.Sprintf("Fint%03d", mhz))
			o.FreqArray = append(o.FreqArray, float64(mhz)*1e6)
		}
	default:
		return o, fmt.Errorf("GLEAM spectral type must be flat, spectral_index or subband, not %s", t)
	}
	return o, nil
}

// ReadVOTableFile reads a VOTable catalog (see ReadVOTable).
func ReadVOTableFile(path string, opt VOTableOptions) (*Sky, error) {
	f, _, err := inputfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadVOTable(f, path, opt)
}

// ReadGLEAMFile reads a GLEAM VOTable with GLEAMOptions(t).
func ReadGLEAMFile(path string, t SpectralType) (*Sky, error) {
	opt, err := GLEAMOptions(t)
	if err != nil {
		return nil, &ParseError{File: path, Err: err}
	}
	return ReadVOTableFile(path, opt)
}

// ReadVOTable reads point sources from a VOTable's TABLEDATA rows, with
// the columns opt names; name labels errors. Fluxes must be in Jy or mJy,
// coordinates in deg or rad. Empty cells read as NaN, which only a
// subband flux may be (pyradiosky interpolates around it). BINARY,
// BINARY2 and FITS serializations are refused.
func ReadVOTable(r io.Reader, name string, opt VOTableOptions) (*Sky, error) {
	if err := opt.check(); err != nil {
		return nil, &ParseError{File: name, Err: err}
	}
	tables, err := scanVOTable(r, name, opt.Table)
	if err != nil {
		return nil, err
	}
	tab, err := pickTable(tables, opt.Table)
	if err != nil {
		return nil, &ParseError{File: name, Field: "TABLE", Value: opt.Table, Err: err}
	}
	return tab.toSky(name, opt)
}

func (o *VOTableOptions) check() error {
	switch {
	case o.Table == "" || o.IDColumn == "" || o.LonColumn == "" || o.LatColumn == "":
		return errors.New("VOTable options need Table, IDColumn, LonColumn and LatColumn")
	case len(o.FluxColumns) == 0:
		return errors.New("VOTable options need at least one flux column")
	case len(o.FluxColumns) > 1 && len(o.FreqArray) != len(o.FluxColumns):
		return fmt.Errorf("%d flux columns need %d frequencies in FreqArray, have %d", len(o.FluxColumns), len(o.FluxColumns), len(o.FreqArray))
	case len(o.FluxColumns) > 1 && o.SpectralIndexColumn != "":
		return errors.New("a spectral index column needs exactly one flux column")
	case o.SpectralIndexColumn != "" && !(o.ReferenceFrequency > 0):
		return errors.New("a spectral index column needs a positive ReferenceFrequency")
	case o.ReferenceFrequency < 0 || !finite(o.ReferenceFrequency):
		return fmt.Errorf("reference frequency %g Hz must be positive", o.ReferenceFrequency)
	}
	for _, f := range o.FreqArray {
		if !(f > 0) || !finite(f) {
			return fmt.Errorf("frequency %g Hz in FreqArray must be positive and finite", f)
		}
	}
	_, err := ParseFrame(o.Frame)
	return err
}

// voField is one FIELD of a table.
type voField struct {
	key, unit, datatype string
}

// voTable is a parsed TABLE: its fields and TABLEDATA cells.
type voTable struct {
	id, name string
	fields   []voField
	rows     [][]string
	lines    []int // input line of each row
}

// voScanner streams a VOTable, keeping the tables whose ID or name
// contains want (case-insensitively) with their TABLEDATA rows.
type voScanner struct {
	name, want string
	tables     []*voTable
	cur        *voTable // table being read, nil outside TABLE
	keep       bool     // cur is one of tables
	row        []string
	cell       *strings.Builder // open TD
}

func scanVOTable(r io.Reader, name, want string) ([]*voTable, error) {
	d := xml.NewDecoder(r)
	d.Strict = true
	sc := &voScanner{name: name, want: want}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return sc.tables, nil
		}
		line, _ := d.InputPos()
		if err != nil {
			return nil, &ParseError{File: name, Line: line, Err: fmt.Errorf("malformed XML: %w", err)}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			err = sc.start(t, line)
		case xml.CharData:
			err = sc.text(t, line)
		case xml.EndElement:
			sc.end(t, line)
		}
		if err != nil {
			return nil, err
		}
	}
}

func (sc *voScanner) start(t xml.StartElement, line int) error {
	switch t.Name.Local {
	case "TABLE":
		sc.cur = &voTable{id: attr(t, "ID"), name: attr(t, "name")}
		sc.keep = containsFold(sc.cur.id, sc.want) || containsFold(sc.cur.name, sc.want)
		if sc.keep {
			sc.tables = append(sc.tables, sc.cur)
		}
	case "FIELD":
		if sc.cur != nil {
			key := attr(t, "ID")
			if key == "" {
				key = attr(t, "name")
			}
			sc.cur.fields = append(sc.cur.fields, voField{key: key, unit: attr(t, "unit"), datatype: attr(t, "datatype")})
		}
	case "BINARY", "BINARY2", "FITS":
		if sc.keep {
			return &ParseError{File: sc.name, Line: line, Field: t.Name.Local,
				Err: errors.New("binary-serialized VOTable data is not supported; convert the table to TABLEDATA")}
		}
	case "TR":
		sc.row = nil
	case "TD":
		sc.cell = &strings.Builder{}
	}
	return nil
}

func (sc *voScanner) text(t xml.CharData, line int) error {
	if sc.cell == nil || !sc.keep {
		return nil
	}
	if sc.cell.Len()+len(t) > 1<<16 {
		return &ParseError{File: sc.name, Line: line, Err: errors.New("table cell longer than 64 KiB")}
	}
	sc.cell.Write(t)
	return nil
}

func (sc *voScanner) end(t xml.EndElement, line int) {
	switch t.Name.Local {
	case "TD":
		if sc.cell != nil {
			sc.row = append(sc.row, sc.cell.String())
		}
		sc.cell = nil
	case "TR":
		if sc.keep && sc.cur != nil {
			sc.cur.rows = append(sc.cur.rows, sc.row)
			sc.cur.lines = append(sc.cur.lines, line)
		}
	case "TABLE":
		sc.cur, sc.keep = nil, false
	}
}

func attr(t xml.StartElement, key string) string {
	for _, a := range t.Attr {
		if a.Name.Local == key {
			return a.Value
		}
	}
	return ""
}

func containsFold(s, sub string) bool {
	return s != "" && strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// matchName applies pyradiosky's _get_matching_fields rule.
func matchName(want string, names []string, excludePrefix string) (int, error) {
	var hits []int
	for i, n := range names {
		if containsFold(n, want) {
			hits = append(hits, i)
		}
	}
	if len(hits) > 1 {
		var exact []int
		for _, i := range hits {
			if strings.EqualFold(names[i], want) {
				exact = append(exact, i)
			}
		}
		if len(exact) == 1 {
			hits = exact
		} else if excludePrefix != "" {
			var rest []int
			for _, i := range hits {
				if !strings.HasPrefix(names[i], excludePrefix) {
					rest = append(rest, i)
				}
			}
			if len(rest) == 1 {
				hits = rest
			}
		}
	}
	switch len(hits) {
	case 0:
		return -1, fmt.Errorf("no match for %q in %q", want, names)
	case 1:
		return hits[0], nil
	}
	var m []string
	for _, i := range hits {
		m = append(m, names[i])
	}
	return -1, fmt.Errorf("more than one match for %q: %q", want, m)
}

func pickTable(tables []*voTable, want string) (*voTable, error) {
	if len(tables) == 0 {
		return nil, errors.New("no table with a matching ID or name")
	}
	ids := make([]string, len(tables))
	names := make([]string, len(tables))
	for i, t := range tables {
		ids[i], names[i] = t.id, t.name
	}
	if i, err := matchName(want, ids, ""); err == nil {
		return tables[i], nil
	}
	i, err := matchName(want, names, "")
	if err != nil {
		return nil, err
	}
	return tables[i], nil
}
