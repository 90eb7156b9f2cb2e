// Package uvfits writes visibilities as UVFITS laid out as pyuvdata's
// UVData.write_uvfits writes it and its read_uvfits reads it: a random-
// groups primary HDU (axes COMPLEX, STOKES, FREQ, IF, RA, DEC; group
// parameters UU, VV, WW in seconds, DATE with PZERO the JD of the first
// time's UTC midnight, BASELINE 256·ant1 + ant2 when every antenna number
// is below 255, SOURCE, ANTENNA1, ANTENNA2, SUBARRAY, INTTIM, LST), the
// AIPS AN antenna table and the AIPS SU source table.
//
// The conventions are pyuvdata's: the file's visibilities are the complex
// conjugates of UVData's (and of UVH5's) and its uvw the negatives
// (uu = −u/c: FITS's baseline points from antenna 2 to antenna 1), the
// polarization axis is sorted by |code| (xx, yy, xy, yx = −5 … −8) and the
// weights are nsamples, negated where flagged. The rows are streamed like
// uvh5.Writer's: Create writes the headers and tables to a temporary file
// beside the path, WriteBlock fills baseline-time rows in any order,
// Close renames the file into place.
package uvfits

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/gomatvis/gomatvis/internal/atomicfile"
	"github.com/gomatvis/gomatvis/internal/blocks"
	"github.com/gomatvis/gomatvis/internal/rowcover"
	"github.com/gomatvis/gomatvis/matvis/astro"
	"github.com/gomatvis/gomatvis/uvh5"
)

// speedOfLight is astropy's c (m/s), which pyuvdata divides uvw by.
const speedOfLight = 299792458.0

// PhaseCenter is what the file says its data are phased to: OBJECT, the
// RA and DEC axes' CRVAL, EPOCH and RADESYS, and the AIPS SU table's row.
type PhaseCenter struct {
	Name          string  // OBJECT; SU SOURCE, cut to 20 characters
	RADeg, DecDeg float64 // CRVAL6, CRVAL7; SU RAEPO, DECEPO
	Frame         string  // RADESYS, e.g. "icrs"
	Epoch         float64 // EPOCH, years (2000.0)
	AppRADeg      float64 // SU RAAPP
	AppDecDeg     float64 // SU DECAPP
}

// Options are the values of the file that a UVH5 header does not hold.
type Options struct {
	PhaseCenter PhaseCenter
	// EOP is the Earth orientation on RDATE (the first time's UTC date):
	// UT1UTC and, with polar motion, GSTIA0 (Greenwich apparent sidereal
	// time at 0h UTC of RDATE) come from it.
	EOP astro.EOP
	// Keywords are extra primary-header cards (≤ 8-character names;
	// string, float64, int or bool values), as pyuvdata's extra_keywords.
	Keywords []Keyword
}

// Keyword is one extra primary-header card.
type Keyword struct {
	Name  string
	Value any
}

// Writer streams a UVFITS file by baseline-time rows.
type Writer struct {
	path     string
	out      *atomicfile.Stream // the temporary, until Close or Abort
	h        *uvh5.Header
	single   bool
	pcount   int
	npol, nf int
	polIdx   []int // file pol k is header pol polIdx[k]
	params   []param
	dataOff  int64
	groupLen int // bytes per group
	nblts    int
	written  *rowcover.Rows
	buf      []byte
	maxBuf   int // bytes encoded for one write at most
	jdMid    float64
}

// param is one random-group parameter: its name and how each row's value
// is found.
type param struct {
	name  string
	pzero float64
	value func(r int) float64
}

// ErrIncomplete is returned by Close when some rows were never written.
var ErrIncomplete = errors.New("uvfits: baseline-time rows never written")

// Create checks h (a UVH5 header: the same run's metadata), writes the
// primary header, the AIPS AN and SU tables into a temporary file beside
// path and sizes the groups. Nothing appears at path before Close.
func Create(path string, h *uvh5.Header, opt Options) (*Writer, error) {
	if h == nil {
		return nil, errors.New("uvfits: nil header")
	}
	if err := h.Validate(); err != nil {
		return nil, fmt.Errorf("uvfits: %s: %w", path, err)
	}
	w := &Writer{path: path, h: h, single: h.SinglePrecision, npol: h.Npols(), nf: h.Nfreqs(), maxBuf: maxBuf}
	primary, err := w.primaryHeader(opt)
	if err != nil {
		return nil, fmt.Errorf("uvfits: %s: %w", path, err)
	}
	an, err := antennaTable(h, opt)
	if err != nil {
		return nil, fmt.Errorf("uvfits: %s: %w", path, err)
	}
	su, err := sourceTable(h, opt)
	if err != nil {
		return nil, fmt.Errorf("uvfits: %s: %w", path, err)
	}
	if w.out, err = atomicfile.NewStream(path); err != nil {
		return nil, fmt.Errorf("uvfits: %s: %w", path, err)
	}
	nblts := h.Nblts()
	w.dataOff = int64(len(primary))
	w.groupLen = (w.pcount + 3*w.npol*w.nf) * w.elem()
	tables := w.dataOff + padded(int64(nblts)*int64(w.groupLen))
	w.nblts, w.written = nblts, rowcover.New(nblts, w.nf)
	for _, p := range []struct {
		b   []byte
		off int64
	}{{primary, 0}, {an, tables}, {su, tables + int64(len(an))}} {
		if _, err := w.out.File().WriteAt(p.b, p.off); err != nil {
			w.Abort()
			return nil, fmt.Errorf("uvfits: %s: %w", path, err)
		}
	}
	return w, nil
}

// elem is the size of a value: 4 for single precision, else 8.
func (w *Writer) elem() int {
	if w.single {
		return 4
	}
	return 8
}

// polOrder sorts the polarizations by |code| as pyuvdata does and checks
// that they are evenly spaced (the STOKES axis has one CDELT).
func polOrder(pols []int64) (idx []int, delta float64, err error) {
	idx = make([]int, len(pols))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return abs64(pols[idx[a]]) < abs64(pols[idx[b]]) })
	if len(pols) == 1 {
		return idx, 1, nil
	}
	d := pols[idx[1]] - pols[idx[0]]
	for k := 2; k < len(idx); k++ {
		if pols[idx[k]]-pols[idx[k-1]] != d {
			return nil, 0, fmt.Errorf("polarizations %v are not evenly spaced: UVFITS's STOKES axis cannot hold them", pols)
		}
	}
	return idx, float64(d), nil
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// freqAxis is the FREQ axis: the first channel and the step, which must
// be even (pyuvdata's check_freq_spacing), with the channel width the
// median width signed as the channels run.
func freqAxis(freqs, widths []float64) (f0, delta float64, err error) {
	f0 = freqs[0]
	if f0 <= 0 {
		return 0, 0, fmt.Errorf("frequency %g Hz: UVFITS frequencies must be > 0", f0)
	}
	w := append([]float64(nil), widths...)
	sort.Float64s(w)
	med := w[len(w)/2]
	if len(w)%2 == 0 {
		med = (w[len(w)/2-1] + w[len(w)/2]) / 2
	}
	if len(freqs) == 1 {
		return f0, med, nil
	}
	step := freqs[1] - freqs[0]
	for i := 2; i < len(freqs); i++ {
		if d := freqs[i] - freqs[i-1]; math.Abs(d-step) > 1e-3*math.Abs(step) {
			return 0, 0, fmt.Errorf("channels are not evenly spaced (%g Hz after %g Hz): UVFITS's FREQ axis cannot hold them", d, step)
		}
	}
	if step == 0 {
		return 0, 0, errors.New("frequencies are not distinct")
	}
	return f0, math.Copysign(med, step), nil
}

// baseline256 says whether the BASELINE parameter is written: pyuvdata
// writes it (256·ant1 + ant2) when every antenna number is below 255,
// else only ANTENNA1 and ANTENNA2.
func baseline256(h *uvh5.Header) bool {
	for i := range h.Ant1 {
		if h.Ant1[i] >= 255 || h.Ant2[i] >= 255 {
			return false
		}
	}
	return true
}

// split2 is x as a float32 and the float32 remainder (pyuvdata's two-part
// parameters in single precision).
func split2(x float64) (float64, float64) {
	a := float64(float32(x))
	return a, float64(float32(x - a))
}

func (w *Writer) makeParams() {
	h := w.h
	w.jdMid = math.Floor(h.Times[0]-0.5) + 0.5
	uvw := func(k int) func(int) float64 { return func(r int) float64 { return -h.UVW[r][k] / speedOfLight } }
	date := func(r int) float64 { return h.Times[r] - w.jdMid }
	lst := func(r int) float64 { return h.LSTs[r] * 180 / math.Pi }
	hi := func(f func(int) float64) func(int) float64 {
		return func(r int) float64 { a, _ := split2(f(r)); return a }
	}
	lo := func(f func(int) float64) func(int) float64 {
		return func(r int) float64 { _, b := split2(f(r)); return b }
	}
	var ps []param
	if w.single {
		ps = []param{{"UU", 0, hi(uvw(0))}, {"VV", 0, hi(uvw(1))}, {"WW", 0, hi(uvw(2))},
			{"DATE", w.jdMid, hi(date)}, {"DATE", 0, lo(date)},
			{"UU", 0, lo(uvw(0))}, {"VV", 0, lo(uvw(1))}, {"WW", 0, lo(uvw(2))}}
	} else {
		ps = []param{{"UU", 0, uvw(0)}, {"VV", 0, uvw(1)}, {"WW", 0, uvw(2)}, {"DATE", w.jdMid, date}}
	}
	if baseline256(h) {
		ps = append(ps, param{"BASELINE", 0, func(r int) float64 { return float64(256*h.Ant1[r] + h.Ant2[r]) }})
	}
	ps = append(ps,
		param{"SOURCE", 0, func(int) float64 { return 1 }},
		param{"ANTENNA1", 0, func(r int) float64 { return float64(h.Ant1[r]) }},
		param{"ANTENNA2", 0, func(r int) float64 { return float64(h.Ant2[r]) }},
		param{"SUBARRAY", 0, func(int) float64 { return 1 }},
		param{"INTTIM", 0, func(r int) float64 { return h.IntegrationTime[r] }})
	if w.single {
		ps = append(ps, param{"LST", 0, hi(lst)}, param{"LST", 0, lo(lst)})
	} else {
		ps = append(ps, param{"LST", 0, lst})
	}
	w.params, w.pcount = ps, len(ps)
}

// primaryHeader is the random-groups header, as pyuvdata writes it.
func (w *Writer) primaryHeader(opt Options) ([]byte, error) {
	h := w.h
	idx, dpol, err := polOrder(h.Pols)
	if err != nil {
		return nil, err
	}
	w.polIdx = idx
	f0, df, err := freqAxis(h.Freqs, h.ChannelWidth)
	if err != nil {
		return nil, err
	}
	w.makeParams()
	bitpix := -64
	if w.single {
		bitpix = -32
	}
	c := []card{kv("SIMPLE", true), kv("BITPIX", bitpix), kv("NAXIS", 7), kv("NAXIS1", 0),
		kv("NAXIS2", 3), kv("NAXIS3", w.npol), kv("NAXIS4", w.nf), kv("NAXIS5", 1), kv("NAXIS6", 1), kv("NAXIS7", 1),
		kv("EXTEND", true), kv("GROUPS", true), kv("PCOUNT", w.pcount), kv("GCOUNT", h.Nblts())}
	for i, p := range w.params {
		c = append(c, kv(fmt.Sprintf("PTYPE%d", i+1), p.name), kv(fmt.Sprintf("PSCAL%d", i+1), 1.0), kv(fmt.Sprintf("PZERO%d", i+1), p.pzero))
	}
	pc := opt.PhaseCenter
	if pc.Frame == "" {
		pc.Frame = "icrs"
	}
	if pc.Epoch == 0 {
		pc.Epoch = 2000
	}
	c = append(c, kv("DATE-OBS", isoTime(h.Times[0])),
		kv("CTYPE2", "COMPLEX"), kv("CRVAL2", 1.0), kv("CRPIX2", 1.0), kv("CDELT2", 1.0),
		kv("CTYPE3", "STOKES"), kv("CRVAL3", float64(h.Pols[idx[0]])), kv("CRPIX3", 1.0), kv("CDELT3", dpol),
		kv("CTYPE4", "FREQ"), kv("CRVAL4", f0), kv("CRPIX4", 1.0), kv("CDELT4", df),
		kv("CTYPE5", "IF"), kv("CRVAL5", 1.0), kv("CRPIX5", 1.0), kv("CDELT5", 1.0),
		kv("CTYPE6", "RA"), kv("CRVAL6", pc.RADeg), kv("CRPIX6", 1.0), kv("CDELT6", 1.0),
		kv("CTYPE7", "DEC"), kv("CRVAL7", pc.DecDeg), kv("CRPIX7", 1.0), kv("CDELT7", 1.0))
	sc := stringAppender{cards: c}
	sc.add("BUNIT", "the visibility units", h.VisUnits, false)
	sc.cards = append(sc.cards, kv("BSCALE", 1.0), kv("BZERO", 0.0))
	sc.add("OBJECT", "the phase centre's name", pc.Name, false)
	sc.add("TELESCOP", "the telescope name", h.TelescopeName, false)
	sc.cards = append(sc.cards, kv("LAT", h.Latitude), kv("LON", h.Longitude), kv("ALT", h.Altitude))
	sc.add("INSTRUME", "the instrument", h.Instrument, false)
	sc.cards = append(sc.cards, kv("EPOCH", pc.Epoch))
	sc.add("RADESYS", "the phase centre's frame", pc.Frame, false)
	if h.BltOrder != "" {
		sc.add("BLTORDER", "the baseline-time order", h.BltOrder, true)
	}
	for _, k := range opt.Keywords {
		if err := checkKeyword(k.Name); err != nil {
			return nil, err
		}
		if v, ok := k.Value.(string); ok {
			sc.add(k.Name, "an extra keyword", v, true)
			continue
		}
		sc.cards = append(sc.cards, kv(k.Name, k.Value))
	}
	if sc.err != nil {
		return nil, sc.err
	}
	c = sc.cards
	c = append(c, history(h.History)...)
	return encodeHeader(c), nil
}

// stringAppender appends string cards, keeping the first refusal.
type stringAppender struct {
	cards []card
	err   error
}

// add appends KEY = 'v' (stringCards) unless a refusal came before.
func (a *stringAppender) add(key, what, v string, long bool) {
	if a.err != nil {
		return
	}
	cs, err := stringCards(key, what, v, long)
	a.cards, a.err = append(a.cards, cs...), err
}

// checkKeyword refuses a keyword FITS cannot name: 1 to 8 characters of
// A–Z, 0–9, '-' and '_' (FITS 4.0 §4.1.2.1).
func checkKeyword(k string) error {
	if len(k) == 0 || len(k) > 8 {
		return fmt.Errorf("keyword %q: want 1 to 8 characters", k)
	}
	for _, r := range k {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return fmt.Errorf("keyword %q: %q is not one of A–Z, 0–9, '-', '_'", k, r)
		}
	}
	return nil
}

// isoDate is the UTC calendar date (YYYY-MM-DD) of a Julian date.
func isoDate(jd float64) string {
	y, m, d := calendar(jd)
	return fmt.Sprintf("%04d-%02d-%02d", y, m, d)
}

// isoTime is a Julian date as astropy's Time(jd, format="jd").isot,
// which pyuvdata 2.4 writes as DATE-OBS: YYYY-MM-DDThh:mm:ss.sss (UTC,
// to the millisecond).
func isoTime(jd float64) string {
	day := math.Floor(jd - 0.5) // the JD of the day's 0h is day + 0.5
	ms := int64(math.Round((jd - 0.5 - day) * 86400e3))
	if ms >= 86400e3 {
		day, ms = day+1, ms-86400e3
	}
	y, m, d := calendar(day + 0.5)
	s, msec := ms/1000, ms%1000
	return fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d.%03d", y, m, d, s/3600, s/60%60, s%60, msec)
}

// calendar is the Gregorian date of a Julian date (Meeus, chapter 7).
func calendar(jd float64) (y, m, d int) {
	z := int(math.Floor(jd + 0.5))
	a := z
	if z >= 2299161 {
		alpha := int(math.Floor((float64(z) - 1867216.25) / 36524.25))
		a = z + 1 + alpha - alpha/4
	}
	b := a + 1524
	c := int(math.Floor((float64(b) - 122.1) / 365.25))
	dd := int(math.Floor(365.25 * float64(c)))
	e := int(math.Floor(float64(b-dd) / 30.6001))
	d = b - dd - int(math.Floor(30.6001*float64(e)))
	if e < 14 {
		m = e - 1
	} else {
		m = e - 13
	}
	if m > 2 {
		y = c - 4716
	} else {
		y = c - 4715
	}
	return y, m, d
}

// antennaTable is the AIPS AN table as pyuvdata writes it: STABXYZ the
// antennas' ECEF offsets rotated to the array's meridian (rotECEF).
func antennaTable(h *uvh5.Header, opt Options) ([]byte, error) {
	n := len(h.AntennaNumbers)
	lon := h.Longitude * math.Pi / 180
	so, co := math.Sincos(lon)
	xyz := make([][]float64, n)
	nosta := make([]float64, n)
	zeros := make([]float64, n)
	width := 8
	for i, p := range h.AntennaPositions {
		xyz[i] = []float64{co*p[0] + so*p[1], -so*p[0] + co*p[1], p[2]}
		nosta[i] = float64(h.AntennaNumbers[i])
		width = max(width, len(h.AntennaNames[i]))
		if err := checkPrintable("ANNAME", fmt.Sprintf("antenna %d's name", h.AntennaNumbers[i]), h.AntennaNames[i]); err != nil {
			return nil, err
		}
	}
	tya, aa, tyb, ab := feeds(h)
	cols := []column{strCol("ANNAME", width, h.AntennaNames), numCol("STABXYZ", "", 'D', 3, xyz),
		numCol("NOSTA", "", 'J', 1, scalars(nosta)), numCol("MNTSTA", "", 'J', 1, scalars(zeros)),
		numCol("STAXOF", "", 'E', 1, scalars(zeros)), strCol("POLTYA", 1, fill(n, tya)), numCol("POLAA", "", 'E', 1, scalars(fill(n, aa))),
		strCol("POLTYB", 1, fill(n, tyb)), numCol("POLAB", "", 'E', 1, scalars(fill(n, ab)))}
	site := astro.Site{LatDeg: h.Latitude, LonDeg: h.Longitude, HeightM: h.Altitude}
	arr := site.ECEF()
	// pyuvdata 2.4 takes RDATE, and GSTIA0 (the apparent sidereal time
	// at Greenwich), at floor(JD) of the first time: the noon UTC on or
	// before it, not 0h.
	jd0 := math.Floor(h.Times[0])
	gst, err := astro.ApparentLST(jd0, 0, opt.EOP)
	if err != nil {
		return nil, fmt.Errorf("GSTIA0: %w", err)
	}
	rdate := isoDate(jd0)
	arrnam, err := stringCards("ARRNAM", "the telescope name", h.TelescopeName, false)
	if err != nil {
		return nil, err
	}
	// POLARX and POLARY are 0 as pyuvdata writes them: a UVData holds no
	// polar motion.
	extra := []card{kv("EXTNAME", "AIPS AN"), kv("EXTVER", 1), kv("ARRAYX", arr[0]), kv("ARRAYY", arr[1]), kv("ARRAYZ", arr[2]),
		kv("FRAME", "ITRF"), kv("FREQ", h.Freqs[0]), kv("RDATE", rdate), kv("GSTIA0", gst*180/math.Pi),
		kv("UT1UTC", opt.EOP.UT1MinusUTCSec), kv("TIMESYS", "UTC"), arrnam[0], kv("NO_IF", 1),
		kv("DEGPDY", 360.9856438593), kv("IATUTC", 37.0), kv("NUMORB", 0), kv("NOPCAL", 0), kv("POLTYPE", "X-Y LIN"),
		kv("HASMNT", false), kv("HASFEED", tya != ""), kv("FREQID", 1), kv("POLARX", 0.0), kv("POLARY", 0.0),
		kv("DATUTC", 0), kv("XYZHAND", "RIGHT")}
	return binTable(n, cols, extra)
}

// feeds are the AN table's feed columns as pyuvdata 2.4 writes them:
// linear feeds X and Y at position angles 90° and 0° when x points east
// (0° and 90° north), circular R and L at 0°; blank and 0 without an
// x_orientation.
func feeds(h *uvh5.Header) (tya string, aa float64, tyb string, ab float64) {
	circular := len(h.Pols) > 0 && h.Pols[0] >= -4 && h.Pols[0] <= -1
	switch {
	case circular:
		return "R", 0, "L", 0
	case h.XOrientation == "east":
		return "X", 90, "Y", 0
	case h.XOrientation == "north":
		return "X", 0, "Y", 90
	}
	return "", 0, "", 0
}

func fill[T any](n int, v T) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// sourceTable is the AIPS SU table of the one phase center (ID 1).
func sourceTable(h *uvh5.Header, opt Options) ([]byte, error) {
	pc := opt.PhaseCenter
	if len(pc.Name) > 20 {
		pc.Name = pc.Name[:20] // as pyuvdata cuts it; OBJECT keeps it whole
	}
	epoch := pc.Epoch
	if epoch == 0 {
		epoch = 2000
	}
	mean := 0.0
	for _, f := range h.Freqs {
		mean += f
	}
	mean /= float64(len(h.Freqs))
	one := func(x float64) [][]float64 { return [][]float64{{x}} }
	cols := []column{numCol("ID. NO.", "", 'J', 1, one(1)), strCol("SOURCE", 20, []string{pc.Name}),
		numCol("QUAL", "", 'J', 1, one(0)), strCol("CALCODE", 4, []string{"    "}),
		numCol("IFLUX", "JY", 'E', 1, one(0)), numCol("QFLUX", "JY", 'E', 1, one(0)),
		numCol("UFLUX", "JY", 'E', 1, one(0)), numCol("VFLUX", "JY", 'E', 1, one(0)),
		numCol("FREQOFF", "HZ", 'D', 1, one(0)), numCol("BANDWIDTH", "HZ", 'D', 1, one(0)),
		numCol("RAEPO", "DEGREES", 'D', 1, one(pc.RADeg)), numCol("DECEPO", "DEGREES", 'D', 1, one(pc.DecDeg)),
		numCol("EPOCH", "YEARS", 'D', 1, one(epoch)), numCol("RAAPP", "DEGREES", 'D', 1, one(pc.AppRADeg)),
		numCol("DECAPP", "DEGREES", 'D', 1, one(pc.AppDecDeg)), numCol("LSRVEL", "M/SEC", 'D', 1, one(0)),
		numCol("RESTFREQ", "HZ", 'D', 1, one(mean)), numCol("PMRA", "DEG/DAY", 'D', 1, one(0)),
		numCol("PMDEC", "DEG/DAY", 'D', 1, one(0))}
	extra := []card{kv("EXTNAME", "AIPS SU"), kv("NO_IF", 1), kv("FREQID", 1), kv("VELDEF", "RADIO"), kv("VELTYP", "LSR")}
	return binTable(1, cols, extra)
}

// WriteBlock writes rows [bltStart, bltStart + n) from vis (n·Nfreqs·Npols
// values in UVH5's (blt, freq, pol) order, the header's pols); flags and
// nsamples may be nil (none flagged, nsamples 1).
func (w *Writer) WriteBlock(bltStart int, vis []complex128, flags []bool, nsamples []float32) error {
	row := w.nf * w.npol
	if len(vis)%row != 0 {
		return fmt.Errorf("uvfits: %s: %d values is not a whole number of rows of %d", w.path, len(vis), row)
	}
	return w.WriteChannels(bltStart, len(vis)/row, 0, w.nf, vis, flags, nsamples)
}

// WriteChannels writes channels [f0, f1) of rows [bltStart, bltStart +
// n) from vis (n·(f1−f0)·Npols values, (blt, freq, pol) order), with
// flags and nsamples as in WriteBlock: a time too large for memory is
// written by ranges of channels. The rows count as written once every
// channel of them has been.
func (w *Writer) WriteChannels(bltStart, n, f0, f1 int, vis []complex128, flags []bool, nsamples []float32) error {
	if w.out.Finished() {
		return fmt.Errorf("uvfits: %s: writer already closed or aborted", w.path)
	}
	if f0 < 0 || f1 > w.nf || f0 >= f1 {
		return fmt.Errorf("uvfits: %s: channels [%d, %d) outside [0, %d)", w.path, f0, f1, w.nf)
	}
	row := (f1 - f0) * w.npol
	if len(vis) != n*row {
		return fmt.Errorf("uvfits: %s: %d values is not %d rows of %d", w.path, len(vis), n, row)
	}
	if bltStart < 0 || n < 0 || bltStart+n > w.nblts {
		return fmt.Errorf("uvfits: %s: rows [%d, %d) outside [0, %d)", w.path, bltStart, bltStart+n, w.nblts)
	}
	if (flags != nil && len(flags) != len(vis)) || (nsamples != nil && len(nsamples) != len(vis)) {
		return fmt.Errorf("uvfits: %s: flags or nsamples do not match the %d visibilities", w.path, len(vis))
	}
	var err error
	if f0 == 0 && f1 == w.nf {
		err = w.wholeRows(bltStart, n, vis, flags, nsamples)
	} else {
		err = w.channelRows(bltStart, n, f0, f1, vis, flags, nsamples)
	}
	if err != nil {
		return fmt.Errorf("uvfits: %s: %w", w.path, err)
	}
	w.written.Mark(bltStart, bltStart+n, f0, f1)
	_ = w.out.StartWriteback() // the close's sync then has little left: advice only
	return nil
}

// maxBuf bounds the encoding buffer of one write (Writer.maxBuf).
const maxBuf = 8 << 20

// wholeRows writes whole groups, as many at a time as maxBuf holds,
// each buffer's groups encoded on several cores (encodeRows).
func (w *Writer) wholeRows(bltStart, n int, vis []complex128, flags []bool, nsamples []float32) error {
	row := w.nf * w.npol
	per := max(1, w.maxBuf/w.groupLen)
	for r0 := 0; r0 < n; r0 += per {
		r1 := min(n, r0+per)
		buf := w.scratch((r1 - r0) * w.groupLen)
		w.encodeRows(buf, r1-r0, blocks.Workers(len(buf), encodeGrain), func(dst []byte, r int) {
			dst = w.putParams(dst, bltStart+r0+r)
			w.putData(dst, vis, flags, nsamples, (r0+r)*row, w.nf)
		})
		if _, err := w.out.File().WriteAt(buf, w.dataOff+int64(bltStart+r0)*int64(w.groupLen)); err != nil {
			return err
		}
	}
	return nil
}

// encodeRows encodes n groups of groupLen bytes into buf, group r by
// put(buf[r·groupLen:], r), the groups split between workers goroutines:
// the encoding (and the phasing before it) was the writer's own work that
// kept it below a GPU's rate (0.22 GB/s against UVH5's 0.96 on 2 cores).
// Each group has its own bytes, so the result does not depend on the
// split (TestEncodeSplit).
func (w *Writer) encodeRows(buf []byte, n, workers int, put func(dst []byte, r int)) {
	blocks.Run(n, workers, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			put(buf[r*w.groupLen:(r+1)*w.groupLen], r)
		}
	})
}

// encodeGrain is the bytes of groups a goroutine of encodeRows takes at
// least (its start is then a small part of its work).
const encodeGrain = 256 << 10

// scratch is the writer's reused encoding buffer at length n.
func (w *Writer) scratch(n int) []byte {
	if cap(w.buf) < n {
		w.buf = make([]byte, n)
	}
	return w.buf[:n]
}

// channelRows writes each row's parameters and its channels [f0, f1).
func (w *Writer) channelRows(bltStart, n, f0, f1 int, vis []complex128, flags []bool, nsamples []float32) error {
	row := (f1 - f0) * w.npol
	f := w.out.File()
	for r := range n {
		at := w.dataOff + int64(bltStart+r)*int64(w.groupLen)
		buf := w.scratch(w.pcount * w.elem())
		w.putParams(buf, bltStart+r)
		if _, err := f.WriteAt(buf, at); err != nil {
			return err
		}
		// Values of a channel run in pieces of at most maxBuf.
		perPiece := max(1, w.maxBuf/(3*w.npol*w.elem()))
		for c0 := 0; c0 < f1-f0; c0 += perPiece {
			c1 := min(f1-f0, c0+perPiece)
			buf := w.scratch((c1 - c0) * 3 * w.npol * w.elem())
			w.putData(buf, vis, flags, nsamples, r*row+c0*w.npol, c1-c0)
			pos := at + int64(w.pcount+(f0+c0)*3*w.npol)*int64(w.elem())
			if _, err := f.WriteAt(buf, pos); err != nil {
				return err
			}
		}
	}
	return nil
}

// putParams encodes row blt's random-group parameters at the start of
// dst and returns the rest of it.
func (w *Writer) putParams(dst []byte, blt int) []byte {
	for _, p := range w.params {
		dst = w.put(dst, p.value(blt))
	}
	return dst
}

// putData encodes nch channels of values from vis[i:] (freq, pol order)
// as FITS's (real, −imag, weight) triples in the file's pol order at the
// start of dst.
func (w *Writer) putData(dst []byte, vis []complex128, flags []bool, nsamples []float32, i0, nch int) {
	for fi := range nch {
		for _, pi := range w.polIdx {
			i := i0 + fi*w.npol + pi
			v := vis[i]
			wt := 1.0
			if nsamples != nil {
				wt = float64(nsamples[i])
			}
			if flags != nil && flags[i] {
				wt = -wt
			}
			dst = w.put(dst, real(v))
			dst = w.put(dst, -imag(v)) // conjugated: FITS's baseline is ant2 → ant1
			dst = w.put(dst, wt)
		}
	}
}

// put encodes x big-endian at the start of dst, in the file's precision,
// and returns the rest of dst.
func (w *Writer) put(dst []byte, x float64) []byte {
	if w.single {
		binary.BigEndian.PutUint32(dst, math.Float32bits(float32(x)))
		return dst[4:]
	}
	binary.BigEndian.PutUint64(dst, math.Float64bits(x))
	return dst[8:]
}

// Close checks that every row was written, syncs and renames the file to
// its path; on error nothing is left at path.
func (w *Writer) Close() error { return w.CloseAs(w.path) }

// CloseAs is Close renaming to dest (in the same directory).
func (w *Writer) CloseAs(dest string) error {
	if w.out.Finished() {
		return fmt.Errorf("uvfits: %s: writer already closed or aborted", w.path)
	}
	if m := w.written.Missing(); m != "" {
		w.Abort()
		return fmt.Errorf("%w: %s: rows %s (of %d)", ErrIncomplete, w.path, m, w.nblts)
	}
	if err := w.out.Commit(dest); err != nil {
		return fmt.Errorf("uvfits: %s: finishing: %w", dest, err)
	}
	return nil
}

// Abort discards the file; safe after Close and more than once.
func (w *Writer) Abort() error {
	if err := w.out.Abort(); err != nil {
		return fmt.Errorf("uvfits: %s: %w", w.path, err)
	}
	return nil
}
