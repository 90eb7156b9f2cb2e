package uvfits

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// block is the FITS record: headers and data are padded to multiples of it.
const block = 2880

// card is one 80-character header record.
type card string

func padCard(s string) card {
	if len(s) > 80 {
		s = s[:80]
	}
	return card(s + strings.Repeat(" ", 80-len(s)))
}

// kv formats KEYWORD = value as a fixed-format FITS card.
func kv(key string, v any) card {
	var val string
	switch x := v.(type) {
	case bool:
		val = fmt.Sprintf("%20s", map[bool]string{true: "T", false: "F"}[x])
	case int:
		val = fmt.Sprintf("%20d", x)
	case int64:
		val = fmt.Sprintf("%20d", x)
	case float64:
		val = fmt.Sprintf("%20s", formatFloat(x))
	case string:
		q := "'" + strings.ReplaceAll(x, "'", "''")
		for len(q) < 9 { // at least 8 characters inside the quotes
			q += " "
		}
		val = q + "'"
		if len(val) > 70 {
			val = val[:69] + "'"
		}
	default:
		panic(fmt.Sprintf("uvfits: card %s: type %T", key, v))
	}
	return padCard(fmt.Sprintf("%-8s= %s", key, val))
}

// formatFloat writes x with full float64 precision, always with a '.' or
// an exponent so FITS readers take it as real.
func formatFloat(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		panic("uvfits: non-finite header value")
	}
	s := strconv.FormatFloat(x, 'G', 17, 64)
	if !strings.ContainsAny(s, ".E") {
		s += ".0"
	}
	return s
}

// history cards carry s's lines, split to 72 characters.
func history(s string) []card {
	var out []card
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		line = strings.Map(func(r rune) rune {
			if r < 32 || r > 126 {
				return '?'
			}
			return r
		}, line)
		for {
			n := min(len(line), 72)
			out = append(out, padCard("HISTORY "+line[:n]))
			line = line[n:]
			if line == "" {
				break
			}
		}
	}
	return out
}

// encodeHeader lays cards out, END and the padding to a block.
func encodeHeader(cards []card) []byte {
	var b []byte
	for _, c := range cards {
		b = append(b, c...)
	}
	b = append(b, padCard("END")...)
	for len(b)%block != 0 {
		b = append(b, ' ')
	}
	return b
}

// padded is n rounded up to a whole number of blocks.
func padded(n int64) int64 { return (n + block - 1) / block * block }
