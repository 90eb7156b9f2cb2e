package skymodel

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gomatvis/gomatvis/internal/inputfile"
)

// textLayout is what a pyradiosky text-catalog header declares.
type textLayout struct {
	ncol     int
	frame    Frame
	fluxCols []int     // column of each flux
	freqs    []float64 // per flux column, when named "Flux_150_MHz"
	refCol   int       // "Frequency" column or -1
	indexCol int       // "Spectral_Index" column or -1
	spectral SpectralType
}

// ReadTextFile reads a pyradiosky text catalog (see ReadText).
func ReadTextFile(path string) (*Sky, error) {
	data, err := inputfile.ReadAll(path, math.MaxInt64)
	if err != nil {
		return nil, err
	}
	return readTextBytes(data, path)
}

// ReadText reads a pyradiosky text catalog (SkyModel.read_text_catalog /
// write_text_catalog) from r; name labels errors. The first line is the
// header: whitespace-separated column names, with "[unit]" tokens ignored,
// which must be exactly, case-insensitively and in order,
//
//	source_id, <lon>_<frame>, <lat>_<frame>, then one of
//	Flux… [, Flux_error], Frequency [, Spectral_Index] (flat or spectral_index;
//	                                                    any flux name "Flux…")
//	Flux_<f>_<unit>Hz [, Flux_error_<f>_<unit>Hz] ...  (one: flat, several: full)
//	Flux [, Flux_error]                                 (flat)
//
// with frames ra_icrs/dec_icrs, l_galactic/b_galactic, ra_fk5/dec_fk5 and
// ra_j2000/dec_j2000 (FK5 J2000, converted to ICRS). Fluxes are Stokes I in
// Jy; error columns are checked and discarded. Lines that are blank or
// start with '#' are skipped, and text after '#' is ignored (numpy's
// genfromtxt, which pyradiosky uses).
//
// The input is read into memory and its rows are parsed in parallel.
func ReadText(r io.Reader, name string) (*Sky, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &ParseError{File: name, Err: err}
	}
	return readTextBytes(data, name)
}

func readTextBytes(data []byte, name string) (*Sky, error) {
	if len(data) == 0 {
		return nil, &ParseError{File: name, Line: 1, Err: errors.New("empty file: no header line")}
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff")) // a UTF-8 byte-order mark
	header, body, _ := bytes.Cut(data, []byte{'\n'})
	hs := strings.TrimRight(string(header), "\r")
	lay, err := parseTextHeader(hs)
	if err != nil {
		return nil, &ParseError{File: name, Line: 1, Value: hs, Err: err}
	}
	c, err := parseTextBody(body, name, lay)
	if err != nil {
		return nil, err
	}
	ToICRS(lay.frame, c.RA, c.Dec)
	return build(name, c, fluxUnit{scale: 1, original: "Jy"}, 0)
}

var freqInName = regexp.MustCompile(`(\d*\.\d+|\d+)[^\d]*$`)

// freqFromName reads the frequency in a column name such as
// "Flux_subband_76_MHz": the last number before "Hz", scaled by a k, M or
// G prefix directly before "Hz" (pyuvdata's CSTBeam.name2freq rule).
func freqFromName(col string) (float64, error) {
	i := strings.Index(col, "Hz")
	if i < 1 {
		return 0, fmt.Errorf("column %q has no frequency", col)
	}
	m := freqInName.FindStringSubmatch(col[:i])
	if m == nil {
		return 0, fmt.Errorf("column %q has no number before Hz", col)
	}
	f, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, fmt.Errorf("column %q: %w", col, err)
	}
	switch col[i-1] {
	case 'k':
		f *= 1e3
	case 'M':
		f *= 1e6
	case 'G':
		f *= 1e9
	}
	if !(f > 0) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("column %q: frequency %g Hz is not positive", col, f)
	}
	return f, nil
}

func headerTokens(header string) []string {
	var cols []string
	for _, t := range strings.Fields(header) {
		if !strings.HasPrefix(t, "[") {
			cols = append(cols, t)
		}
	}
	return cols
}

// coordColumns recognises the longitude/latitude columns and their frame.
func coordColumns(lon, lat string) (Frame, error) {
	lo, la := strings.ToLower(lon), strings.ToLower(lat)
	pairs := []struct {
		lon, lat string
		frame    Frame
	}{
		{"ra_icrs", "dec_icrs", ICRS},
		{"l_galactic", "b_galactic", Galactic},
		{"ra_fk5", "dec_fk5", FK5J2000},
		{"ra_j2000", "dec_j2000", FK5J2000},
		{"ra_j2000", "de_j2000", FK5J2000},
	}
	for _, p := range pairs { // pyradiosky matches these as prefixes
		if strings.HasPrefix(lo, p.lon) && strings.HasPrefix(la, p.lat) {
			return p.frame, nil
		}
	}
	return 0, fmt.Errorf("coordinate columns %q, %q not supported (want ra_icrs/dec_icrs, l_galactic/b_galactic, ra_fk5/dec_fk5 or ra_j2000/dec_j2000)", lon, lat)
}

func parseTextHeader(header string) (textLayout, error) {
	cols := headerTokens(header)
	lay := textLayout{ncol: len(cols), refCol: -1, indexCol: -1}
	if len(cols) < 4 || !strings.EqualFold(cols[0], "source_id") {
		return lay, fmt.Errorf("header must start with source_id, longitude, latitude and flux columns, got %q", cols)
	}
	fr, err := coordColumns(cols[1], cols[2])
	if err != nil {
		return lay, err
	}
	lay.frame = fr
	rest := make([]string, 0, len(cols)-3)
	for _, c := range cols[3:] {
		rest = append(rest, strings.ToLower(c))
	}
	if err := lay.fluxLayout(cols[3:], rest); err != nil {
		return lay, fmt.Errorf("%w (columns after the coordinates: %q)", err, cols[3:])
	}
	return lay, nil
}

// fluxLayout interprets the columns after the coordinates (orig and
// lower-cased), enforcing pyradiosky's exact expected order.
func (lay *textLayout) fluxLayout(orig, rest []string) error {
	hasErr := false
	for _, c := range rest {
		if strings.HasPrefix(c, "flux") && strings.Contains(c, "error") {
			hasErr = true
		}
	}
	step := 1
	if hasErr {
		step = 2
	}
	if slicesContains(rest, "frequency") {
		return lay.refFreqLayout(rest, hasErr)
	}
	if len(rest)%step != 0 {
		return errors.New("every flux column needs its error column")
	}
	for k := 0; k < len(rest); k += step {
		if !strings.HasPrefix(rest[k], "flux") || strings.Contains(rest[k], "error") {
			return fmt.Errorf("column %q is not a flux column", orig[k])
		}
		if hasErr && !(strings.HasPrefix(rest[k+1], "flux") && strings.Contains(rest[k+1], "error")) {
			return fmt.Errorf("column %q is not a flux error column", orig[k+1])
		}
		lay.fluxCols = append(lay.fluxCols, 3+k)
	}
	return lay.fluxFrequencies(orig, step)
}

// refFreqLayout handles a header with a Frequency column: exactly one flux
// column (any name starting with "Flux"), then Flux_error if any errors,
// Frequency, and optionally Spectral_Index.
func (lay *textLayout) refFreqLayout(rest []string, hasErr bool) error {
	var flux []string
	for _, c := range rest {
		if strings.HasPrefix(c, "flux") && !strings.Contains(c, "error") {
			flux = append(flux, c)
		}
	}
	if len(flux) != 1 {
		return fmt.Errorf("with a Frequency column exactly one flux column is allowed, found %d", len(flux))
	}
	want := []string{flux[0]}
	if hasErr {
		want = append(want, "flux_error")
	}
	want = append(want, "frequency")
	lay.spectral = Flat
	if slicesContains(rest, "spectral_index") {
		want = append(want, "spectral_index")
		lay.spectral = SpectralIndex
		lay.indexCol = 3 + len(want) - 1
	}
	if !slices.Equal(rest, want) {
		return fmt.Errorf("with a Frequency column the flux columns must be exactly %q", want)
	}
	lay.fluxCols = []int{3}
	lay.refCol = 3 + len(want) - 1
	if lay.indexCol >= 0 {
		lay.refCol--
	}
	return nil
}

func (lay *textLayout) fluxFrequencies(orig []string, step int) error {
	lay.spectral = Flat
	if len(lay.fluxCols) == 1 && strings.EqualFold(orig[0], "flux") {
		if step == 2 && !strings.EqualFold(orig[1], "flux_error") {
			return fmt.Errorf("column %q should be Flux_error", orig[1])
		}
		return nil
	}
	seen := map[float64]string{}
	for _, c := range lay.fluxCols {
		f, err := freqFromName(orig[c-3])
		if err != nil {
			return fmt.Errorf("flux columns must be a single \"Flux\" or carry their frequencies: %w", err)
		}
		if prev, dup := seen[f]; dup {
			return fmt.Errorf("columns %q and %q have the same frequency %g Hz", prev, orig[c-3], f)
		}
		seen[f] = orig[c-3]
		lay.freqs = append(lay.freqs, f)
	}
	if len(lay.freqs) > 1 {
		lay.spectral = Full
	}
	return nil
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// textRows accumulates parsed rows; fluxes are frequency-major per row.
type textRows struct {
	nameBuf    []byte // all names, back to back
	nameEnd    []int  // end of each name in nameBuf
	lon, lat   []float64
	flux       [][]float64 // one slice per flux column
	ref, index []float64
}

// parseTextBody parses the data rows (from line 2) in parallel chunks
// that split at line boundaries, then concatenates them in order.
func parseTextBody(body []byte, name string, lay textLayout) (Components, error) {
	chunks := splitLines(body, 4*runtime.GOMAXPROCS(0))
	parts := make([]textRows, len(chunks))
	errs := make([]error, len(chunks))
	var wg sync.WaitGroup
	line := 2
	for k, ch := range chunks {
		wg.Add(1)
		go func(k, line int, ch []byte) {
			defer wg.Done()
			errs[k] = parts[k].parseChunk(ch, name, line, lay)
		}(k, line, ch)
		line += bytes.Count(ch, []byte{'\n'})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return Components{}, err
		}
	}
	all := joinRows(parts, len(lay.fluxCols))
	if len(all.nameEnd) == 0 {
		return Components{}, &ParseError{File: name, Err: errors.New("no sources after the header")}
	}
	return all.components(lay), nil
}

// splitLines cuts b into at most n pieces of similar size, each ending
// just after a newline (the last may not); small inputs stay whole.
func splitLines(b []byte, n int) [][]byte {
	const minChunk = 1 << 18
	var out [][]byte
	for len(b) > 0 {
		size := max(len(b)/n, minChunk)
		if size >= len(b) || n <= 1 {
			return append(out, b)
		}
		end := size + bytes.IndexByte(b[size:], '\n') + 1
		if end <= size { // no newline after size
			return append(out, b)
		}
		out = append(out, b[:end])
		b = b[end:]
		n--
	}
	return out
}

func (t *textRows) parseChunk(ch []byte, name string, line int, lay textLayout) error {
	est := bytes.Count(ch, []byte{'\n'}) + 1
	t.flux = make([][]float64, len(lay.fluxCols))
	for k := range t.flux {
		t.flux[k] = make([]float64, 0, est)
	}
	t.lon, t.lat = make([]float64, 0, est), make([]float64, 0, est)
	t.nameEnd = make([]int, 0, est)
	if lay.refCol >= 0 {
		t.ref = make([]float64, 0, est)
	}
	if lay.indexCol >= 0 {
		t.index = make([]float64, 0, est)
	}
	fields := make([][]byte, 0, lay.ncol)
	vals := make([]float64, lay.ncol)
	for len(ch) > 0 {
		l, rest, _ := bytes.Cut(ch, []byte{'\n'})
		if err := t.parseLine(name, line, l, lay, fields, vals); err != nil {
			return err
		}
		ch = rest
		line++
	}
	return nil
}

// joinRows concatenates the chunks' rows.
func joinRows(parts []textRows, nflux int) textRows {
	switch len(parts) {
	case 0:
		return textRows{flux: make([][]float64, nflux)}
	case 1:
		return parts[0]
	}
	rows, nameBytes := 0, 0
	for _, p := range parts {
		rows += len(p.nameEnd)
		nameBytes += len(p.nameBuf)
	}
	grow := func(want bool) []float64 {
		if !want {
			return nil
		}
		return make([]float64, 0, rows)
	}
	all := textRows{
		nameBuf: make([]byte, 0, nameBytes), nameEnd: make([]int, 0, rows),
		lon: grow(true), lat: grow(true),
		ref: grow(parts[0].ref != nil), index: grow(parts[0].index != nil),
		flux: make([][]float64, nflux),
	}
	for k := range all.flux {
		all.flux[k] = grow(true)
	}
	for _, p := range parts {
		off := len(all.nameBuf)
		all.nameBuf = append(all.nameBuf, p.nameBuf...)
		for _, e := range p.nameEnd {
			all.nameEnd = append(all.nameEnd, off+e)
		}
		all.lon = append(all.lon, p.lon...)
		all.lat = append(all.lat, p.lat...)
		all.ref = append(all.ref, p.ref...)
		all.index = append(all.index, p.index...)
		for k := range p.flux {
			all.flux[k] = append(all.flux[k], p.flux[k]...)
		}
	}
	return all
}

// parseLine appends one data line (fields is scratch space; vals holds
// one value per column). Every column but source_id is numeric.
func (t *textRows) parseLine(name string, lineNo int, line []byte, lay textLayout, fields [][]byte, vals []float64) error {
	if i := bytes.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	fields = fields[:0]
	for f := range bytes.FieldsSeq(line) {
		fields = append(fields, f)
	}
	if len(fields) == 0 {
		return nil
	}
	bad := func(col int, err error) error {
		return &ParseError{File: name, Line: lineNo, Field: fmt.Sprintf("column %d (%s)", col+1, lay.what(col)),
			Value: string(fields[col]), Err: err}
	}
	if len(fields) != lay.ncol {
		return &ParseError{File: name, Line: lineNo, Value: string(bytes.TrimSpace(line)),
			Err: fmt.Errorf("%d fields, the header has %d", len(fields), lay.ncol)}
	}
	for col := 1; col < lay.ncol; col++ {
		v, err := strconv.ParseFloat(string(fields[col]), 64)
		if err == nil && !finite(v) {
			err = errors.New("not finite")
		}
		if err != nil {
			return bad(col, err)
		}
		vals[col] = v
	}
	if math.Abs(vals[2]) > 90 {
		return bad(2, errors.New("latitude outside [-90, 90] degrees"))
	}
	if lay.refCol >= 0 && !(vals[lay.refCol] > 0) {
		return bad(lay.refCol, errors.New("frequency must be positive"))
	}
	t.appendRow(fields[0], vals, lay)
	return nil
}

// what names column col for error messages.
func (lay *textLayout) what(col int) string {
	switch {
	case col == 1:
		return "longitude"
	case col == 2:
		return "latitude"
	case col == lay.refCol:
		return "frequency"
	case col == lay.indexCol:
		return "spectral index"
	case isFluxCol(col, lay.fluxCols):
		return "flux"
	}
	return "flux error"
}

func (t *textRows) appendRow(name []byte, vals []float64, lay textLayout) {
	for k, c := range lay.fluxCols {
		t.flux[k] = append(t.flux[k], vals[c])
	}
	if lay.refCol >= 0 {
		t.ref = append(t.ref, vals[lay.refCol])
	}
	if lay.indexCol >= 0 {
		t.index = append(t.index, vals[lay.indexCol])
	}
	t.nameBuf = append(t.nameBuf, name...)
	t.nameEnd = append(t.nameEnd, len(t.nameBuf))
	lon := math.Mod(vals[1], 360) // astropy's Longitude wraps to [0, 360)
	if lon < 0 {
		lon += 360
	}
	t.lon = append(t.lon, lon*math.Pi/180)
	t.lat = append(t.lat, vals[2]*math.Pi/180)
}

func isFluxCol(c int, cols []int) bool {
	for _, x := range cols {
		if x == c {
			return true
		}
	}
	return false
}

func (t *textRows) components(lay textLayout) Components {
	all := string(t.nameBuf) // one allocation shared by every name
	names := make([]string, len(t.nameEnd))
	start := 0
	for i, e := range t.nameEnd {
		names[i], start = all[start:e], e
	}
	c := Components{Names: names, RA: t.lon, Dec: t.lat, Spectral: lay.spectral}
	switch lay.spectral {
	case SpectralIndex:
		c.RefFreq, c.Index = t.ref, t.index
		c.Stokes[0] = t.flux[0]
	case Flat:
		c.Stokes[0] = t.flux[0]
		c.RefFreq = t.ref
		c.Freqs = lay.freqs
	case Full:
		n := len(names)
		st := make([]float64, 0, n*len(t.flux))
		for _, f := range t.flux {
			st = append(st, f...)
		}
		c.Stokes[0] = st
		c.Freqs = lay.freqs
	}
	return c
}
