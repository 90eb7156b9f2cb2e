// Package simspec reads and validates simspec v1, the JSON simulation
// specification that `gomatvis simulate` takes (see docs/simspec-v1.md).
//
// Decode never panics on any input; Validate reports every invalid field by
// its JSON path and value, so a user can fix a spec in one pass.
package simspec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/gomatvis/gomatvis/internal/inputfile"
	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// Spec is one simulation specification.
type Spec struct {
	Name        string      `json:"name"`
	Telescope   Telescope   `json:"telescope"`
	AntennasENU [][]float64 `json:"antennas_enu_m"`
	// LayoutCSV, instead of antennas_enu_m and beam_idx, names a pyuvsim
	// layout file (Name Number BeamID E N U; BeamID indexes beams),
	// relative to the spec's directory.
	LayoutCSV      string      `json:"layout_csv,omitempty"`
	FreqsHz        []float64   `json:"freqs_hz"`
	TimesJD        []float64   `json:"times_jd"`
	EOP            []EOP       `json:"eop,omitempty"`
	Sources        Sources     `json:"sources"`
	Beams          []Beam      `json:"beams"`
	BeamIdx        []int       `json:"beam_idx"`
	AntPairs       [][]int     `json:"antpairs"`
	Polarized      bool        `json:"polarized"`
	Precision      int         `json:"precision"`
	UseFeed        string      `json:"use_feed,omitempty"`
	BeamSplineOpts *SplineOpts `json:"beam_spline_opts,omitempty"`
	CoordMethod    string      `json:"coord_method,omitempty"`
	// Options are gomatvis extensions (matvis keyword arguments that are not
	// part of simspec v1); all are optional.
	Options *Options `json:"options,omitempty"`

	// Dir is the directory of the spec file; beamfits paths are relative to it.
	Dir string `json:"-"`
}

// Telescope is the geodetic (WGS84) position of the array centre.
type Telescope struct {
	// Name is the telescope's name (UVH5's telescope_name); optional.
	Name    string  `json:"name,omitempty"`
	LatDeg  float64 `json:"lat_deg"`
	LonDeg  float64 `json:"lon_deg"`
	HeightM float64 `json:"height_m"`
}

// EOP holds the Earth-orientation values to use at one time.
type EOP struct {
	UT1MinusUTCSec float64 `json:"ut1_utc_s"`
	XpArcsec       float64 `json:"xp_arcsec"`
	YpArcsec       float64 `json:"yp_arcsec"`
}

// Sources is the point-source sky: ICRS positions and Stokes-I flux per
// source (rows) and frequency (columns).
type Sources struct {
	RARad  []float64 `json:"ra_rad"`
	DecRad []float64 `json:"dec_rad"`
	// FluxJy is Stokes I, one row per source of one value per frequency:
	// written as rows or as one flat row-major array (see Table).
	FluxJy Table `json:"flux_jy"`
	// StokesQJy, StokesUJy and StokesVJy, when given, are Stokes Q, U and
	// V laid out as FluxJy (a full-Stokes sky, docs/stokes.md; a
	// polarized run is then needed).
	StokesQJy Table `json:"stokes_q_jy,omitzero"`
	StokesUJy Table `json:"stokes_u_jy,omitzero"`
	StokesVJy Table `json:"stokes_v_jy,omitzero"`
	// Catalog, instead of the three arrays, names a sky catalog whose
	// spectral model is evaluated per channel.
	Catalog *Catalog `json:"catalog,omitempty"`
}

// Catalog is a sky-catalog file with pyuvsim's selection keys.
type Catalog struct {
	// Path is relative to the spec's directory.
	Path string `json:"path"`
	// Filetype is skyh5, text, gleam, vot or stokes_tsv; empty: by extension.
	Filetype string `json:"filetype,omitempty"`
	// MinFluxJy and MaxFluxJy keep components with Stokes I within them.
	MinFluxJy *float64 `json:"min_flux_jy,omitempty"`
	MaxFluxJy *float64 `json:"max_flux_jy,omitempty"`
	// NonNegative drops components with negative Stokes I.
	NonNegative bool `json:"non_negative,omitempty"`
}

// Beam is one unique beam. Type is an analytic beam type's name
// (beam.AnalyticTypes: uniform, gaussian, airy, short_dipole) or beamfits;
// the other fields apply to some types only.
type Beam struct {
	Type      string  `json:"type"`
	SigmaRad  float64 `json:"sigma_rad,omitempty"`
	DiameterM float64 `json:"diameter_m,omitempty"`
	Path      string  `json:"path,omitempty"`
	// Jones is "" for pyuvdata 3's analytic E-field (what matvis uses:
	// each feed sees both axes at g/√2) or "diagonal" for pyuvsim's
	// diag(g, g); uniform, gaussian and airy only.
	Jones string `json:"jones,omitempty"`
}

// JonesDiagonal is Beam.Jones for pyuvsim's analytic-beam convention.
const JonesDiagonal = "diagonal"

// SplineOpts chooses the gridded-beam spatial interpolation: order 1
// (bilinear) or 3 (prefiltered cubic B-spline, the default).
type SplineOpts struct {
	Order int `json:"order"`
}

// Options are gomatvis's run options beyond simspec v1, named like matvis's
// keyword arguments.
type Options struct {
	MaxMemoryBytes   float64 `json:"max_memory_bytes,omitempty"`
	MinChunks        int     `json:"min_chunks,omitempty"`
	SourceBuffer     float64 `json:"source_buffer,omitempty"`
	MemoryBuffer     float64 `json:"memory_buffer,omitempty"`
	MatProd          string  `json:"matprod,omitempty"`
	UpdateBCRSEveryS float64 `json:"update_bcrs_every_s,omitempty"`
}

// Coordinate methods accepted in coord_method.
const (
	CoordAstropy     = "CoordinateRotationAstropy"
	CoordERFA        = "CoordinateRotationERFA"
	CoordPrecomputed = "precomputed"
)

// beamTypes are the accepted beam types: the analytic ones
// (beam.AnalyticTypes) and beamfits.
var beamTypes = func() []string {
	var names []string
	for _, t := range beam.AnalyticTypes() {
		names = append(names, t.Name)
	}
	return append(names, "beamfits")
}()

// FieldError is one invalid field: its JSON path, its value and what is wrong.
type FieldError struct {
	Field string
	Value any
	Msg   string
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("%s = %s: %s", e.Field, short(e.Value), e.Msg)
}

// ValidationError lists every invalid field of a spec.
type ValidationError struct {
	Fields []*FieldError
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "simspec: %d invalid field(s):", len(e.Fields))
	for _, f := range e.Fields {
		b.WriteString("\n  ")
		b.WriteString(f.Error())
	}
	return b.String()
}

func short(v any) string {
	s := fmt.Sprintf("%v", v)
	if js, err := json.Marshal(v); err == nil {
		s = string(js)
	}
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// MaxSpecBytes is the largest spec Decode and ReadFile accept.
const MaxSpecBytes int64 = 1 << 31

// Decode parses a spec from r (unknown fields are errors, so typos are
// caught) and validates it. dir is the directory beamfits paths are
// relative to. A UTF-8 byte-order mark is skipped; the document must be one
// JSON object whose keys are spelled exactly as documented, none repeated,
// and nothing but white space after it.
func Decode(r io.Reader, dir string) (*Spec, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxSpecBytes+1))
	if err != nil {
		return nil, fmt.Errorf("simspec: reading: %w", err)
	}
	if int64(len(data)) > MaxSpecBytes {
		return nil, fmt.Errorf("simspec: %w: more than %d bytes", inputfile.ErrTooLarge, MaxSpecBytes)
	}
	return decode(data, dir)
}

// decode parses and validates the bytes of a spec, in one pass over them
// (parseSpec).
func decode(data []byte, dir string) (*Spec, error) {
	return decodeGuarded(data, dir, unguarded)
}

// decodeGuarded is decode with every read of data by another goroutine
// (the parallel number arrays) run inside guard (inputfile.Mapping.Guard
// for a mapped file); the caller guards its own goroutine's reads.
func decodeGuarded(data []byte, dir string, guard guardFunc) (*Spec, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	if err := checkIsObject(data); err != nil {
		return nil, fmt.Errorf("simspec: %w", err)
	}
	var s Spec
	if err := parseSpecGuarded(data, &s, guard); err != nil {
		return nil, fmt.Errorf("simspec: %w", explain(data, err))
	}
	s.Dir = dir
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// explain describes an error of parseSpec. Key errors say all themselves.
// Malformed JSON and values of the wrong type are described as
// encoding/json's reading of the same document describes them (the
// messages users and tests know: what was found, what the field wants,
// line and column); that second reading costs time on this error path
// only.
func explain(data []byte, err error) error {
	var pe *parseError
	if !errors.As(err, &pe) {
		return err
	}
	if pe.notUTF8 {
		line, col := lineCol(data, int64(pe.off)+1)
		return fmt.Errorf("line %d, column %d: %s", line, col, pe.msg)
	}
	var s Spec
	if ref := decodeStd(data, &s); ref != nil {
		return describeJSONError(data, ref)
	}
	// encoding/json accepts what parseSpec refused: a bug of parseSpec
	// (FuzzParseTwin looks for these), reported with where it happened.
	line, col := lineCol(data, int64(pe.off)+1)
	return fmt.Errorf("malformed JSON at line %d, column %d: %s", line, col, pe.msg)
}

// decodeStd reads a spec document with encoding/json alone: the plain
// reading that parseSpec must agree with, used for its error messages and
// as the twin in tests. It neither checks keys' case nor refuses repeated
// keys or trailing data.
func decodeStd(data []byte, s *Spec) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(s)
}

// ReadFile reads and validates the spec at path. Anything but a regular
// file (a directory, a FIFO, /dev/zero) is refused before reading, and so
// is a file over MaxSpecBytes, by its size.
//
// The file is mapped, not read (inputfile.Map): a spec of millions of
// sources is parsed straight from the page cache, without copying its
// bytes into a buffer of fresh memory first (108 MB: 0.09–0.10 s of one
// core and the heap's largest object), every read of them guarded
// against the file shrinking meanwhile. Nothing of the Spec points into
// the mapping: its strings are copies and its numbers converted.
func ReadFile(path string) (*Spec, error) {
	m, err := inputfile.Map(path, MaxSpecBytes)
	if err != nil {
		return nil, fmt.Errorf("simspec: %w", err)
	}
	defer m.Close()
	var s *Spec
	err = m.Guard(func() error {
		var err error
		s, err = decodeGuarded(m.Bytes(), filepath.Dir(path), m.Guard)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// describeJSONError adds line:column to syntax errors and names the field
// of type errors; Python's json writes NaN/Infinity literals, which are not
// JSON, so those get a hint.
func describeJSONError(data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		line, col := lineCol(data, int64(len(data))+1)
		return fmt.Errorf("malformed JSON: the document ends early at line %d, column %d: %w", line, col, err)
	case errors.As(err, &se):
		line, col := lineCol(data, se.Offset)
		hint := ""
		rest := data[min(int(se.Offset)-1, len(data)):]
		rest = rest[:min(len(rest), 12)]
		if se.Offset > 0 && bytes.ContainsAny(rest, "NI") {
			hint = " (NaN and Infinity are not allowed: every number must be finite)"
		}
		return fmt.Errorf("malformed JSON at line %d, column %d: %w%s", line, col, err, hint)
	case errors.As(err, &te):
		return fmt.Errorf("field %q: got a JSON %s, want %s: %w", te.Field, te.Value, te.Type, err)
	}
	return err
}

func lineCol(data []byte, off int64) (int, int) {
	line, col := 1, 1
	for i := 0; i < int(off)-1 && i < len(data); i++ {
		if data[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// Physical limits Validate enforces; matvis.New's checks of the library
// path use the same values.
const (
	// MaxAntennaOffsetM bounds |east|, |north| and |up| of an antenna.
	MaxAntennaOffsetM = 1e7
	// MaxFreqHz bounds the frequencies (radio, not optical).
	MaxFreqHz = 1e12
	// MinTimeJD is 1960-01-01 (UTC Julian date), where the UTC
	// leap-second table starts.
	MinTimeJD = 2436934.5
	// MaxTimeJD is 2500-01-01 (UTC Julian date).
	MaxTimeJD = 2816787.5
)

// mhzSuspectHz: when every frequency is below it, they were given in MHz.
const mhzSuspectHz = 1e4

// mjdOffset is JD − MJD.
const mjdOffset = 2400000.5

// timeHint explains a times_jd value outside [MinTimeJD, MaxTimeJD],
// recognising an MJD or a year given instead of a Julian date.
func timeHint(v float64) string {
	const want = "Julian date must lie between 1960 and 2500"
	jd := v + mjdOffset
	switch {
	case v >= 1960 && v <= 2500:
		return fmt.Sprintf("looks like a year; simspec wants a UTC Julian date (%s)", want)
	case jd >= MinTimeJD && jd <= MaxTimeJD:
		return fmt.Sprintf("looks like an MJD: %s + %s = %s would be the Julian date (%s)",
			ftoa(v), ftoa(mjdOffset), ftoa(jd), want)
	}
	return want
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// NAnt is the number of antennas.
func (s *Spec) NAnt() int { return len(s.AntennasENU) }

// NSrc is the number of sources.
func (s *Spec) NSrc() int { return len(s.Sources.RARad) }

// Validate checks every field and returns a *ValidationError listing all
// problems, or nil.
func (s *Spec) Validate() error {
	var c checker
	c.telescope(s.Telescope)
	c.antennas(s)
	c.freqs(s)
	c.times(s)
	c.sourcePositions(s)
	c.fluxes(s)
	c.beams(s)
	nant := len(s.AntennasENU)
	if s.LayoutCSV != "" {
		nant = math.MaxInt // the layout's antennas are checked when it is read
	}
	c.beamIndex(s, nant)
	c.antPairs(s, nant)
	c.options(s)
	if len(c.errs) > 0 {
		return &ValidationError{c.errs}
	}
	return nil
}

// checker collects the field errors of Spec.Validate, whose steps are its
// methods, one per part of the spec, in the order the errors are listed.
type checker struct{ errs []*FieldError }

// bad records that field (value v) is wrong.
func (c *checker) bad(field string, v any, format string, a ...any) {
	c.errs = append(c.errs, &FieldError{field, v, fmt.Sprintf(format, a...)})
}

// finite records a NaN or infinite v and says whether v is finite.
func (c *checker) finite(field string, v float64) bool {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		c.bad(field, v, "must be finite")
		return false
	}
	return true
}

// isFinite reports whether v is neither NaN nor infinite.
func isFinite(v float64) bool { return v-v == 0 }

// elem names element i of field: "freqs_hz[3]". Validate formats a name
// only for an element it refuses (formatting each one cost as much as
// reading the spec).
func elem(field string, i int) string { return field + "[" + strconv.Itoa(i) + "]" }

// positive records a v that is not finite and positive.
func (c *checker) positive(field string, v float64) {
	if c.finite(field, v) && v <= 0 {
		c.bad(field, v, "must be positive")
	}
}

// telescope checks the site.
func (c *checker) telescope(t Telescope) {
	bad, finite := c.bad, c.finite
	if finite("telescope.lat_deg", t.LatDeg) && math.Abs(t.LatDeg) > 90 {
		bad("telescope.lat_deg", t.LatDeg, "latitude must be within [-90, 90]")
	}
	if finite("telescope.lon_deg", t.LonDeg) && math.Abs(t.LonDeg) > 360 {
		bad("telescope.lon_deg", t.LonDeg, "longitude must be within [-360, 360]")
	}
	if finite("telescope.height_m", t.HeightM) && isFinite(t.LatDeg) && math.Abs(t.LatDeg) <= 90 {
		if err := astro.CheckSite(astro.Site{LatDeg: t.LatDeg, HeightM: t.HeightM}); err != nil {
			bad("telescope.height_m", t.HeightM, "%v", err)
		}
	}
}

// antennas checks the layout's source (a CSV or inline positions) and the
// inline positions.
func (c *checker) antennas(s *Spec) {
	bad, finite := c.bad, c.finite
	switch {
	case s.LayoutCSV != "" && (len(s.AntennasENU) > 0 || s.BeamIdx != nil):
		bad("layout_csv", s.LayoutCSV, "give either layout_csv or antennas_enu_m with beam_idx, not both")
	case s.LayoutCSV == "" && len(s.AntennasENU) == 0:
		bad("antennas_enu_m", s.AntennasENU, "need at least one antenna")
	}
	for i, a := range s.AntennasENU {
		if len(a) != 3 {
			bad(elem("antennas_enu_m", i), a, "want [e, n, u], got %d numbers", len(a))
			continue
		}
		for k, v := range a {
			if math.Abs(v) < MaxAntennaOffsetM {
				continue
			}
			fk := elem(elem("antennas_enu_m", i), k)
			if finite(fk, v) {
				bad(fk, v, "antenna positions are metres east, north and up of the array centre; each must be within ±%g m", MaxAntennaOffsetM)
			}
		}
	}
}

// freqs checks the frequencies, Hz (not MHz).
func (c *checker) freqs(s *Spec) {
	bad, finite := c.bad, c.finite
	if len(s.FreqsHz) == 0 {
		bad("freqs_hz", s.FreqsHz, "need at least one frequency")
	}
	allLow := len(s.FreqsHz) > 0
	for i, v := range s.FreqsHz {
		switch {
		case v > 0 && v < MaxFreqHz:
		case !finite(elem("freqs_hz", i), v):
			allLow = false
		case v <= 0:
			bad(elem("freqs_hz", i), v, "frequency must be positive")
		default:
			bad(elem("freqs_hz", i), v, "frequency must be below %g Hz", MaxFreqHz)
		}
		allLow = allLow && v < mhzSuspectHz
	}
	c.distinct("freqs_hz", s.FreqsHz, "frequencies")
	if allLow {
		bad("freqs_hz", s.FreqsHz, "frequencies look like MHz: %g Hz; simspec wants Hz (every frequency is below %g Hz)", s.FreqsHz[0], mhzSuspectHz)
	}
}

// distinct records the first value of field that repeats an earlier one
// (finite values only: others have their own message): a repeated
// channel or time would be simulated twice, an output with two equal
// channels or times that no reader can select from unambiguously. The
// order is free (matvis and the writers keep it).
func (c *checker) distinct(field string, v []float64, what string) {
	if len(v) < 2 {
		return
	}
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return v[idx[a]] < v[idx[b]] })
	first, dup := -1, -1
	for k := 1; k < len(idx); k++ {
		a, b := idx[k-1], idx[k]
		if v[a] == v[b] && isFinite(v[a]) && (dup < 0 || b < dup) {
			first, dup = a, b
		}
	}
	if dup >= 0 {
		c.bad(elem(field, dup), v[dup], "repeats %s: each of the %s must appear once (remove the repeat)", elem(field, first), what)
	}
}

// times checks the times and their Earth-orientation entries.
func (c *checker) times(s *Spec) {
	bad, finite := c.bad, c.finite
	if len(s.TimesJD) == 0 {
		bad("times_jd", s.TimesJD, "need at least one time")
	}
	for i, v := range s.TimesJD {
		if v >= MinTimeJD && v <= MaxTimeJD {
			continue
		}
		if f := elem("times_jd", i); finite(f, v) {
			bad(f, v, "%s", timeHint(v))
		}
	}
	c.distinct("times_jd", s.TimesJD, "times")
	if s.EOP != nil && len(s.EOP) != len(s.TimesJD) {
		bad("eop", fmt.Sprintf("%d entries", len(s.EOP)), "want one entry per time (%d)", len(s.TimesJD))
	}
	for i, e := range s.EOP {
		f := elem("eop", i)
		if finite(f+".ut1_utc_s", e.UT1MinusUTCSec) && math.Abs(e.UT1MinusUTCSec) > 1 {
			bad(f+".ut1_utc_s", e.UT1MinusUTCSec, "|UT1-UTC| must be below 1 s")
		}
		if finite(f+".xp_arcsec", e.XpArcsec) && math.Abs(e.XpArcsec) > 10 {
			bad(f+".xp_arcsec", e.XpArcsec, "polar motion must be within ±10 arcsec")
		}
		if finite(f+".yp_arcsec", e.YpArcsec) && math.Abs(e.YpArcsec) > 10 {
			bad(f+".yp_arcsec", e.YpArcsec, "polar motion must be within ±10 arcsec")
		}
	}
}

// sourcePositions checks where the sources come from (catalog or inline)
// and the inline positions, radians.
func (c *checker) sourcePositions(s *Spec) {
	bad, finite := c.bad, c.finite
	src := s.Sources
	nsrc := len(src.RARad)
	switch c := src.Catalog; {
	case c != nil && (nsrc > 0 || len(src.DecRad) > 0 || !src.FluxJy.empty() || src.StokesQJy.Given() || src.StokesUJy.Given() || src.StokesVJy.Given()):
		bad("sources.catalog", c.Path, "give either a catalog or ra_rad, dec_rad and flux_jy, not both")
	case c != nil:
		validateCatalog(c, bad, finite)
	case nsrc == 0:
		bad("sources.ra_rad", src.RARad, "need at least one source")
	}
	if len(src.DecRad) != nsrc {
		bad("sources.dec_rad", fmt.Sprintf("%d values", len(src.DecRad)), "want one per source (%d, the length of ra_rad)", nsrc)
	}
	c.tableSize("sources.flux_jy", src.FluxJy, nsrc, len(s.FreqsHz), "")
	for i, v := range src.RARad {
		if math.Abs(v) <= 2*math.Pi {
			continue
		}
		if f := elem("sources.ra_rad", i); finite(f, v) {
			bad(f, v, "|ra| is above 2π: looks like degrees; simspec wants radians")
		}
	}
	for i, v := range src.DecRad {
		if math.Abs(v) <= math.Pi/2 {
			continue
		}
		switch f := elem("sources.dec_rad", i); {
		case !finite(f, v):
		case math.Abs(v) <= 90:
			bad(f, v, "|dec| is above π/2: looks like degrees; simspec wants radians")
		default:
			bad(f, v, "|dec| must be at most π/2")
		}
	}
}

// fluxes checks the inline sources' Stokes-I table and the optional Q, U,
// V tables.
func (c *checker) fluxes(s *Spec) {
	src := s.Sources
	nsrc, nfreq := len(src.RARad), len(s.FreqsHz)
	c.tableRows("sources.flux_jy", src.FluxJy, nfreq, "want one flux per frequency (%d)")
	c.tableValues("sources.flux_jy", src.FluxJy, nfreq, func(v float64) string {
		switch {
		case v >= 0 && v <= math.MaxFloat64:
			return ""
		case !isFinite(v):
			return "must be finite"
		}
		return "Stokes-I flux must not be negative (matvis would produce NaN)"
	})
	for k, t := range []Table{src.StokesQJy, src.StokesUJy, src.StokesVJy} {
		field := "sources.stokes_" + "quv"[k:k+1] + "_jy"
		if !t.Given() || !c.tableSize(field, t, nsrc, nfreq, ", like flux_jy") {
			continue
		}
		c.tableRows(field, t, nfreq, "want one value per frequency (%d)")
		c.tableValues(field, t, nfreq, func(v float64) string {
			if isFinite(v) {
				return ""
			}
			return "must be finite"
		})
	}
}

// tableSize checks that a table has one row per source (nsrc) or, flat,
// nsrc·nfreq values, and says whether it has. like ends the rows form's
// message.
func (c *checker) tableSize(field string, t Table, nsrc, nfreq int, like string) bool {
	switch {
	case t.Flat() && len(t.values) != nsrc*nfreq:
		c.bad(field, fmt.Sprintf("%d values", len(t.values)),
			"a flat table wants one value per source and frequency, row-major: %d sources × %d frequencies = %d values", nsrc, nfreq, nsrc*nfreq)
		return false
	case !t.Flat() && t.rows != nsrc:
		c.bad(field, fmt.Sprintf("%d rows", t.rows), "want one row per source (%d)%s", nsrc, like)
		return false
	}
	return true
}

// tableRows checks that each row of a table in the rows form has nfreq
// values; msg says what a row wants.
func (c *checker) tableRows(field string, t Table, nfreq int, msg string) {
	if t.Flat() || t.rows == 0 || (t.lens == nil && t.rowLen(0) == nfreq) {
		return // the common case, row by row only when a row is wrong
	}
	for i := range t.rows {
		if n := t.rowLen(i); n != nfreq {
			c.bad(elem(field, i), fmt.Sprintf("%d values", n), msg, nfreq)
		}
	}
}

// tableValues reports each value of t that why refuses (why returns the
// reason, "" for a good value), named as the spec writes it: field[i][k]
// in the rows form, field[j] in the flat form. Rows of the wrong length
// (tableRows reports them) are not looked into.
func (c *checker) tableValues(field string, t Table, nfreq int, why func(float64) string) {
	if t.Flat() {
		for j, v := range t.values {
			if msg := why(v); msg != "" {
				c.bad(elem(field, j), v, "%s", msg)
			}
		}
		return
	}
	off := 0
	for i := range t.rows {
		n := t.rowLen(i)
		if n == nfreq {
			for k, v := range t.values[off : off+n] {
				if msg := why(v); msg != "" {
					c.bad(elem(elem(field, i), k), v, "%s", msg)
				}
			}
		}
		off += n
	}
}

// beams checks each beam's type, parameters and Jones form.
func (c *checker) beams(s *Spec) {
	bad := c.bad
	if len(s.Beams) == 0 {
		bad("beams", s.Beams, "need at least one beam")
	}
	for i, b := range s.Beams {
		f := elem("beams", i)
		t, analytic := beam.LookupAnalytic(b.Type)
		switch {
		case analytic:
			c.shape(f, b, t)
		case b.Type == "beamfits":
			if b.Path == "" {
				bad(f+".path", b.Path, "a beamfits beam needs a path")
			}
		default:
			bad(f+".type", b.Type, "unknown beam type; want one of %s", strings.Join(beamTypes, ", "))
		}
		switch {
		case b.Jones == "":
		case b.Jones != JonesDiagonal:
			bad(f+".jones", b.Jones, `want "diagonal" (pyuvsim's analytic beams) or nothing`)
		case !analytic || !t.Diagonal:
			bad(f+".jones", b.Jones, "a diagonal Jones matrix applies to %s beams only, not %s", diagonalTypes(), b.Type)
		}
	}
}

// shapeKeys are the spec's names of the analytic beams' shape values.
var shapeKeys = map[beam.ShapeParam]string{beam.ShapeSigma: "sigma_rad", beam.ShapeDiameter: "diameter_m"}

// shape checks an analytic beam's shape values: of those its type takes
// (beam.AnalyticType.Shape), exactly one is given, and it is positive.
func (c *checker) shape(f string, b Beam, t beam.AnalyticType) {
	v := beam.Shape{SigmaRad: b.SigmaRad, DiameterM: b.DiameterM}
	var given []beam.ShapeParam
	var keys []string
	for _, p := range t.Shape {
		keys = append(keys, shapeKeys[p])
		if v.Value(p) != 0 {
			given = append(given, p)
		}
	}
	switch {
	case len(t.Shape) == 0:
	case len(t.Shape) == 1 && len(given) == 0:
		c.bad(f+"."+keys[0], 0.0, "%s %s beam needs a positive %s", article(t.Name), t.Name, keys[0])
	case len(given) != 1:
		c.bad(f, b, "a %s beam needs exactly one of %s", t.Name, listAnd(keys))
	default:
		p, field := given[0], f+"."+shapeKeys[given[0]]
		c.positive(field, v.Value(p))
		if x := v.Value(p); x > 0 && isFinite(x) {
			if err := beam.CheckShape(p, x); err != nil {
				c.bad(field, x, "%v", err)
			}
		}
	}
}

// diagonalTypes lists the analytic types a diagonal Jones matrix applies
// to: "uniform, gaussian and airy".
func diagonalTypes() string {
	var names []string
	for _, t := range beam.AnalyticTypes() {
		if t.Diagonal {
			names = append(names, t.Name)
		}
	}
	return listAnd(names)
}

// listAnd joins "a", "a and b", "a, b and c".
func listAnd(s []string) string {
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// article is "an" before a vowel, else "a".
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

// beamIndex checks which beam each of nant antennas uses.
func (c *checker) beamIndex(s *Spec, nant int) {
	bad := c.bad
	nbeam := len(s.Beams)
	switch {
	case s.LayoutCSV != "": // the layout's BeamIDs index the beams
	case s.BeamIdx == nil:
		if nbeam != 1 && nbeam != nant && nbeam > 0 {
			bad("beam_idx", nil, "null needs one beam or one per antenna; got %d beams for %d antennas", nbeam, nant)
		}
	default:
		if len(s.BeamIdx) != nant {
			bad("beam_idx", fmt.Sprintf("%d entries", len(s.BeamIdx)), "want one per antenna (%d)", nant)
		}
		for i, b := range s.BeamIdx {
			if b < 0 || b >= nbeam {
				bad(elem("beam_idx", i), b, "beam index out of range [0, %d)", nbeam)
			}
		}
	}
}

// antPairs checks the selected baselines against nant antennas.
func (c *checker) antPairs(s *Spec, nant int) {
	bad := c.bad
	if s.AntPairs != nil && len(s.AntPairs) == 0 {
		bad("antpairs", s.AntPairs, "an empty list selects no baseline; use null for all pairs")
	}
	for i, p := range s.AntPairs {
		if len(p) != 2 {
			bad(elem("antpairs", i), p, "want [i, j]")
			continue
		}
		for _, a := range p {
			if a < 0 || a >= nant {
				bad(elem("antpairs", i), p, "antenna %d out of range [0, %d)", a, nant)
				break
			}
		}
	}
}

// options checks precision, feed, spline order, coordinate method and the
// run options.
func (c *checker) options(s *Spec) {
	bad := c.bad
	if s.Precision != 1 && s.Precision != 2 {
		bad("precision", s.Precision, "must be 1 (float32) or 2 (float64)")
	}
	switch s.UseFeed {
	case "", "x", "y":
	default:
		bad("use_feed", s.UseFeed, `must be "x" or "y"`)
	}
	if s.BeamSplineOpts != nil && s.BeamSplineOpts.Order != 1 && s.BeamSplineOpts.Order != 3 {
		bad("beam_spline_opts.order", s.BeamSplineOpts.Order, "must be 1 (bilinear) or 3 (cubic spline)")
	}
	switch s.CoordMethod {
	case "", CoordAstropy, CoordERFA, CoordPrecomputed:
	default:
		bad("coord_method", s.CoordMethod, "want %s or %s", CoordAstropy, CoordERFA)
	}
	if o := s.Options; o != nil {
		if o.MaxMemoryBytes < 0 || math.IsNaN(o.MaxMemoryBytes) {
			bad("options.max_memory_bytes", o.MaxMemoryBytes, "must be positive")
		}
		if o.MinChunks < 0 {
			bad("options.min_chunks", o.MinChunks, "must be at least 1")
		}
		if o.SourceBuffer < 0 || o.SourceBuffer > 1 || math.IsNaN(o.SourceBuffer) {
			bad("options.source_buffer", o.SourceBuffer, "must be within (0, 1]")
		}
		if o.MemoryBuffer < 0 || o.MemoryBuffer > 1 || math.IsNaN(o.MemoryBuffer) {
			bad("options.memory_buffer", o.MemoryBuffer, "must be within (0, 1]")
		}
		switch o.MatProd {
		case "", "herk", "pairs":
		default:
			bad("options.matprod", o.MatProd, `must be "herk" or "pairs"`)
		}
		if o.UpdateBCRSEveryS < 0 || math.IsNaN(o.UpdateBCRSEveryS) {
			bad("options.update_bcrs_every_s", o.UpdateBCRSEveryS, "must not be negative")
		}
	}
}
