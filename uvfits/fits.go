package uvfits

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
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
		if len(val) > 2+maxCardString {
			// Values from input go through stringCards, which refuses
			// or continues them: only a constant can get here.
			panic(fmt.Sprintf("uvfits: card %s: %q does not fit one card", key, x))
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

// history cards carry s's lines, split to 72 characters. A character
// FITS cannot hold is written as its Go escape (\u00c9, \t, \xff), not
// as '?': the history is free text (it holds the run's paths), so it is
// kept readable and whole rather than refused. A last card then says so:
// the UVH5 of the same run holds the history as it is, and the file tells
// why this one differs.
func history(s string) []card {
	var out []card
	escaped := false
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		e := escapeASCII(line)
		escaped = escaped || e != line
		line = e
		for {
			n := min(len(line), 72)
			out = append(out, padCard("HISTORY "+line[:n]))
			line = line[n:]
			if line == "" {
				break
			}
		}
	}
	if escaped {
		out = append(out, padCard("HISTORY gomatvis: characters outside ASCII 32-126 above are Go escapes"),
			padCard("HISTORY (\\u00c9 for U+00C9, \\xff for a byte not UTF-8): FITS headers are ASCII."))
	}
	return out
}

// escapeASCII writes each character of s outside ASCII 32–126 as its Go
// escape: \u00c9 for É, \t for a tab, \xff for a byte that is not UTF-8.
func escapeASCII(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r >= 32 && r <= 126:
			b.WriteRune(r)
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		default:
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += size
	}
	return b.String()
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
