// Package fastfloat reads decimal numbers faster than strconv.ParseFloat
// and to the same bits: the plain decimals of text catalogs (ParseFloat,
// ParsePrefix) and, through Decimal and Convert, the numbers of a spec's
// JSON, whose reader scans JSON's grammar itself (matvis/simspec).
//
// The fast path takes [+-]digits[.digits][(e|E)[+-]digits] with at most
// 19 significant digits: when the mantissa and the power of ten are both
// exact in float64 (≤ 2⁵³, |e| ≤ 22, or a little more when the mantissa
// leaves room), the value is one correctly rounded IEEE multiply or
// divide (Clinger's fast path); otherwise the Eisel-Lemire algorithm
// gives it, exactly when it answers. Everything else — more digits,
// halfway cases, subnormals, overflow, inf/nan, hex, underscores, bad
// syntax — goes to strconv.ParseFloat itself, so values and errors are
// bit-identical to strconv in every case.
package fastfloat

import (
	"math"
	"strconv"
)

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
	1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// ParseFloat returns strconv.ParseFloat(string(b), 64), without
// allocating when b is a plain decimal the fast path takes.
func ParseFloat(b []byte) (float64, error) {
	if f, ok := parseExact(b); ok {
		return f, nil
	}
	return strconv.ParseFloat(string(b), 64)
}

// ParsePrefix parses the plain decimal at the start of b, up to the
// first byte that cannot continue it, and returns its value and length
// when the fast path takes it: then strconv.ParseFloat(string(b[:n]), 64)
// returns the same f. ok is false otherwise (b[:n] may still be a number,
// or not: ask strconv). Scanners use it to parse a field in place and
// check its terminator themselves.
func ParsePrefix(b []byte) (f float64, n int, ok bool) {
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		neg, i = b[0] == '-', 1
	}
	x := NewDecimal(neg)
	start := i
	i = x.ScanRun(b, i, false)
	sawDigits := i > start
	if i < len(b) && b[i] == '.' {
		frac := i + 1
		i = x.ScanRun(b, frac, true)
		sawDigits = sawDigits || i > frac
	}
	// 19 significant digits always fit a uint64; more are strconv's job.
	if !sawDigits || !x.Exact {
		return 0, 0, false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		e, n, ok := readExp(b[i+1:])
		if !ok {
			return 0, 0, false
		}
		x.Exp10 += e
		i += 1 + n
	}
	// No table: fetching it (a sync.OnceValue) for every number cost a
	// twentieth of a text catalog's reading, whose decimals Clinger's
	// path, which needs none, mostly takes.
	f, ok = Convert(x.Man, x.Exp10, neg, nil)
	return f, i, ok
}

// parseExact is the fast path for the whole of b.
func parseExact(b []byte) (float64, bool) {
	f, n, ok := ParsePrefix(b)
	return f, ok && n == len(b)
}

func isDigit(c byte) bool { return c-'0' < 10 }

// readExp reads an exponent's [+-]digits (at most 4 digits, which bounds
// it well inside int and far past where the fast path applies).
func readExp(b []byte) (e, n int, ok bool) {
	neg := false
	if n < len(b) && (b[n] == '+' || b[n] == '-') {
		neg, n = b[n] == '-', 1
	}
	start := n
	for ; n < len(b) && isDigit(b[n]); n++ {
		if n-start == 4 {
			return 0, 0, false
		}
		e = e*10 + int(b[n]-'0')
	}
	if n == start {
		return 0, 0, false
	}
	if neg {
		e = -e
	}
	return e, n, true
}

// exact returns ±mant·10^exp when a single rounding gives it exactly.
func exact(mant uint64, exp int, neg bool) (float64, bool) {
	if mant == 0 {
		return signed(0, neg), true // strconv: ±0 whatever the exponent
	}
	for mant > 1<<53 && mant%10 == 0 { // "100000000.00000000"
		mant /= 10
		exp++
	}
	if mant > 1<<53 {
		return 0, false
	}
	f := float64(mant) // exact
	switch {
	case exp == 0:
	case exp < 0 && exp >= -22:
		f /= pow10[-exp]
	case exp > 0 && exp <= 22+15:
		if exp > 22 { // move the excess into the mantissa while it stays exact
			f *= pow10[exp-22]
			if f > 1e15 {
				return 0, false
			}
			exp = 22
		}
		f *= pow10[exp]
	default:
		return 0, false
	}
	return signed(f, neg), true
}

func signed(f float64, neg bool) float64 {
	if neg {
		return math.Copysign(f, -1)
	}
	return f
}
