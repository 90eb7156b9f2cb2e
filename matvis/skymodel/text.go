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
	"unicode/utf8"

	"github.com/gomatvis/gomatvis/internal/fastfloat"
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
	flux     fluxUnit // the flux columns' unit (Jy unless the header says)
	refScale float64  // the Frequency column's unit in Hz
}

// ReadTextFile reads a pyradiosky text catalog (see ReadText). The file
// is mapped, not read: its pages are the page cache's, neither copied nor
// faulted in as fresh memory (BenchmarkReadText1M: 309–329 → 265–316
// ms/op, 162 → 83 MB/op allocated, at load 5.3 on 2 cores), and every
// read of them is guarded against the file shrinking meanwhile.
func ReadTextFile(path string) (*Sky, error) {
	m, err := inputfile.Map(path, math.MaxInt64)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	return parseText(m.Bytes(), path, textChunksPerProc*runtime.GOMAXPROCS(0), textMinChunk, m.Guard)
}

// ReadText reads a pyradiosky text catalog (SkyModel.read_text_catalog /
// write_text_catalog) from r; name labels errors. The first line is the
// header: whitespace-separated column names, each optionally followed by
// its "[unit]" (checkUnits: fluxes in Jy, mJy, uJy or μJy, coordinates in
// degrees, Frequency in Hz, kHz, MHz or GHz; pyradiosky drops the units
// and reads Jy, degrees and Hz, which is also what a column without unit
// is read in), which must be exactly, case-insensitively and in order,
//
//	source_id, <lon>_<frame>, <lat>_<frame>, then one of
//	Flux… [, Flux_error], Frequency [, Spectral_Index] (flat or spectral_index;
//	                                                    any flux name "Flux…")
//	Flux_<f>_<unit>Hz [, Flux_error_<f>_<unit>Hz] ...  (one: flat, several: full)
//	Flux [, Flux_error]                                 (flat)
//
// with frames ra_icrs/dec_icrs, l_galactic/b_galactic, ra_fk5/dec_fk5 and
// ra_j2000/dec_j2000 (FK5 J2000, converted to ICRS). Fluxes are Stokes I;
// error columns are checked and discarded. Lines that are blank or
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

// Chunking of a text catalog's body for the parallel parse: a few chunks
// per core for balance, none under 256 KiB (a goroutine each).
const (
	textChunksPerProc = 4
	textMinChunk      = 1 << 18
)

func readTextBytes(data []byte, name string) (*Sky, error) {
	return readTextChunked(data, name, textChunksPerProc*runtime.GOMAXPROCS(0), textMinChunk)
}

// readTextChunked parses the catalog with its body cut into at most
// nchunks chunks of at least minChunk bytes (tests cut it finely).
func readTextChunked(data []byte, name string, nchunks, minChunk int) (*Sky, error) {
	return parseText(data, name, nchunks, minChunk, unguarded)
}

// guardFunc runs a function that reads the catalog's bytes, and is run by
// every goroutine that does (inputfile.Mapping.Guard for a mapped file).
type guardFunc func(read func() error) error

func unguarded(read func() error) error { return read() }

// parseText is readTextChunked with guard around every read of data.
func parseText(data []byte, name string, nchunks, minChunk int, guard guardFunc) (*Sky, error) {
	if len(data) == 0 {
		return nil, &ParseError{File: name, Line: 1, Err: errors.New("empty file: no header line")}
	}
	var (
		lay    textLayout
		chunks [][]byte
	)
	err := guard(func() error {
		data = bytes.TrimPrefix(data, []byte("\ufeff")) // a UTF-8 byte-order mark
		header, body, _ := bytes.Cut(data, []byte{'\n'})
		hs := strings.TrimRight(string(header), "\r")
		var err error
		if lay, err = parseTextHeader(hs); err != nil {
			return &ParseError{File: name, Line: 1, Value: hs, Err: err}
		}
		chunks = splitLines(body, nchunks, minChunk)
		return nil
	})
	if err != nil {
		return nil, err
	}
	c, err := parseTextBody(chunks, name, lay, guard)
	if err != nil {
		return nil, err
	}
	ToICRS(lay.frame, c.RA, c.Dec)
	lay.scaleRefFreqs(c.RefFreq)
	return build(name, c, lay.flux, 0)
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

// headerTokens splits the header into its column names and each one's
// unit: the "[unit]" token after it ("" where none is given), one token
// or several up to one ending in "]" ("[m Jy]"). pyradiosky drops the
// unit tokens and reads every column in Jy, degrees or Hz; gomatvis reads
// the units (checkUnits), so that "Flux [mJy]" is not taken for Jy.
func headerTokens(header string) (cols, units []string, err error) {
	toks := strings.Fields(header)
	for k := 0; k < len(toks); k++ {
		t := toks[k]
		if !strings.HasPrefix(t, "[") {
			cols, units = append(cols, t), append(units, "")
			continue
		}
		u := t
		for !strings.HasSuffix(u, "]") && k+1 < len(toks) {
			k++
			u += " " + toks[k]
		}
		switch {
		case !strings.HasSuffix(u, "]"):
			return nil, nil, fmt.Errorf("unit %q has no closing ']'", u)
		case len(cols) == 0:
			return nil, nil, fmt.Errorf("unit %s comes before any column", u)
		case units[len(units)-1] != "":
			return nil, nil, fmt.Errorf("column %q has two units, %s and %s", cols[len(cols)-1], units[len(units)-1], u)
		}
		units[len(units)-1] = u
	}
	return cols, units, nil
}

// Units a text catalog's columns may declare (astropy's spellings), with
// their factor to the reader's unit: Jy, degrees, Hz.
var (
	textFluxUnits  = []textUnit{{"Jy", 1}, {"mJy", 1e-3}, {"uJy", 1e-6}, {"μJy", 1e-6}, {"µJy", 1e-6}}
	textAngleUnits = []textUnit{{"deg", 1}, {"degree", 1}, {"degrees", 1}}
	textFreqUnits  = []textUnit{{"Hz", 1}, {"kHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9}}
	textNoUnits    = []textUnit{{"", 1}, {"dimensionless", 1}}
)

// textUnit is a unit a column may declare and its factor.
type textUnit struct {
	name  string
	scale float64
}

// unitScale is the factor of unit u ("[mJy]"; "", none given, is 1: the
// reader's unit) among the accepted ones, or an error naming column col,
// its kind and what is accepted (a list starting with "" is of a column
// without unit).
func unitScale(col, kind, u string, accepted []textUnit) (float64, error) {
	if u == "" {
		return 1, nil
	}
	name := strings.TrimSpace(u[1 : len(u)-1])
	var names []string
	for _, a := range accepted {
		if a.name == name {
			return a.scale, nil
		}
		if a.name != "" {
			names = append(names, a.name)
		}
	}
	if accepted[0].name == "" {
		return 0, fmt.Errorf("column %q has unit %s: a %s column takes no unit", col, u, kind)
	}
	return 0, fmt.Errorf("column %q has unit %s: a %s column takes %s (pyradiosky ignores the unit and would read %s)", col, u, kind, strings.Join(names, ", "), names[0])
}

// checkUnits reads the header's units into the layout: one flux unit for
// every flux column (errors included), degrees for the coordinates, a
// frequency unit for Frequency and none for source_id and
// Spectral_Index.
func (lay *textLayout) checkUnits(cols, units []string) error {
	lay.flux, lay.refScale = fluxUnit{scale: 1, original: "Jy"}, 1
	fluxUnitCol := -1
	for k, u := range units {
		var (
			scale float64
			err   error
		)
		switch {
		case k == 0:
			_, err = unitScale(cols[k], "source_id", u, textNoUnits)
		case k <= 2:
			_, err = unitScale(cols[k], "coordinate", u, textAngleUnits)
		case k == lay.refCol:
			lay.refScale, err = unitScale(cols[k], "Frequency", u, textFreqUnits)
		case k == lay.indexCol:
			_, err = unitScale(cols[k], "Spectral_Index", u, textNoUnits)
		default: // a flux or flux error column
			if scale, err = unitScale(cols[k], "flux", u, textFluxUnits); err != nil {
				break
			}
			if fluxUnitCol >= 0 && scale != lay.flux.scale {
				err = fmt.Errorf("columns %q and %q have different flux units (%s, %s): give every flux column one unit", cols[fluxUnitCol], cols[k], units[fluxUnitCol], orDefault(u, "[Jy]"))
				break
			}
			fluxUnitCol = k
			lay.flux = fluxUnit{scale: scale, original: strings.TrimSuffix(strings.TrimPrefix(orDefault(u, "[Jy]"), "["), "]")}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// scaleRefFreqs turns the Frequency column's values into Hz.
func (lay *textLayout) scaleRefFreqs(ref []float64) {
	if lay.refScale == 1 {
		return
	}
	for i := range ref {
		ref[i] *= lay.refScale
	}
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
	lay := textLayout{refCol: -1, indexCol: -1}
	cols, units, err := headerTokens(header)
	if err != nil {
		return lay, err
	}
	lay.ncol = len(cols)
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
	return lay, lay.checkUnits(cols, units)
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

// textColumns holds the parsed rows, a slot for each row a chunk may
// hold, until compact closes the gaps that comment and blank lines leave.
type textColumns struct {
	// chunkNames holds each chunk's names until the parse ends; names is
	// made from them then (see gatherNames).
	chunkNames []chunkNames
	names      []string
	lon, lat   []float64
	fluxAll    []float64   // the flux columns back to back, frequency-major
	flux       [][]float64 // column k: fluxAll[k*slots:(k+1)*slots]
	ref, index []float64   // nil where the layout has no such column
}

func newTextColumns(slots, chunks int, lay textLayout) *textColumns {
	c := &textColumns{
		chunkNames: make([]chunkNames, chunks),
		lon:        make([]float64, slots),
		lat:        make([]float64, slots),
		fluxAll:    make([]float64, slots*len(lay.fluxCols)),
		flux:       make([][]float64, len(lay.fluxCols)),
	}
	for k := range c.flux {
		c.flux[k] = c.fluxAll[k*slots : (k+1)*slots : (k+1)*slots]
	}
	if lay.refCol >= 0 {
		c.ref = make([]float64, slots)
	}
	if lay.indexCol >= 0 {
		c.index = make([]float64, slots)
	}
	return c
}

// parseTextBody parses the data rows (from line 2) in parallel: the body,
// cut at line boundaries into chunks, every chunk writes its rows straight
// into its own range of the preallocated columns, and the first error by
// line number wins, as a sequential reader would report.
func parseTextBody(chunks [][]byte, name string, lay textLayout, guard guardFunc) (Components, error) {
	lines := make([]int, len(chunks)) // each chunk's lines (the last may lack its '\n')
	errs := make([]error, len(chunks))
	var wg sync.WaitGroup
	for k, ch := range chunks {
		wg.Go(func() {
			errs[k] = guard(func() error {
				lines[k] = bytes.Count(ch, []byte{'\n'})
				if len(ch) > 0 && ch[len(ch)-1] != '\n' {
					lines[k]++
				}
				return nil
			})
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return Components{}, err
		}
	}
	line0 := make([]int, len(chunks)) // each chunk's first line number
	slot0 := make([]int, len(chunks)) // and first row slot
	line, slots := 2, 0
	for k, n := range lines {
		line0[k], slot0[k] = line, slots
		line += n
		slots += maxRows(n, len(chunks[k]), lay.ncol)
	}
	cols := newTextColumns(slots, len(chunks), lay)
	rows := make([]int, len(chunks))
	for k, ch := range chunks {
		wg.Go(func() {
			errs[k] = guard(func() error {
				var err error
				rows[k], err = cols.parseChunk(k, ch, name, line0[k], slot0[k], maxRows(lines[k], len(ch), lay.ncol), lay)
				return err
			})
		})
	}
	wg.Wait()
	for _, err := range errs { // chunks are in line order
		if err != nil {
			return Components{}, err
		}
	}
	n := cols.compact(slot0, rows)
	if n == 0 {
		return Components{}, &ParseError{File: name, Err: errors.New("no sources after the header")}
	}
	cols.gatherNames(n)
	return cols.components(lay), nil
}

// splitLines cuts b into at most n pieces of similar size, but none under
// minChunk bytes, each ending just after a newline (the last may not).
func splitLines(b []byte, n, minChunk int) [][]byte {
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

// maxRows bounds the data rows in a chunk of n lines and size bytes: a
// row of ncol fields takes at least 2·ncol bytes with its separators and
// newline (the chunk's last row may lack the newline), so a file of blank
// lines does not get a slot, and its memory, per line.
func maxRows(n, size, ncol int) int {
	return min(n, (size+1)/(2*ncol))
}

// parseChunk parses the lines of ch (chunk k, its first line numbered
// line) into at most rows slots from slot on, and returns how many rows
// it wrote. The chunk's names are gathered in one string, which they
// will share (gatherNames).
func (c *textColumns) parseChunk(k int, ch []byte, name string, line, slot, rows int, lay textLayout) (int, error) {
	var names strings.Builder
	nameEnd := make([]int, 0, rows)
	fields := make([][]byte, 0, lay.ncol)
	vals := make([]float64, lay.ncol)
	for ; len(ch) > 0; line++ {
		var l []byte
		l, ch, _ = bytes.Cut(ch, []byte{'\n'})
		id, err := parseRow(name, line, l, lay, &fields, vals)
		if err != nil {
			return 0, err
		}
		if id == nil { // a blank or comment line
			continue
		}
		if names.Cap() == 0 {
			// Size the chunk's names from its first: growing the builder
			// by doubling copied them ~twice (0.15 of 0.57 s of CPU for
			// 2·10⁶ sources); a longer name later still grows it, and the
			// names never outgrow the chunk.
			names.Grow(min(rows*(len(id)+1), len(ch)))
		}
		names.Write(id)
		nameEnd = append(nameEnd, names.Len())
		c.setRow(slot+len(nameEnd)-1, vals, lay)
	}
	c.chunkNames[k] = chunkNames{all: names.String(), ends: nameEnd}
	return len(nameEnd), nil
}

// chunkNames are a chunk's names back to back in all, name i ending at
// ends[i]: nothing in them for the collector to scan.
type chunkNames struct {
	all  string
	ends []int
}

// gatherNames makes the n names, each chunk's after the chunks before it,
// once every chunk is parsed. Making the slice of 2·10⁶ strings only now,
// and filling it at once, keeps the collector from scanning it while it is
// still unwritten: a scan maps its untouched pages to the kernel's shared
// zero page, and every later write to one of them then takes a second
// fault and a TLB flush of every core the process runs on (in a VM an
// interprocessor interrupt each) — 0.05–0.1 s of a 2·10⁶-row catalog's
// reading when the slice was made before the parse.
func (c *textColumns) gatherNames(n int) {
	c.names = make([]string, n)
	var wg sync.WaitGroup
	slot := 0
	for _, cn := range c.chunkNames {
		names := c.names[slot : slot+len(cn.ends)]
		wg.Go(func() {
			start := 0
			for i, e := range cn.ends {
				names[i], start = cn.all[start:e], e
			}
		})
		slot += len(cn.ends)
	}
	wg.Wait()
	c.chunkNames = nil
}

// stripComment cuts line at its first '#'.
func stripComment(line []byte) []byte {
	if i := bytes.IndexByte(line, '#'); i >= 0 {
		return line[:i]
	}
	return line
}

// parseRow parses one body line: its numeric columns into vals (one value
// per column; every column but source_id is numeric), and returns its
// source_id, or nil for a blank or comment line. Plain rows take
// scanRow; the rest (and every error) are split into fields (scratch
// space) by bytes.Fields's rules and checked by checkRow.
func parseRow(name string, lineNo int, line []byte, lay textLayout, fields *[][]byte, vals []float64) ([]byte, error) {
	if id, ok := scanRow(line, lay.ncol, vals); ok && math.Abs(vals[2]) <= 90 &&
		(lay.refCol < 0 || vals[lay.refCol] > 0) {
		return id, nil
	}
	*fields = slices.AppendSeq((*fields)[:0], bytes.FieldsSeq(stripComment(line)))
	if len(*fields) == 0 {
		return nil, nil
	}
	return (*fields)[0], checkRow(name, lineNo, line, *fields, lay, vals)
}

// scanRow is parseRow's fast path for a plain ASCII row: fields separated
// by spaces or tabs, numbers that fastfloat's exact path takes, and at
// the end an optional comment or '\r'. ok is false for anything else.
func scanRow(line []byte, ncol int, vals []float64) (id []byte, ok bool) {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	i := skipBlanks(line, 0)
	start := i
	for i < len(line) && line[i] > ' ' && line[i] < utf8.RuneSelf && line[i] != '#' {
		i++
	}
	if i == start || !endsField(line, i) {
		return nil, false
	}
	id = line[start:i]
	for col := 1; col < ncol; col++ {
		i = skipBlanks(line, i)
		f, n, ok := fastfloat.ParsePrefix(line[i:])
		i += n
		if !ok || !endsField(line, i) {
			return nil, false
		}
		vals[col] = f
	}
	i = skipBlanks(line, i)
	return id, i == len(line) || line[i] == '#'
}

func skipBlanks(line []byte, i int) int {
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	return i
}

func endsField(line []byte, i int) bool {
	return i == len(line) || line[i] == ' ' || line[i] == '\t' || line[i] == '#'
}

// checkRow parses a row's fields into vals with strconv's rules and
// reports the first problem: its line, column, field and value.
func checkRow(name string, lineNo int, line []byte, fields [][]byte, lay textLayout, vals []float64) error {
	bad := func(col int, err error) error {
		return &ParseError{File: name, Line: lineNo, Field: fmt.Sprintf("column %d (%s)", col+1, lay.what(col)),
			Value: string(fields[col]), Err: err}
	}
	if len(fields) != lay.ncol {
		return &ParseError{File: name, Line: lineNo, Value: string(bytes.TrimSpace(stripComment(line))),
			Err: fmt.Errorf("%d fields, the header has %d", len(fields), lay.ncol)}
	}
	for col := 1; col < lay.ncol; col++ {
		v, err := fastfloat.ParseFloat(fields[col])
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

// setRow stores a parsed row's numbers in slot i.
func (c *textColumns) setRow(i int, vals []float64, lay textLayout) {
	for k, col := range lay.fluxCols {
		c.flux[k][i] = vals[col]
	}
	if c.ref != nil {
		c.ref[i] = vals[lay.refCol]
	}
	if c.index != nil {
		c.index[i] = vals[lay.indexCol]
	}
	lon := vals[1]
	if !(lon >= 0 && lon < 360) { // astropy's Longitude wraps to [0, 360)
		lon = math.Mod(lon, 360) // (math.Mod is slow; it returns lon itself inside)
		if lon < 0 {
			lon += 360
		}
	}
	c.lon[i] = lon * math.Pi / 180
	c.lat[i] = vals[2] * math.Pi / 180
}

func isFluxCol(c int, cols []int) bool {
	for _, x := range cols {
		if x == c {
			return true
		}
	}
	return false
}

// compact moves the numbers of chunk k's rows[k] rows from slot0[k] to
// just after the rows before them, closing the slots of comment and blank
// lines, and returns the number of rows (gatherNames places the names).
// With no such lines nothing moves.
func (c *textColumns) compact(slot0, rows []int) int {
	slots := len(c.lon)
	n := 0
	for k, r := range rows {
		if s := slot0[k]; s != n {
			for _, col := range c.floatColumns() {
				copy(col[n:n+r], col[s:s+r])
			}
		}
		n += r
	}
	c.lon, c.lat = c.lon[:n], c.lat[:n]
	if c.ref != nil {
		c.ref = c.ref[:n]
	}
	if c.index != nil {
		c.index = c.index[:n]
	}
	// The flux columns stay back to back (frequency-major) at stride n;
	// column k moves down, never over a column not yet moved.
	for k := range c.flux {
		if n != slots {
			copy(c.fluxAll[k*n:(k+1)*n], c.flux[k][:n])
		}
		c.flux[k] = c.fluxAll[k*n : (k+1)*n : (k+1)*n]
	}
	c.fluxAll = c.fluxAll[:len(c.flux)*n]
	return n
}

// floatColumns lists the per-slot numeric columns.
func (c *textColumns) floatColumns() [][]float64 {
	cols := append([][]float64{c.lon, c.lat}, c.flux...)
	if c.ref != nil {
		cols = append(cols, c.ref)
	}
	if c.index != nil {
		cols = append(cols, c.index)
	}
	return cols
}

func (c *textColumns) components(lay textLayout) Components {
	out := Components{Names: c.names, RA: c.lon, Dec: c.lat, Spectral: lay.spectral}
	switch lay.spectral {
	case SpectralIndex:
		out.RefFreq, out.Index = c.ref, c.index
		out.Stokes[0] = c.flux[0]
	case Flat:
		out.Stokes[0] = c.flux[0]
		out.RefFreq = c.ref
		out.Freqs = lay.freqs
	case Full:
		out.Stokes[0] = c.fluxAll // frequency-major: [k*n+i]
		out.Freqs = lay.freqs
	}
	return out
}
