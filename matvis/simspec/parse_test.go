package simspec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// member is one key and value of a JSON object written by writeJSON, in
// order (so that the document's key order is random too).
type member struct {
	key string
	val any
}

// exact is a number the writer spells without rounding: the times and
// frequencies, which Validate refuses when two are equal (two times of
// one day rounded to 3 digits would be).
type exact float64

// jsonWriter writes a document of members, arrays ([]any), float64,
// int, string, bool and nil, with the numbers in a random one of JSON's
// spellings and random white space, so that both readers see the same
// unusual bytes.
type jsonWriter struct {
	rng *rand.Rand
	b   bytes.Buffer
}

func (w *jsonWriter) space() {
	w.b.WriteString([]string{"", "", " ", "\n", "\t", "\r\n  "}[w.rng.IntN(6)])
}

func (w *jsonWriter) value(v any) {
	w.space()
	switch v := v.(type) {
	case nil:
		w.b.WriteString("null")
	case bool:
		w.b.WriteString(strconv.FormatBool(v))
	case int:
		w.b.WriteString(strconv.Itoa(v))
	case string:
		js, _ := json.Marshal(v)
		if w.rng.IntN(2) == 0 {
			js = []byte(strconv.QuoteToASCII(v)) // \u escapes: the same string
			js = bytes.ReplaceAll(js, []byte(`\x`), []byte(`\u00`))
		}
		w.b.Write(js)
	case float64:
		w.b.WriteString(w.number(v))
	case exact:
		w.b.WriteString(strconv.FormatFloat(float64(v), []byte("eEfg")[w.rng.IntN(4)], -1, 64))
	case []any:
		w.b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				w.b.WriteByte(',')
			}
			w.value(e)
		}
		w.space()
		w.b.WriteByte(']')
	case []member:
		w.b.WriteByte('{')
		for i, m := range v {
			if i > 0 {
				w.b.WriteByte(',')
			}
			w.space()
			w.b.WriteString(strconv.Quote(m.key))
			w.space()
			w.b.WriteByte(':')
			w.value(m.val)
		}
		w.space()
		w.b.WriteByte('}')
	default:
		panic(fmt.Sprintf("jsonWriter: %T", v))
	}
	w.space()
}

// number spells v as JSON allows: shortest, exponent (e or E, signed or
// not), fixed, rounded to fewer digits, or -0 for zero.
func (w *jsonWriter) number(v float64) string {
	switch w.rng.IntN(7) {
	case 0:
		return strconv.FormatFloat(v, 'e', -1, 64)
	case 1:
		return strings.Replace(strconv.FormatFloat(v, 'E', 17, 64), "E+", "E", 1)
	case 2:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case 3:
		return strconv.FormatFloat(v, 'e', 2+w.rng.IntN(16), 64)
	case 4:
		if v == 0 {
			return "-0"
		}
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// exactList marks a list's numbers exact.
func exactList(l []any) []any {
	for i, v := range l {
		l[i] = exact(v.(float64))
	}
	return l
}

// randomTable is an nsrc × nfreq table, as rows or flat, of values from
// draw.
func randomTable(rng *rand.Rand, nsrc, nfreq int, draw func() float64) []any {
	flat := rng.IntN(2) == 0
	var out []any
	for range nsrc {
		var row []any
		for range nfreq {
			row = append(row, draw())
		}
		if flat {
			out = append(out, row...)
		} else {
			out = append(out, row)
		}
	}
	return out
}

// randomSpec is a valid spec document with random sizes, values, optional
// keys, key order and spelling.
func randomSpec(rng *rand.Rand) []byte {
	nant, nsrc, nfreq, ntime := 1+rng.IntN(5), 1+rng.IntN(40), 1+rng.IntN(4), 1+rng.IntN(3)
	uni := func(lo, hi float64) func() float64 { return func() float64 { return lo + (hi-lo)*rng.Float64() } }
	list := func(n int, draw func() float64) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = draw()
		}
		return out
	}
	var ants []any
	for range nant {
		ants = append(ants, list(3, uni(-1000, 1000)))
	}
	// Positions keep 1e-3 rad inside their bounds: the spellings write as
	// few as 3 significant digits, and a value within half a unit of the
	// last digit of π/2 or 2π would round past it into an invalid spec
	// (seed 11598866562080242129 drew dec −1.57079…, spelt -1.5708e+00).
	const edge = 1e-3
	sources := []member{
		{"ra_rad", list(nsrc, uni(0, 2*math.Pi-edge))},
		{"dec_rad", list(nsrc, uni(-math.Pi/2+edge, math.Pi/2-edge))},
		{"flux_jy", randomTable(rng, nsrc, nfreq, func() float64 { return float64(rng.IntN(3)) * uni(0, 100)() })},
	}
	for _, k := range []string{"stokes_q_jy", "stokes_u_jy", "stokes_v_jy"} {
		if rng.IntN(2) == 0 {
			sources = append(sources, member{k, randomTable(rng, nsrc, nfreq, uni(-1, 1))})
		}
	}
	beams := []any{[]member{{"type", "gaussian"}, {"sigma_rad", uni(0.01, 1)()}}}
	if rng.IntN(2) == 0 {
		beams = append(beams, []member{{"type", "airy"}, {"diameter_m", uni(1, 20)()}, {"jones", "diagonal"}})
	}
	var beamIdx any
	if rng.IntN(2) == 0 || len(beams) > 1 {
		idx := make([]any, nant)
		for i := range idx {
			idx[i] = rng.IntN(len(beams))
		}
		beamIdx = idx
	}
	var pairs any
	if rng.IntN(2) == 0 {
		pairs = []any{[]any{0, nant - 1}, []any{nant - 1, 0}}
	}
	doc := []member{
		{"name", []string{"t", "Ünïcode ☃", "tab\there \"quoted\" back\\slash"}[rng.IntN(3)]},
		{"telescope", []member{{"lat_deg", uni(-90, 90)()}, {"lon_deg", uni(-180, 180)()}, {"height_m", uni(0, 3000)()}}},
		{"antennas_enu_m", ants},
		{"freqs_hz", exactList(list(nfreq, uni(1e8, 2e8)))},
		{"times_jd", exactList(list(ntime, uni(2459845, 2459846)))},
		{"sources", sources},
		{"beams", beams},
		{"beam_idx", beamIdx},
		{"antpairs", pairs},
		{"polarized", rng.IntN(2) == 0},
		{"precision", 1 + rng.IntN(2)},
	}
	optional := []member{
		{"use_feed", "y"},
		{"coord_method", CoordERFA},
		{"beam_spline_opts", []member{{"order", 1}}},
		{"options", []member{{"matprod", "pairs"}, {"min_chunks", 2}, {"source_buffer", 0.5}}},
		{"eop", func() []any {
			var out []any
			for range ntime {
				out = append(out, []member{{"ut1_utc_s", uni(-0.5, 0.5)()}, {"xp_arcsec", uni(-1, 1)()}, {"yp_arcsec", uni(-1, 1)()}})
			}
			return out
		}()},
	}
	for _, m := range optional {
		if rng.IntN(2) == 0 {
			doc = append(doc, m)
		}
	}
	rng.Shuffle(len(doc), func(i, j int) { doc[i], doc[j] = doc[j], doc[i] })
	w := jsonWriter{rng: rng}
	w.value(doc)
	return w.b.Bytes()
}

// sameSpec fails unless a and b are equal to the bit (reflect.DeepEqual
// takes -0 for 0; their JSON does not).
func sameSpec(t *testing.T, doc []byte, a, b *Spec) {
	t.Helper()
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	if errA != nil || errB != nil || !reflect.DeepEqual(a, b) || !bytes.Equal(ja, jb) {
		t.Fatalf("the two readings of\n%s\ndiffer:\nparseSpec  %s\nencoding/json %s", doc, ja, jb)
	}
}

// TestTwin: on fresh random valid specs (numbers spelt every way JSON
// allows, strings with escapes, both table forms, keys in any order,
// random white space), parseSpec gives exactly the Spec that
// encoding/json's plain reading gives, reading its arrays on one core or
// on several (cut into random pieces), and Decode accepts it.
func TestTwin(t *testing.T) {
	rng := sharedtest.RNG(t, 1)
	for range 300 {
		doc := randomSpec(rng)
		var fast, std Spec
		if err := parseSpec(doc, &fast); err != nil {
			t.Fatalf("parseSpec refused\n%s\n: %v", doc, err)
		}
		if err := decodeStd(doc, &std); err != nil {
			t.Fatalf("encoding/json refused\n%s\n: %v", doc, err)
		}
		sameSpec(t, doc, &fast, &std)
		var par Spec
		if err := parseSpecOn(doc, &par, 2+rng.IntN(6), rng.IntN(64), unguarded); err != nil {
			t.Fatalf("parseSpec on several cores refused\n%s\n: %v", doc, err)
		}
		sameSpec(t, doc, &par, &std)
		if _, err := Decode(bytes.NewReader(doc), "."); err != nil {
			t.Fatalf("Decode refused the valid\n%s\n: %v", doc, err)
		}
	}
}

// TestTwinTables: the table forms' corner cases (nulls, empty rows,
// ragged rows, a flat table's nulls) read as encoding/json reads them
// through Table.UnmarshalJSON, and tables of the wrong type are refused
// by both.
func TestTwinTables(t *testing.T) {
	for _, tc := range []struct {
		table string
		ok    bool
	}{
		{`[]`, true}, {`null`, true}, {`[null]`, true}, {`[null, null]`, true},
		{`[[]]`, true}, {`[[], [1]]`, true}, {`[[1, 2], [3]]`, true}, {`[[1], null, [2, 3, 4]]`, true},
		{`[null, [1, null]]`, true}, {`[null, 1, null]`, true}, {`[1, null, -0]`, true}, {`[1e3, 2E-3, -0.5]`, true},
		{`[[1, 2], [3, 4], [5, 6], [7, 8]]`, true}, {`[[1, 2], [3, 4], [5], [7, 8]]`, true}, {`[[1], [2], [], [3]]`, true},
		{`[1, 2, 3, 4, 5, 6, 7, null, 9]`, true}, {` [ 1 ,2 , 3 ,	4 ] `, true}, {`[[1],[2],[3],[4],[5e999]]`, false},
		{`[[1], 2]`, false}, {`[1, [2]]`, false}, {`[null, 1, [2]]`, false}, {`["1"]`, false}, {`[["1"]]`, false},
		{`{}`, false}, {`1`, false}, {`[1e400]`, false}, {`[[true]]`, false}, {`"x"`, false},
	} {
		doc := []byte(`{"sources": {"flux_jy": ` + tc.table + `, "stokes_v_jy": ` + tc.table + `}}`)
		var fast, std, par Spec
		errFast, errStd, errPar := parseSpecOn(doc, &fast, 1, 0, unguarded), decodeStd(doc, &std), parseSpecOn(doc, &par, 3, 0, unguarded)
		switch {
		case (errFast == nil) != tc.ok || (errStd == nil) != tc.ok || (errPar == nil) != tc.ok:
			t.Errorf("%s: parseSpec %v, on 3 cores %v, encoding/json %v; want accepted %v", tc.table, errFast, errPar, errStd, tc.ok)
		case tc.ok:
			sameSpec(t, doc, &fast, &std)
			sameSpec(t, doc, &par, &std)
		}
	}
}

// FuzzParseTwin: parseSpec agrees with encoding/json's reading on any
// input, and never panics. It refuses more (keys in the wrong case,
// repeated keys, trailing data, which encoding/json lets through), never
// less; where both accept, the Specs are identical. Reading arrays on
// several cores changes nothing, errors included.
func FuzzParseTwin(f *testing.F) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5 {
		f.Add(randomSpec(rng))
	}
	for _, s := range []string{valid, `{"sources": {"flux_jy": [null, 1]}}`, `{"sources": {"flux_jy": [[1], null]}}`,
		`{"name": "\u00e9\ud800", "precision": 1.0}`, `{"beam_idx": [1, null, -0]}`, `{"antpairs": [[0, 1], null, []]}`,
		`{"options": null, "beam_spline_opts": {"order": 3}}`, `{"freqs_hz": [1e999]}`, `{"telescope": [1]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		var fast, std, par Spec
		errFast, errStd, errPar := parseSpecOn(doc, &fast, 1, 0, unguarded), decodeStd(doc, &std), parseSpecOn(doc, &par, 3, 0, unguarded)
		if fmt.Sprint(errFast) != fmt.Sprint(errPar) {
			t.Fatalf("on one core %v, on 3 cores %v:\n%q", errFast, errPar, doc)
		}
		if errFast == nil {
			sameSpec(t, doc, &fast, &par)
		}
		var ke *keyError
		switch {
		case errFast == nil && errStd != nil:
			t.Fatalf("parseSpec accepted what encoding/json refuses (%v):\n%q", errStd, doc)
		case errFast == nil:
			sameSpec(t, doc, &fast, &std)
		case errStd == nil && isNotUTF8(errFast):
			// encoding/json reads such bytes as U+FFFD; parseSpec refuses
			// them, and only them.
			if utf8.Valid(doc) {
				t.Fatalf("parseSpec called a UTF-8 document not UTF-8 (%v):\n%q", errFast, doc)
			}
		case errStd == nil && !errors.As(errFast, &ke) && !errors.Is(errFast, errTrailing):
			t.Fatalf("parseSpec refused what encoding/json accepts (%v):\n%q", errFast, doc)
		}
	})
}

// isNotUTF8 says whether err is parseSpec's refusal of a string that is
// not UTF-8.
func isNotUTF8(err error) bool {
	var pe *parseError
	return errors.As(err, &pe) && pe.notUTF8
}

// TestStringsNotUTF8: a string whose bytes are not UTF-8 (a Latin-1
// byte, a cut sequence, an encoded surrogate, an overlong form) is
// refused with its line and column and what to do, where encoding/json
// reads them as U+FFFD; UTF-8 strings, escapes and a literal U+FFFD are
// read as they are.
func TestStringsNotUTF8(t *testing.T) {
	// Columns count bytes from 1: `  "name": "` is 11 of them.
	for _, tc := range []struct {
		name, value, col string
	}{
		{"latin-1", "HERA \xe9t\xe9", "column 17"},
		{"cut sequence", "ab\xc3", "column 14"},
		{"encoded surrogate", "\xed\xa0\x80x", "column 12"},
		{"overlong slash", "\xc0\xaf", "column 12"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := "{\n  \"name\": \"" + tc.value + "\"}"
			_, err := Decode(strings.NewReader(doc), ".")
			// The JSON's grammar is sound: the message says what is wrong
			// with the bytes, not that the document is malformed.
			if err == nil || !strings.Contains(err.Error(), "line 2, "+tc.col+":") || !strings.Contains(err.Error(), "not UTF-8") ||
				!strings.Contains(err.Error(), "save the file as UTF-8") || strings.Contains(err.Error(), "malformed") {
				t.Fatalf("%q: %v", doc, err)
			}
		})
	}
	for _, name := range []string{"HÉRA", "\\u00c9", "\ufffd", "Ω_1 \\n"} {
		var s Spec
		doc := `{"name": "` + name + `"}`
		if err := parseSpecOn([]byte(doc), &s, 1, 0, unguarded); err != nil {
			t.Errorf("%q: %v", doc, err)
		}
		var std Spec
		if err := decodeStd([]byte(doc), &std); err != nil || std.Name != s.Name {
			t.Errorf("%q: %q, encoding/json %q (%v)", doc, s.Name, std.Name, err)
		}
	}
}

// TestTrailingData: anything after the spec's object is refused; a closing
// bracket or brace used to pass (encoding/json's Decoder.More is false
// before them).
func TestTrailingData(t *testing.T) {
	checkRefusals(t, []refusal{
		{"bracket", valid + "]", []string{"trailing data"}},
		{"brace", valid + " }", []string{"trailing data"}},
		{"object", valid + "\n{}", []string{"trailing data"}},
	})
	if _, err := Decode(strings.NewReader(valid+" \r\n\t"), "."); err != nil {
		t.Errorf("white space after the object: %v", err)
	}
}
