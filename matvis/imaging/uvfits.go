package imaging

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gomatvis/gomatvis/internal/inputfile"
)

// FromUVFITS reads polarization pol of a phased UVFITS file (a random-
// groups primary HDU, as gomatvis's uvfits package and pyuvdata write
// it): the group parameters UU, VV, WW (seconds, split parameters of one
// name summed) and BASELINE or ANTENNA1/ANTENNA2, and the data axes
// COMPLEX (real, imaginary, weight), STOKES and FREQ, then IF, RA and DEC
// of one element each; the phase centre is the RA and DEC axes' CRVAL.
// pyuvdata's conventions are undone (its uvw are −u/c and its data the
// conjugates of UVData's), so that the samples are the MS's; a negative
// weight flags a sample (weight 0); autocorrelations are left out, as in
// FromMS.
func FromUVFITS(path, pol string) (*Vis, WCS, error) {
	fh, size, err := inputfile.Open(path)
	if err != nil {
		return nil, WCS{}, fmt.Errorf("imaging: %w", err)
	}
	defer fh.Close()
	r := bufio.NewReaderSize(io.NewSectionReader(fh, 0, size), 1<<20)
	h, err := readFITSHeader(r, path)
	if err != nil {
		return nil, WCS{}, err
	}
	g, err := h.groups(size)
	if err != nil {
		return nil, WCS{}, err
	}
	pp, err := pickPol(pol, g.pols, func(a int) int { return a }, path)
	if err != nil {
		return nil, WCS{}, err
	}
	v, err := g.read(r, pp)
	if err != nil {
		return nil, WCS{}, err
	}
	widths := make([]float64, len(g.freqs))
	for i := range widths {
		widths[i] = g.df
	}
	return v, bandWCS(g.ra, g.dec, g.freqs, widths, pp.stokes), nil
}

// fitsHeader is a primary header's cards, by keyword, and the file's
// name for errors.
type fitsHeader struct {
	path  string
	cards map[string]string
}

// readFITSHeader reads 2880-byte blocks of 80-character cards up to END.
func readFITSHeader(r io.Reader, path string) (*fitsHeader, error) {
	h := &fitsHeader{path: path, cards: map[string]string{}}
	block := make([]byte, 2880)
	for nb := 0; nb < 1000; nb++ {
		if _, err := io.ReadFull(r, block); err != nil {
			return nil, fmt.Errorf("imaging: %s: the FITS header ends without END (%v): not a UVFITS file?", path, err)
		}
		if nb == 0 && !strings.HasPrefix(string(block), "SIMPLE  =") {
			return nil, fmt.Errorf("imaging: %s: does not start with a SIMPLE card: not a FITS file", path)
		}
		for off := 0; off < len(block); off += 80 {
			card := string(block[off : off+80])
			key := strings.TrimSpace(card[:8])
			if key == "END" {
				if h.cards["SIMPLE"] != "T" {
					return nil, fmt.Errorf("imaging: %s: SIMPLE is %q, not T: not a FITS file", path, h.cards["SIMPLE"])
				}
				return h, nil
			}
			if card[8:10] != "= " {
				continue // COMMENT, HISTORY, blank
			}
			if _, dup := h.cards[key]; !dup {
				h.cards[key] = cardValue(card[10:])
			}
		}
	}
	return nil, fmt.Errorf("imaging: %s: no END in the first 1000 header blocks: not a UVFITS file", path)
}

// cardValue is a card's value: a quoted string without its quotes and
// trailing blanks, or the text before any comment.
func cardValue(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "'") {
		end := strings.Index(s[1:], "'")
		for end >= 0 && end+2 < len(s) && s[end+2] == '\'' { // '' is a quote
			next := strings.Index(s[end+3:], "'")
			if next < 0 {
				end = -1
				break
			}
			end += next + 2
		}
		if end < 0 {
			return strings.TrimRight(s[1:], " ")
		}
		return strings.TrimRight(strings.ReplaceAll(s[1:end+1], "''", "'"), " ")
	}
	if i := strings.Index(s, "/"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// str is keyword key's value, "" if absent.
func (h *fitsHeader) str(key string) string { return h.cards[key] }

// num is keyword key's number; def where absent (NaN: required).
func (h *fitsHeader) num(key string, def float64) (float64, error) {
	s, ok := h.cards[key]
	if !ok {
		if math.IsNaN(def) {
			return 0, fmt.Errorf("imaging: %s: no %s keyword: not a UVFITS file?", h.path, key)
		}
		return def, nil
	}
	x, err := strconv.ParseFloat(strings.Replace(strings.ToUpper(s), "D", "E", 1), 64)
	if err != nil || math.IsInf(x, 0) {
		return 0, fmt.Errorf("imaging: %s: %s = %q is not a finite number", h.path, key, s)
	}
	return x, nil
}

// integer is keyword key's value as an integer in [lo, hi].
func (h *fitsHeader) integer(key string, lo, hi int) (int, error) {
	x, err := h.num(key, math.NaN())
	if err != nil {
		return 0, err
	}
	if x != math.Trunc(x) || x < float64(lo) || x > float64(hi) {
		return 0, fmt.Errorf("imaging: %s: %s = %v: want an integer from %d to %d", h.path, key, x, lo, hi)
	}
	return int(x), nil
}

// uvGroups is what reading a random-groups HDU needs.
type uvGroups struct {
	path          string
	bytes         int // 4 or 8 (BITPIX −32 or −64)
	pcount, count int
	ncomplex      int // 3 (with weights) or 2
	pols          []int
	freqs         []float64
	df            float64
	ra, dec       float64 // radians
	// param[name] are the parameters' indices, scales and zeros (a name
	// may repeat: the parts add).
	param map[string][]groupParam
}

type groupParam struct {
	i           int
	scale, zero float64
}

// groups checks the header describes phased random groups gomatvis can
// image, and the file holds them all.
func (h *fitsHeader) groups(size int64) (*uvGroups, error) {
	g := &uvGroups{path: h.path, param: map[string][]groupParam{}}
	if h.str("GROUPS") != "T" {
		return nil, fmt.Errorf("imaging: %s: GROUPS is %q, not T: not a random-groups UVFITS file", h.path, h.str("GROUPS"))
	}
	bitpix, err := h.integer("BITPIX", -64, 64)
	if err != nil {
		return nil, err
	}
	if bitpix != -32 && bitpix != -64 {
		return nil, fmt.Errorf("imaging: %s: BITPIX = %d: only floating-point data (−32, −64) are read", h.path, bitpix)
	}
	g.bytes = -bitpix / 8
	for _, k := range []string{"BSCALE", "BZERO"} {
		want := map[string]float64{"BSCALE": 1, "BZERO": 0}[k]
		if x, err := h.num(k, want); err != nil || x != want {
			return nil, fmt.Errorf("imaging: %s: %s = %v: scaled data are not read (want %v)", h.path, k, x, want)
		}
	}
	naxis, err := h.integer("NAXIS", 3, 999)
	if err != nil {
		return nil, err
	}
	if g.pcount, err = h.integer("PCOUNT", 3, 999); err != nil {
		return nil, err
	}
	if g.count, err = h.integer("GCOUNT", 1, math.MaxInt32); err != nil {
		return nil, err
	}
	if err := h.axes(g, naxis); err != nil {
		return nil, err
	}
	for i := range g.pcount {
		name := h.str(fmt.Sprintf("PTYPE%d", i+1))
		sc, err := h.num(fmt.Sprintf("PSCAL%d", i+1), 1)
		if err != nil {
			return nil, err
		}
		z, err := h.num(fmt.Sprintf("PZERO%d", i+1), 0)
		if err != nil {
			return nil, err
		}
		g.param[strings.TrimSpace(name)] = append(g.param[strings.TrimSpace(name)], groupParam{i, sc, z})
	}
	for _, p := range []string{"UU", "VV", "WW"} {
		if g.param[p] == nil {
			return nil, fmt.Errorf("imaging: %s: no %s group parameter (PTYPEn): not a UVFITS file of visibilities", h.path, p)
		}
	}
	if g.param["BASELINE"] == nil && (g.param["ANTENNA1"] == nil || g.param["ANTENNA2"] == nil) {
		return nil, fmt.Errorf("imaging: %s: neither BASELINE nor ANTENNA1 and ANTENNA2 among the group parameters", h.path)
	}
	need := int64(g.count) * int64(g.groupLen()) * int64(g.bytes)
	if need > size {
		return nil, fmt.Errorf("imaging: %s: GCOUNT %d groups of %d values need %d bytes, more than the file's %d: truncated?", h.path, g.count, g.groupLen(), need, size)
	}
	return g, nil
}

// axes reads the data axes: COMPLEX, STOKES and FREQ in that order, then
// axes of one element (IF, RA, DEC, whose CRVAL give the centre).
func (h *fitsHeader) axes(g *uvGroups, naxis int) error {
	want := []string{"", "COMPLEX", "STOKES", "FREQ"}
	g.ra, g.dec = math.NaN(), math.NaN()
	for a := 2; a <= naxis; a++ {
		ct := strings.TrimSpace(h.str(fmt.Sprintf("CTYPE%d", a)))
		n, err := h.integer(fmt.Sprintf("NAXIS%d", a), 1, 1<<24)
		if err != nil {
			return err
		}
		crval, err := h.num(fmt.Sprintf("CRVAL%d", a), 0)
		if err != nil {
			return err
		}
		cdelt, err := h.num(fmt.Sprintf("CDELT%d", a), 1)
		if err != nil {
			return err
		}
		crpix, err := h.num(fmt.Sprintf("CRPIX%d", a), 1)
		if err != nil {
			return err
		}
		at := func(i int) float64 { return crval + (float64(i+1)-crpix)*cdelt }
		switch {
		case a <= 4 && ct != want[a-1]:
			return fmt.Errorf("imaging: %s: CTYPE%d = %q: the data axes must start COMPLEX, STOKES, FREQ (pyuvdata's order)", h.path, a, ct)
		case a == 2:
			if n != 2 && n != 3 {
				return fmt.Errorf("imaging: %s: NAXIS2 (COMPLEX) = %d: want 3 (real, imaginary, weight) or 2", h.path, n)
			}
			g.ncomplex = n
		case a == 3:
			for i := range n {
				g.pols = append(g.pols, int(math.Round(at(i))))
			}
		case a == 4:
			for i := range n {
				f := at(i)
				if !(f > 0) {
					return fmt.Errorf("imaging: %s: channel %d's frequency %v Hz (CRVAL4, CDELT4, CRPIX4): must be positive", h.path, i, f)
				}
				g.freqs = append(g.freqs, f)
			}
			g.df = math.Abs(cdelt)
		case n != 1:
			return fmt.Errorf("imaging: %s: axis %d (%s) has %d elements: one IF and one phase centre are supported", h.path, a, ct, n)
		case ct == "RA":
			g.ra = crval * math.Pi / 180
		case ct == "DEC":
			g.dec = crval * math.Pi / 180
		}
	}
	if naxis < 4 || math.IsNaN(g.ra) || math.IsNaN(g.dec) {
		return fmt.Errorf("imaging: %s: no FREQ, RA or DEC axis (NAXIS %d): not a phased UVFITS file", h.path, naxis)
	}
	return nil
}

// groupLen is one group's values: its parameters and data.
func (g *uvGroups) groupLen() int { return g.pcount + g.ncomplex*len(g.pols)*len(g.freqs) }

// value is parameter name's value in a group's parameters (the parts of
// a repeated name added).
func (g *uvGroups) value(ps []float64, name string) float64 {
	var s float64
	for _, p := range g.param[name] {
		s += ps[p.i]*p.scale + p.zero
	}
	return s
}

// read reads every group into a Vis of polarization pp.
func (g *uvGroups) read(r io.Reader, pp polPick) (*Vis, error) {
	nf, np := len(g.freqs), len(g.pols)
	vals := make([]float64, g.groupLen())
	buf := make([]byte, len(vals)*g.bytes)
	v := &Vis{Freqs: g.freqs}
	for k := range g.count {
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, fmt.Errorf("imaging: %s: group %d of %d: %w", g.path, k, g.count, err)
		}
		for i := range vals {
			if g.bytes == 4 {
				vals[i] = float64(math.Float32frombits(binary.BigEndian.Uint32(buf[4*i:])))
			} else {
				vals[i] = math.Float64frombits(binary.BigEndian.Uint64(buf[8*i:]))
			}
		}
		ps, data := vals[:g.pcount], vals[g.pcount:]
		if g.auto(ps) {
			continue
		}
		b := [3]float64{-g.value(ps, "UU") * SpeedOfLight, -g.value(ps, "VV") * SpeedOfLight, -g.value(ps, "WW") * SpeedOfLight}
		if !finite(b[:]...) {
			return nil, fmt.Errorf("imaging: %s: group %d's UU, VV, WW are not finite", g.path, k)
		}
		v.UVW = append(v.UVW, b)
		for c := range nf {
			off := c * np * g.ncomplex
			at := func(i int) complex128 {
				d := data[off+i*g.ncomplex:]
				return complex(d[0], -d[1]) // pyuvdata writes the conjugate
			}
			var w float64
			flagged := func(i int) bool {
				return g.ncomplex == 3 && !(data[off+i*g.ncomplex+2] > 0)
			}
			val, bad := pp.combine(at, flagged)
			if !bad {
				for _, i := range pp.idx {
					w += weightOf(data[off+i*g.ncomplex:], g.ncomplex)
				}
				w /= float64(len(pp.idx))
			}
			v.Data = append(v.Data, val)
			v.Weight = append(v.Weight, w)
		}
	}
	if len(v.UVW) == 0 {
		return nil, fmt.Errorf("imaging: %s: no cross-correlations among its %d groups", g.path, g.count)
	}
	return v, nil
}

// weightOf is a correlation's weight: its third value, or 1 without one.
func weightOf(d []float64, ncomplex int) float64 {
	if ncomplex == 3 {
		return d[2]
	}
	return 1
}

// auto says whether a group is an autocorrelation.
func (g *uvGroups) auto(ps []float64) bool {
	if g.param["ANTENNA1"] != nil && g.param["ANTENNA2"] != nil {
		return g.value(ps, "ANTENNA1") == g.value(ps, "ANTENNA2")
	}
	bl := math.Round(g.value(ps, "BASELINE"))
	if bl > 65536 { // the 2048-antenna form: 2048·a1 + a2 + 2^16
		bl -= 65536
		return math.Floor(bl/2048) == math.Mod(bl, 2048)
	}
	return math.Floor(bl/256) == math.Mod(bl, 256)
}
