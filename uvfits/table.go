package uvfits

import (
	"encoding/binary"
	"fmt"
	"math"
)

// column is one binary-table column: format A (strings of width n), D
// (float64 × n), E (float32 × n) or J (int32 × n); values hold one entry
// per row ([]string, [][]float64 or []int64).
type column struct {
	name, unit string
	kind       byte
	n          int
	str        []string
	num        [][]float64
}

func (c column) width() int {
	switch c.kind {
	case 'A':
		return c.n
	case 'D':
		return 8 * c.n
	default: // E, J
		return 4 * c.n
	}
}

func strCol(name string, width int, v []string) column {
	return column{name: name, kind: 'A', n: width, str: v}
}

func numCol(name, unit string, kind byte, n int, v [][]float64) column {
	return column{name: name, unit: unit, kind: kind, n: n, num: v}
}

// scalars makes one single-value row per entry of v.
func scalars(v []float64) [][]float64 {
	out := make([][]float64, len(v))
	for i, x := range v {
		out[i] = []float64{x}
	}
	return out
}

// binTable encodes a BINTABLE extension: its header (the extra cards
// after the columns) and data, padded to blocks.
func binTable(nrows int, cols []column, extra []card) ([]byte, error) {
	rowLen := 0
	for _, c := range cols {
		rowLen += c.width()
	}
	cards := []card{kv("XTENSION", "BINTABLE"), kv("BITPIX", 8), kv("NAXIS", 2), kv("NAXIS1", rowLen),
		kv("NAXIS2", nrows), kv("PCOUNT", 0), kv("GCOUNT", 1), kv("TFIELDS", len(cols))}
	for i, c := range cols {
		cards = append(cards, kv(fmt.Sprintf("TTYPE%d", i+1), c.name), kv(fmt.Sprintf("TFORM%d", i+1), fmt.Sprintf("%d%c", c.n, c.kind)))
		if c.unit != "" {
			cards = append(cards, kv(fmt.Sprintf("TUNIT%d", i+1), c.unit))
		}
	}
	out := encodeHeader(append(cards, extra...))
	data := make([]byte, 0, nrows*rowLen)
	for r := range nrows {
		for _, c := range cols {
			if c.kind == 'A' {
				if len(c.str) != nrows {
					return nil, fmt.Errorf("uvfits: column %s: %d values for %d rows", c.name, len(c.str), nrows)
				}
				s := c.str[r]
				if err := checkPrintable(c.name, fmt.Sprintf("row %d", r+1), s); err != nil {
					return nil, err
				}
				if len(s) > c.n {
					return nil, fmt.Errorf("uvfits: column %s: %q is longer than %d characters", c.name, s, c.n)
				}
				b := make([]byte, c.n) // NUL-padded, as astropy writes
				copy(b, s)
				data = append(data, b...)
				continue
			}
			if len(c.num) != nrows || len(c.num[r]) != c.n {
				return nil, fmt.Errorf("uvfits: column %s: row %d has the wrong number of values", c.name, r)
			}
			for _, x := range c.num[r] {
				switch c.kind {
				case 'D':
					data = binary.BigEndian.AppendUint64(data, math.Float64bits(x))
				case 'E':
					data = binary.BigEndian.AppendUint32(data, math.Float32bits(float32(x)))
				case 'J':
					data = binary.BigEndian.AppendUint32(data, uint32(int32(x)))
				}
			}
		}
	}
	for len(data)%block != 0 {
		data = append(data, 0)
	}
	return append(out, data...), nil
}
