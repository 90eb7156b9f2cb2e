// Package fitsread reads the FITS files the tests compare: a primary HDU
// (random groups included) and binary-table extensions, each as its
// header cards and its raw data bytes, with the random groups' parameters
// and a table's columns decoded on request. It is a test's reader, kept
// small and independent of package uvfits (which only writes): every size
// is checked against the bytes present before it is used.
package fitsread

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gomatvis/gomatvis/internal/inputfile"
)

const block = 2880

// HDU is one header-data unit.
type HDU struct {
	Cards []Card // in file order, END excluded
	Data  []byte // the data, unpadded
}

// Card is one header card: its keyword and its value as written (a
// string without its quotes, or the number's or logical's text), ""
// for COMMENT, HISTORY and blank cards, whose text is in Text.
type Card struct {
	Key, Value string
	Quoted     bool
	Text       string
}

// Read reads every HDU of the file at path.
func Read(path string) ([]HDU, error) {
	// inputfile refuses a FIFO or directory at path without blocking.
	b, err := inputfile.ReadAll(path, math.MaxInt64)
	if err != nil {
		return nil, err
	}
	hdus, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("fitsread: %s: %w", path, err)
	}
	return hdus, nil
}

// Parse reads every HDU of a FITS file's bytes.
func Parse(b []byte) ([]HDU, error) {
	var hdus []HDU
	for off := 0; off < len(b); {
		h, next, err := readHDU(b, off)
		if err != nil {
			return nil, fmt.Errorf("HDU %d: %w", len(hdus), err)
		}
		hdus = append(hdus, h)
		off = next
	}
	return hdus, nil
}

func readHDU(b []byte, off int) (HDU, int, error) {
	var h HDU
	for end := false; !end; off += block {
		if off+block > len(b) {
			return h, 0, errors.New("header runs past the end of the file")
		}
		for i := range block / 80 {
			c := string(b[off+80*i : off+80*(i+1)])
			if strings.HasPrefix(c, "END ") {
				end = true
				break
			}
			h.Cards = append(h.Cards, parseCard(c))
		}
	}
	n, err := h.dataLen()
	if err != nil {
		return h, 0, err
	}
	if n < 0 || n > int64(len(b)-off) {
		return h, 0, fmt.Errorf("data of %d bytes; %d are left", n, len(b)-off)
	}
	h.Data = b[off : off+int(n)]
	padded := (n + block - 1) / block * block
	return h, off + int(min(padded, int64(len(b)-off))), nil
}

func parseCard(c string) Card {
	key := strings.TrimSpace(c[:8])
	if c[8:10] != "= " {
		return Card{Key: key, Text: c[8:]}
	}
	v := strings.TrimSpace(c[10:])
	if strings.HasPrefix(v, "'") {
		var sb strings.Builder
		for i := 1; i < len(v); i++ {
			if v[i] == '\'' {
				if i+1 < len(v) && v[i+1] == '\'' {
					sb.WriteByte('\'')
					i++
					continue
				}
				break
			}
			sb.WriteByte(v[i])
		}
		return Card{Key: key, Value: strings.TrimRight(sb.String(), " "), Quoted: true}
	}
	if i := strings.IndexByte(v, '/'); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	return Card{Key: key, Value: v}
}

// Get is the value of the first card with the key.
func (h *HDU) Get(key string) (Card, bool) {
	for _, c := range h.Cards {
		if c.Key == key {
			return c, true
		}
	}
	return Card{}, false
}

// Int is a card's integer value.
func (h *HDU) Int(key string) (int64, error) {
	c, ok := h.Get(key)
	if !ok {
		return 0, fmt.Errorf("no %s", key)
	}
	return strconv.ParseInt(c.Value, 10, 64)
}

// Float is a card's number.
func (h *HDU) Float(key string) (float64, error) {
	c, ok := h.Get(key)
	if !ok {
		return 0, fmt.Errorf("no %s", key)
	}
	return strconv.ParseFloat(strings.Replace(c.Value, "D", "E", 1), 64)
}

// dataLen is the data's size from BITPIX, NAXISn, PCOUNT and GCOUNT.
func (h *HDU) dataLen() (int64, error) {
	bitpix, err := h.Int("BITPIX")
	if err != nil {
		return 0, err
	}
	naxis, err := h.Int("NAXIS")
	if err != nil || naxis < 0 || naxis > 999 {
		return 0, fmt.Errorf("NAXIS: %v", err)
	}
	if naxis == 0 {
		return 0, nil
	}
	n := int64(1)
	groups := false
	if c, ok := h.Get("GROUPS"); ok && c.Value == "T" {
		groups = true
	}
	for i := range naxis {
		d, err := h.Int(fmt.Sprintf("NAXIS%d", i+1))
		if err != nil || d < 0 || d > 1<<40 {
			return 0, fmt.Errorf("NAXIS%d: %d, %v", i+1, d, err)
		}
		if i == 0 && groups && d == 0 {
			continue
		}
		if n = n * d; n > 1<<40 {
			return 0, errors.New("data larger than 1 TB")
		}
	}
	pcount, _ := h.Int("PCOUNT")
	gcount, err := h.Int("GCOUNT")
	if err != nil {
		gcount = 1
	}
	if pcount < 0 || gcount < 0 || gcount > 1<<40 || pcount > 1<<20 {
		return 0, fmt.Errorf("PCOUNT %d, GCOUNT %d", pcount, gcount)
	}
	size := abs(bitpix) / 8
	if groups {
		return size * gcount * (pcount + n), nil
	}
	return size*n + pcount, nil
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// Groups are a random-groups primary HDU decoded: each group's
// parameters, as PTYPE names them (values of the same name summed, as
// astropy's par() does, each scaled by PSCALn and offset by PZEROn), and
// its data values.
type Groups struct {
	Params map[string][]float64 // name → one value per group
	Names  []string             // PTYPEn in order, repeats included
	Data   [][]float64
}

// Groups decodes a random-groups HDU (BITPIX −32 or −64).
func (h *HDU) Groups() (*Groups, error) {
	bitpix, _ := h.Int("BITPIX")
	if bitpix != -32 && bitpix != -64 {
		return nil, fmt.Errorf("BITPIX %d: want -32 or -64", bitpix)
	}
	pcount, _ := h.Int("PCOUNT")
	gcount, _ := h.Int("GCOUNT")
	size := int(abs(bitpix) / 8)
	if gcount <= 0 || gcount > int64(len(h.Data)) {
		return nil, fmt.Errorf("GCOUNT %d for %d bytes", gcount, len(h.Data))
	}
	per := len(h.Data) / int(gcount) / size
	if int64(per*size)*gcount != int64(len(h.Data)) || int64(per) < pcount {
		return nil, fmt.Errorf("%d bytes are not %d groups of %d parameters", len(h.Data), gcount, pcount)
	}
	g := &Groups{Params: map[string][]float64{}}
	type par struct {
		name        string
		scale, zero float64
	}
	var ps []par
	for i := range pcount {
		c, ok := h.Get(fmt.Sprintf("PTYPE%d", i+1))
		if !ok {
			return nil, fmt.Errorf("no PTYPE%d", i+1)
		}
		scale, err := h.Float(fmt.Sprintf("PSCAL%d", i+1))
		if err != nil {
			scale = 1
		}
		zero, _ := h.Float(fmt.Sprintf("PZERO%d", i+1))
		ps = append(ps, par{c.Value, scale, zero})
		g.Names = append(g.Names, c.Value)
		if g.Params[c.Value] == nil {
			g.Params[c.Value] = make([]float64, gcount)
		}
	}
	val := func(at int) float64 {
		if size == 4 {
			return float64(math.Float32frombits(binary.BigEndian.Uint32(h.Data[at:])))
		}
		return math.Float64frombits(binary.BigEndian.Uint64(h.Data[at:]))
	}
	for k := range int(gcount) {
		base := k * per * size
		for i, p := range ps {
			g.Params[p.name][k] += val(base+i*size)*p.scale + p.zero
		}
		d := make([]float64, per-int(pcount))
		for i := range d {
			d[i] = val(base + (int(pcount)+i)*size)
		}
		g.Data = append(g.Data, d)
	}
	return g, nil
}

// Column is one binary-table column's values: Strings for an A column,
// else Numbers (row after row, a cell's repeat count each).
type Column struct {
	Strings []string
	Numbers []float64
}

// Table decodes a binary table's columns of the forms rA, rD, rE, rJ,
// rI and rB by TTYPE name.
func (h *HDU) Table() (map[string]Column, error) {
	rowLen, err := h.Int("NAXIS1")
	if err != nil {
		return nil, err
	}
	nrow, err := h.Int("NAXIS2")
	if err != nil {
		return nil, err
	}
	nf, err := h.Int("TFIELDS")
	if err != nil {
		return nil, err
	}
	if rowLen < 0 || nrow < 0 || (nrow > 0 && rowLen == 0) || nf < 0 || nf > 999 || rowLen*nrow > int64(len(h.Data)) {
		return nil, fmt.Errorf("%d rows of %d bytes in %d bytes", nrow, rowLen, len(h.Data))
	}
	cols := map[string]Column{}
	off := 0
	for i := range nf {
		name, _ := h.Get(fmt.Sprintf("TTYPE%d", i+1))
		form, ok := h.Get(fmt.Sprintf("TFORM%d", i+1))
		if !ok || form.Value == "" {
			return nil, fmt.Errorf("no TFORM%d", i+1)
		}
		code := form.Value[len(form.Value)-1]
		rep := 1
		if len(form.Value) > 1 {
			if rep, err = strconv.Atoi(form.Value[:len(form.Value)-1]); err != nil || rep < 0 {
				return nil, fmt.Errorf("TFORM%d %q", i+1, form.Value)
			}
		}
		width := map[byte]int{'A': 1, 'B': 1, 'I': 2, 'J': 4, 'E': 4, 'D': 8}[code]
		if width == 0 {
			return nil, fmt.Errorf("TFORM%d %q: unsupported", i+1, form.Value)
		}
		if off+rep*width > int(rowLen) {
			return nil, fmt.Errorf("TFORM%d runs past the row's %d bytes", i+1, rowLen)
		}
		var c Column
		for r := range int(nrow) {
			cell := h.Data[int(rowLen)*r+off : int(rowLen)*r+off+rep*width]
			if code == 'A' {
				c.Strings = append(c.Strings, strings.TrimRight(string(cell), " \x00"))
				continue
			}
			for j := range rep {
				x := cell[j*width:]
				var v float64
				switch code {
				case 'B':
					v = float64(x[0])
				case 'I':
					v = float64(int16(binary.BigEndian.Uint16(x)))
				case 'J':
					v = float64(int32(binary.BigEndian.Uint32(x)))
				case 'E':
					v = float64(math.Float32frombits(binary.BigEndian.Uint32(x)))
				case 'D':
					v = math.Float64frombits(binary.BigEndian.Uint64(x))
				}
				c.Numbers = append(c.Numbers, v)
			}
		}
		cols[name.Value] = c
		off += rep * width
	}
	return cols, nil
}
