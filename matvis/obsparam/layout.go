package obsparam

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gomatvis/gomatvis/matvis/simspec"
)

// MaxAntennas bounds the layout size.
const MaxAntennas = 1 << 17

// layoutColumns are the six columns of a pyuvsim layout file, matched
// case-insensitively by the header.
var layoutColumns = []string{"name", "number", "beamid", "e", "n", "u"}

// layoutRow is one antenna with the line it came from.
type layoutRow struct {
	Antenna
	line int
}

// ParseLayout parses a pyuvsim array-layout file: a header line naming the
// columns Name, Number, BeamID, E, N, U (any order, any case), then one
// whitespace-separated row per antenna; blank lines and text after '#' are
// skipped. E, N, U are metres east, north and up of the telescope location.
// name is the file name used in errors and warnings. The Beam field of the
// antennas is left 0 (Read sets it).
func ParseLayout(name string, data []byte) (ants []Antenna, warnings []string, err error) {
	rows, warnings, err := parseLayoutRows(name, data)
	if err != nil {
		return nil, warnings, err
	}
	ants = make([]Antenna, len(rows))
	for i, r := range rows {
		ants[i] = r.Antenna
	}
	return ants, warnings, nil
}

func parseLayoutRows(name string, data []byte) ([]layoutRow, []string, error) {
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	col, warnings, err := layoutHeader(name, lines[0])
	if err != nil {
		return nil, nil, err
	}
	ncols := len(strings.Fields(lines[0]))
	var rows []layoutRow
	byNum, byName := map[int]int{}, map[string]int{}
	for i := 1; i < len(lines); i++ {
		text := lines[i]
		if k := strings.IndexByte(text, '#'); k >= 0 {
			text = text[:k]
		}
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue
		}
		row, err := layoutRowAt(name, i+1, fields, col, ncols)
		if err != nil {
			return nil, nil, err
		}
		if prev, dup := byNum[row.Number]; dup {
			return nil, nil, &Error{File: name, Line: row.line, Field: "Number", Value: strconv.Itoa(row.Number), Msg: fmt.Sprintf("duplicate antenna number (also on line %d)", prev)}
		}
		if prev, dup := byName[row.Name]; dup {
			return nil, nil, &Error{File: name, Line: row.line, Field: "Name", Value: strconv.Quote(row.Name), Msg: fmt.Sprintf("duplicate antenna name (also on line %d)", prev)}
		}
		byNum[row.Number], byName[row.Name] = row.line, row.line
		if len(row.Name) > 10 {
			warnings = append(warnings, fmt.Sprintf("%s:%d: Name %q is longer than 10 characters: pyuvsim truncates names to 10 characters, gomatvis keeps it whole", name, row.line, row.Name))
		}
		rows = append(rows, row)
		if len(rows) > MaxAntennas {
			return nil, nil, &Error{File: name, Line: row.line, Msg: fmt.Sprintf("more than %d antennas", MaxAntennas)}
		}
	}
	if len(rows) == 0 {
		return nil, nil, &Error{File: name, Msg: "no antennas: the layout has a header line but no rows"}
	}
	return rows, warnings, nil
}

// layoutHeader maps each of the six columns to its position.
func layoutHeader(name, header string) (map[string]int, []string, error) {
	fields := strings.Fields(header)
	if len(fields) == 0 {
		return nil, nil, &Error{File: name, Line: 1, Msg: "the first line must be the header naming the columns Name Number BeamID E N U"}
	}
	if strings.Contains(header, ",") {
		return nil, nil, &Error{File: name, Line: 1, Value: strconv.Quote(shorten(header)), Msg: "the header has commas: pyuvsim layout files are whitespace-separated (Name Number BeamID E N U)"}
	}
	col := map[string]int{}
	var warnings []string
	for i, f := range fields {
		k := strings.ToLower(f)
		if _, dup := col[k]; dup {
			return nil, nil, &Error{File: name, Line: 1, Field: f, Msg: "the column appears twice in the header"}
		}
		col[k] = i
	}
	var missing []string
	for _, c := range layoutColumns {
		if _, ok := col[c]; !ok {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return nil, nil, &Error{File: name, Line: 1, Value: strconv.Quote(shorten(header)),
			Msg: fmt.Sprintf("the header lacks column(s) %s: the columns are Name Number BeamID E N U", strings.Join(missing, ", "))}
	}
	for i, f := range fields {
		if !contains(layoutColumns, strings.ToLower(f)) {
			warnings = append(warnings, fmt.Sprintf("%s:1: column %d (%q) is not a layout column, ignored", name, i+1, f))
		}
	}
	return col, warnings, nil
}

// layoutRowAt parses one data row.
func layoutRowAt(name string, line int, fields []string, col map[string]int, ncols int) (layoutRow, error) {
	row := layoutRow{line: line}
	if len(fields) != ncols {
		return row, &Error{File: name, Line: line, Msg: fmt.Sprintf("the row has %d fields, the header has %d columns (Name Number BeamID E N U)", len(fields), ncols)}
	}
	fail := func(c, v, msg string) error {
		return &Error{File: name, Line: line, Field: fmt.Sprintf("column %d (%s)", col[c]+1, c), Value: strconv.Quote(shorten(v)), Msg: msg}
	}
	row.Name = fields[col["name"]]
	var err error
	for _, c := range []string{"number", "beamid"} {
		v := fields[col[c]]
		n, perr := strconv.ParseInt(v, 10, 32)
		if perr != nil || n < 0 {
			return row, fail(c, v, "must be a whole number from 0 to 2147483647")
		}
		if c == "number" {
			row.Number = int(n)
		} else {
			row.BeamID = int(n)
		}
	}
	for k, c := range []string{"e", "n", "u"} {
		v := fields[col[c]]
		row.ENU[k], err = strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(row.ENU[k]) || math.IsInf(row.ENU[k], 0) {
			return row, fail(c, v, "must be a finite number (metres)")
		}
		if math.Abs(row.ENU[k]) >= simspec.MaxAntennaOffsetM {
			return row, fail(c, v, fmt.Sprintf("positions are metres east, north and up of the array centre; each must be within ±%g m (the Earth's diameter is 1.3e7 m)", simspec.MaxAntennaOffsetM))
		}
	}
	return row, nil
}
