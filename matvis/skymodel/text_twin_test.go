package skymodel

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// readTextReference is readTextBytes's obviously-right twin: one line at a
// time, strings.Fields and strconv.ParseFloat, growing slices, with the
// same checks and messages.
func readTextReference(data []byte, name string) (*Sky, error) {
	if len(data) == 0 {
		return nil, &ParseError{File: name, Line: 1, Err: errors.New("empty file: no header line")}
	}
	lines := strings.Split(strings.TrimPrefix(string(data), "\ufeff"), "\n")
	hs := strings.TrimRight(lines[0], "\r")
	lay, err := parseTextHeader(hs)
	if err != nil {
		return nil, &ParseError{File: name, Line: 1, Value: hs, Err: err}
	}
	var names []string
	var lon, lat, ref, index []float64
	flux := make([][]float64, len(lay.fluxCols))
	for k, l := range lines[1:] {
		lineNo := k + 2
		if i := strings.IndexByte(l, '#'); i >= 0 {
			l = l[:i]
		}
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		if len(f) != lay.ncol {
			return nil, &ParseError{File: name, Line: lineNo, Value: strings.TrimSpace(l),
				Err: fmt.Errorf("%d fields, the header has %d", len(f), lay.ncol)}
		}
		bad := func(col int, err error) error {
			return &ParseError{File: name, Line: lineNo, Field: fmt.Sprintf("column %d (%s)", col+1, lay.what(col)),
				Value: f[col], Err: err}
		}
		vals := make([]float64, lay.ncol)
		for col := 1; col < lay.ncol; col++ {
			v, err := strconv.ParseFloat(f[col], 64)
			if err == nil && (math.IsInf(v, 0) || math.IsNaN(v)) {
				err = errors.New("not finite")
			}
			if err != nil {
				return nil, bad(col, err)
			}
			vals[col] = v
		}
		if math.Abs(vals[2]) > 90 {
			return nil, bad(2, errors.New("latitude outside [-90, 90] degrees"))
		}
		if lay.refCol >= 0 && !(vals[lay.refCol] > 0) {
			return nil, bad(lay.refCol, errors.New("frequency must be positive"))
		}
		names = append(names, f[0])
		w := math.Mod(vals[1], 360)
		if w < 0 {
			w += 360
		}
		lon = append(lon, w*math.Pi/180)
		lat = append(lat, vals[2]*math.Pi/180)
		for k, c := range lay.fluxCols {
			flux[k] = append(flux[k], vals[c])
		}
		if lay.refCol >= 0 {
			ref = append(ref, vals[lay.refCol])
		}
		if lay.indexCol >= 0 {
			index = append(index, vals[lay.indexCol])
		}
	}
	if len(names) == 0 {
		return nil, &ParseError{File: name, Err: errors.New("no sources after the header")}
	}
	c := Components{Names: names, RA: lon, Dec: lat, Spectral: lay.spectral, RefFreq: ref, Index: index}
	for _, f := range flux { // frequency-major
		c.Stokes[0] = append(c.Stokes[0], f...)
	}
	if lay.spectral != SpectralIndex {
		c.Freqs = lay.freqs
	}
	ToICRS(lay.frame, c.RA, c.Dec)
	for i := range c.RefFreq {
		c.RefFreq[i] *= lay.refScale
	}
	return build(name, c, lay.flux, 0)
}

// sameBits reports whether a and b hold the same float64 bit patterns.
func sameBits(a, b []float64) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// checkSameSky fails unless the parallel reader and the twin agree on
// data: the same error message, or skies equal to the bit.
func checkSameSky(t *testing.T, data []byte, nchunks, minChunk int) {
	t.Helper()
	got, gerr := readTextChunked(data, "cat.txt", nchunks, minChunk)
	want, werr := readTextReference(data, "cat.txt")
	compareSky(t, fmt.Sprintf("%d chunks ≥ %d B", nchunks, minChunk), data, got, want, gerr, werr)
}

// compareSky fails unless got and want (read from data) are the same
// error message or skies equal to the bit; what names the reading.
func compareSky(t *testing.T, what string, data []byte, got, want *Sky, gerr, werr error) {
	t.Helper()
	if gerr != nil || werr != nil {
		if gerr == nil || werr == nil || gerr.Error() != werr.Error() {
			t.Fatalf("%s: error %v, twin's %v\n%s", what, gerr, werr, clip(data))
		}
		return
	}
	g, w := got.c, want.c
	ok := slicesEqual(g.Names, w.Names) && sameBits(g.RA, w.RA) && sameBits(g.Dec, w.Dec) &&
		g.Spectral == w.Spectral && sameBits(g.Freqs, w.Freqs) && sameBits(g.RefFreq, w.RefFreq) &&
		sameBits(g.Index, w.Index)
	for p := range g.Stokes {
		ok = ok && sameBits(g.Stokes[p], w.Stokes[p])
	}
	if !ok {
		t.Fatalf("%s: sky differs from the twin's\n got  %+v\n want %+v\n%s", what, g, w, clip(data))
	}
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func clip(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "…"
	}
	return string(b)
}

// textHeaders are the layouts the random catalogs use: the number of
// numeric columns after the coordinates, which of them must be positive
// (a reference frequency) and the header line.
var textHeaders = []struct {
	nnum, refCol int
	header       string
}{
	{1, -1, "source_id\tra_icrs [deg]\tdec_icrs [deg]\tFlux [Jy]"},
	{2, -1, "SOURCE_ID RA_ICRS [deg] DEC_ICRS [deg] Flux [Jy] Flux_error [Jy]"},
	{2, 4, "source_id ra_icrs [deg] dec_icrs [deg] Flux [Jy] Frequency [Hz]"},
	{3, 4, "source_id\tra_icrs [deg]\tdec_icrs [deg]\tFlux [Jy]\tFrequency [Hz]\tSpectral_Index"},
	{4, 5, "source_id l_galactic b_galactic Flux [Jy] Flux_error [Jy] Frequency [Hz] Spectral_Index"},
	{3, -1, "source_id ra_fk5 dec_fk5 Flux_subband_76_MHz [Jy] Flux_subband_84_MHz [Jy] Flux_0.1_GHz [Jy]"},
	{4, -1, "source_id ra_j2000 de_j2000 Flux_100_MHz Flux_error_100_MHz Flux_150_MHz Flux_error_150_MHz"},
}

// randomCatalog writes a catalog of about n rows in one of textHeaders'
// layouts, with numbers in the forms writers use (and some only strconv
// takes), mixed separators, comments, blank lines, CRLF and non-ASCII;
// with bad set, a few rows carry an error.
func randomCatalog(rng *rand.Rand, n int, bad bool) []byte {
	h := textHeaders[rng.IntN(len(textHeaders))]
	var b strings.Builder
	if rng.IntN(4) == 0 {
		b.WriteString("\ufeff")
	}
	b.WriteString(h.header)
	eol := "\n"
	if rng.IntN(3) == 0 {
		eol = "\r\n"
	}
	b.WriteString(eol)
	for i := range n {
		switch rng.IntN(20) {
		case 0:
			b.WriteString("# a comment line" + eol)
		case 1:
			b.WriteString(" \t " + eol)
		case 2:
			b.WriteString(eol)
		}
		fields := []string{randomName(rng, i), randomNumber(rng, -400, 800), randomNumber(rng, -90, 90)}
		for k := range h.nnum {
			if 3+k == h.refCol {
				fields = append(fields, randomNumber(rng, 1e6, 1e9))
			} else {
				fields = append(fields, randomNumber(rng, -2, 30))
			}
		}
		if bad && rng.IntN(n) < 2 {
			fields = spoil(rng, fields, h.refCol)
		}
		b.WriteString([]string{"", "", " ", "\t"}[rng.IntN(4)])
		for k, f := range fields {
			if k > 0 {
				b.WriteString(rowSeparator(rng))
			}
			b.WriteString(f)
		}
		if rng.IntN(10) == 0 {
			b.WriteString(" # trailing comment, 1 2 3")
		}
		if i < n-1 || rng.IntN(2) == 0 {
			b.WriteString(eol)
		}
	}
	return []byte(b.String())
}

// spoil makes one row invalid in one of the ways checkRow reports.
func spoil(rng *rand.Rand, f []string, refCol int) []string {
	switch rng.IntN(6) {
	case 0:
		return f[:len(f)-1] // a field short
	case 1:
		return append(f, "7") // one too many
	case 2:
		f[1+rng.IntN(len(f)-1)] = []string{"abc", "1e999", "inf", "-nan", "1.2.3", "1e+"}[rng.IntN(6)]
	case 3:
		f[2] = []string{"90.0000001", "-95", "1e3"}[rng.IntN(3)]
	case 4:
		if refCol >= 0 {
			f[refCol] = []string{"0", "-1e8", "-0"}[rng.IntN(3)]
		}
	case 5:
		f[1] = "0x1p3" // strconv's hex: accepted
	}
	return f
}

func randomName(rng *rand.Rand, i int) string {
	switch rng.IntN(30) {
	case 0:
		return fmt.Sprintf("srcé%d", i) // non-ASCII: the Unicode splitter
	case 1:
		return fmt.Sprintf("J%d+%d", i, rng.IntN(90))
	}
	return fmt.Sprintf("src%07d", i)
}

// rowSeparator is usually a tab or spaces; sometimes other whitespace
// that bytes.Fields splits on (vertical tab, form feed, no-break space).
func rowSeparator(rng *rand.Rand) string {
	if rng.IntN(50) == 0 {
		return []string{"\v", "\f", "\u00a0", " \u2003 ", "\r"}[rng.IntN(5)]
	}
	return []string{"\t", " ", "  ", " \t"}[rng.IntN(4)]
}

// randomNumber formats a value in [lo, hi) the ways catalog writers do,
// and a few ways only strconv reads.
func randomNumber(rng *rand.Rand, lo, hi float64) string {
	v := lo + rng.Float64()*(hi-lo)
	switch rng.IntN(12) {
	case 0:
		return strconv.FormatFloat(v, 'g', -1, 64) // 17 digits
	case 1:
		return strconv.FormatFloat(v, 'e', rng.IntN(8), 64)
	case 2:
		return strconv.Itoa(int(v))
	case 3:
		return "+" + strconv.FormatFloat(math.Abs(v), 'f', 3, 64)
	case 4:
		return strconv.FormatFloat(v, 'f', 20, 64) // past 19 digits: strconv
	case 5:
		return strconv.FormatFloat(v, 'E', 25, 64)
	}
	return strconv.FormatFloat(v, 'f', 8, 64) // pyradiosky's %.8f
}

// TestReadTextTwin: the parallel reader equals the sequential twin on
// fresh random catalogs, cut into many small chunks so that chunk edges
// fall on every kind of line, errors included.
func TestReadTextTwin(t *testing.T) {
	rng := sharedtest.RNG(t, 1)
	trials := 400
	if testing.Short() {
		trials = 100
	}
	for range trials {
		data := randomCatalog(rng, 1+rng.IntN(60), rng.IntN(2) == 0)
		checkSameSky(t, data, 1+rng.IntN(16), 1+rng.IntN(200))
		checkSameSky(t, data, textChunksPerProc*2, textMinChunk)
	}
}

// TestReadTextErrorAtEveryCut: with two bad rows, every chunking reports
// the first, whichever chunks the rows and their line ends fall in.
func TestReadTextErrorAtEveryCut(t *testing.T) {
	data := []byte("source_id ra_icrs dec_icrs Flux Frequency Spectral_Index\r\n" +
		"A 1 2 3 1e8 -1\r\n# comment\r\n\r\nB 1 2 3 1e8 -1 # note\r\n" +
		"C 1 95 3 1e8 -1\r\nD 1 2 3 0 -1\r\nE 1 2 3 1e8\r\nF 1 2 3 1e8 -1\r\n")
	const want = "cat.txt:6: column 3 (latitude) = \"95\": latitude outside [-90, 90] degrees"
	for nchunks := 1; nchunks <= 12; nchunks++ {
		for minChunk := 1; minChunk <= len(data); minChunk++ {
			_, err := readTextChunked(data, "cat.txt", nchunks, minChunk)
			if err == nil || err.Error() != want {
				t.Fatalf("%d chunks ≥ %d B: %v, want %s", nchunks, minChunk, err, want)
			}
		}
	}
	checkSameSky(t, data, 1, 1)
}

// TestReadTextLargeTwin: a catalog of many rows, split as ReadText splits
// it, against the twin (the chunks' rows meet in the preallocated columns).
func TestReadTextLargeTwin(t *testing.T) {
	rng := sharedtest.RNG(t, 2)
	n := 200_000
	if testing.Short() {
		n = 30_000
	}
	data := randomCatalog(rng, n, false)
	checkSameSky(t, data, 7, 1<<12)
}

// TestReadTextLongitudeEdges: longitudes at and past the wrap, which the
// reader's in-range shortcut must leave to math.Mod as the twin does.
func TestReadTextLongitudeEdges(t *testing.T) {
	var b strings.Builder
	b.WriteString("source_id ra_icrs dec_icrs Flux\n")
	for i, lon := range []string{"0", "-0", "-0.0", "360", "-360", "359.99999999999999", "360.00000000000001",
		"720", "-720.5", "1e3", "-1e-320", "4.9e-324", "359.9999999999999", "1e17"} {
		fmt.Fprintf(&b, "s%d %s -30 1\n", i, lon)
	}
	checkSameSky(t, []byte(b.String()), 1, 1)
}

// TestReadTextUnicodeFields: non-ASCII bytes send a row to the Unicode
// splitter, so that Unicode spaces separate fields there as in the twin.
func TestReadTextUnicodeFields(t *testing.T) {
	for _, row := range []string{
		"A\u00a0B 10 -30 1", "A\u2003B 10 -30 1", "srcé 10 -30 1", "A 10\u00a0-30 1", "A 10 -30 1\u00a0",
		"A\u00a010 -30 1", "A 10 -30\u20031 # é", "A\x0010 -30 1", "A 10 -30 1\x00", "A 1\v0 -30 1",
	} {
		checkSameSky(t, []byte("source_id ra_icrs dec_icrs Flux\n"+row+"\n"), 1, 1)
	}
}

// FuzzReadTextTwin: on any input the parallel reader, cut finely, and the
// sequential twin agree (error message or sky, to the bit).
func FuzzReadTextTwin(f *testing.F) {
	addFileSeeds(f, filepath.Join(refDir, "pyuvsim-stokesI-gaussian", "sky.txt"))
	f.Add([]byte("source_id ra_icrs dec_icrs Flux Frequency Spectral_Index\r\nA 1 2 3 1e8 -1\r\n# c\r\n\r\nB\u00a01 2 3 1e8 -1 # n\r\nC 1 95 3 1e8 -1\r\n"))
	f.Add([]byte("source_id ra_fk5 dec_fk5 Flux_100_MHz Flux_error_100_MHz Flux_150_MHz Flux_error_150_MHz\nA 361 -0 1 0.1 2 0.2\nB +1e2 .5 1. 0 0x1p3 1_0\n"))
	f.Add([]byte("source_id ra_icrs [deg] dec_icrs [deg] Flux [mJy] Frequency [MHz] Spectral_Index []\nA 1 2 3 100 -1\n"))
	f.Add([]byte("source_id ra_icrs [ deg ] dec_icrs [deg] Flux [furlong]\nA 1 2 3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSameSky(t, data, 5, 16)
	})
}

// TestReadTextBlankLinesMemory: a catalog that is mostly blank lines gets
// no row slot (and memory) per line: what it allocates stays a few times
// within 8 times its size (short rows of 4 columns may need 6; a slot
// per line would be ~50 B per 1-byte line).
func TestReadTextBlankLinesMemory(t *testing.T) {
	data := []byte("source_id ra_icrs dec_icrs Flux\n" + strings.Repeat("\n", 1<<20) + "A 1 2 3\n")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s, err := readTextChunked(data, "blank.txt", 8, 1<<12)
	runtime.ReadMemStats(&after)
	if err != nil || s.Len() != 1 {
		t.Fatalf("%v sources, %v", s, err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 8*uint64(len(data)) {
		t.Errorf("allocated %d bytes reading %d", got, len(data))
	}
	checkSameSky(t, data, 8, 1<<12)
}

// TestReadTextShortRowsEveryCut: rows of the fewest bytes (one-byte
// fields, one-byte separators), with and without the last newline, at
// every chunking: each chunk's row bound must hold them all.
func TestReadTextShortRowsEveryCut(t *testing.T) {
	for _, body := range []string{"A 1 2 3", "A 1 2 3\n", "A 1 2 3\nB 4 5 6", "A 1 2 3\nB 4 5 6\nC 7 8 9\n", "\nA 1 2 3\n\nB\t4\t5\t6"} {
		data := []byte("source_id ra_icrs dec_icrs Flux\n" + body)
		for nchunks := 1; nchunks <= 4; nchunks++ {
			for minChunk := 1; minChunk <= len(body)+1; minChunk++ {
				checkSameSky(t, data, nchunks, minChunk)
			}
		}
	}
}

// TestReadTextFileTwin: ReadTextFile, which maps the file, equals the
// sequential twin on the file's bytes, for fresh random catalogs good and
// bad, and one large enough to be cut into many chunks.
func TestReadTextFileTwin(t *testing.T) {
	rng := sharedtest.RNG(t, 3)
	dir := t.TempDir()
	for i := range 40 {
		n := 1 + rng.IntN(60)
		if i == 0 {
			n = 20_000
		}
		data := randomCatalog(rng, n, i > 0 && rng.IntN(2) == 0)
		path := filepath.Join(dir, fmt.Sprintf("cat%d.txt", i))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, gerr := ReadTextFile(path)
		want, werr := readTextReference(data, path)
		compareSky(t, path, data, got, want, gerr, werr)
	}
}
