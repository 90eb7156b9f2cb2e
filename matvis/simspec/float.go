package simspec

import (
	"strconv"

	"github.com/gomatvis/gomatvis/internal/fastfloat"
)

// Reading a spec's numbers was bound by strconv.ParseFloat, which scans
// each number again after the reader found its end, one character class
// at a time (it also takes hex, underscores, "inf"). scanFloat does both in
// one pass over JSON's grammar, gathering up to 19 significant digits
// (fastfloat.Decimal), and converts them as the text catalogs' reader does
// (fastfloat.Convert: Clinger's fast path, else Eisel-Lemire, each exact
// when it answers); when neither does (halfway cases, more than 19
// digits, subnormals, overflow), strconv.ParseFloat decides.
// TestScanFloat holds it to strconv bit for bit.

// scanFloat reads the JSON number at d[i], returning its value and its
// end, -1 when d[i:] does not start with a JSON number; err is strconv's
// for a number out of float64's range. pow is fastfloat.PowersOfTen(),
// which the caller holds (fetching it for each number cost a tenth of the
// time).
func scanFloat(d []byte, i int, pow fastfloat.Powers) (v float64, end int, err error) {
	if v, end, ok := scanPlain(d, i, pow); ok {
		return v, end, nil
	}
	x, end := scanDecimal(d, i)
	if end < 0 {
		return 0, -1, nil
	}
	if x.Exact {
		if f, ok := fastfloat.Convert(x.Man, x.Exp10, x.Neg, pow); ok {
			return f, end, nil
		}
	}
	v, err = strconv.ParseFloat(string(d[i:end]), 64)
	return v, end, err
}

// scanDecimal reads the JSON number at d[i] along its grammar,
// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, returning its end, or -1
// when it is not one.
func scanDecimal(d []byte, i int) (x fastfloat.Decimal, end int) {
	neg := i < len(d) && d[i] == '-'
	if neg {
		i++
	}
	x = fastfloat.NewDecimal(neg)
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		i = x.ScanRun(d, i, false)
	default:
		return x, -1
	}
	if i < len(d) && d[i] == '.' {
		s := i + 1
		if i = x.ScanRun(d, s, true); i == s {
			return x, -1
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		e, end := scanExponent(d, i+1)
		x.Exp10 += e
		return x, end
	}
	return x, i
}

// scanExponent reads an exponent's sign and digits at d[i].
func scanExponent(d []byte, i int) (e, end int) {
	neg := i < len(d) && d[i] == '-'
	if i < len(d) && (d[i] == '+' || d[i] == '-') {
		i++
	}
	s := i
	for ; i < len(d) && d[i] >= '0' && d[i] <= '9'; i++ {
		if e < 1e6 { // beyond, strconv decides (0 or out of range)
			e = e*10 + int(d[i]-'0')
		}
	}
	if i == s {
		return 0, -1
	}
	if neg {
		e = -e
	}
	return e, i
}

// scanPlain reads the commonest JSON number, -?(0|[1-9][0-9]*)(.[0-9]+)?
// without an exponent and of 19 digits at most (how json writers spell
// most float64s: Python's from 1e-4 to 1e16, Go's from 1e-6 to 1e21,
// with 16 or 17 significant digits), in one
// pass: its digits as one integer, the fraction's eight at a time, then
// fastfloat.Convert. ok is false, and nothing decided, for anything else
// (an exponent, more digits, not a number, a value Convert does not
// answer): scanDecimal's general path reads it. Leading zeros count as
// digits here, which only sends "0.000…" numbers of many digits to the
// general path.
func scanPlain(d []byte, i int, pow fastfloat.Powers) (v float64, end int, ok bool) {
	neg := i < len(d) && d[i] == '-'
	if neg {
		i++
	}
	var man uint64
	nd := 0
	switch {
	case i < len(d) && d[i] == '0':
		i++
		nd = 1
	case i < len(d) && d[i]-'1' < 9:
		for ; i < len(d) && d[i]-'0' < 10; i++ {
			if nd == 19 {
				return 0, -1, false
			}
			man = man*10 + uint64(d[i]-'0')
			nd++
		}
	default:
		return 0, -1, false
	}
	exp10 := 0
	if i < len(d) && d[i] == '.' {
		i++
		s := i
		for nd <= 19-8 {
			e, ok := fastfloat.EightDigits(d, i)
			if !ok {
				break
			}
			man = man*1e8 + e
			nd += 8
			i += 8
		}
		for ; i < len(d) && d[i]-'0' < 10; i++ {
			if nd == 19 {
				return 0, -1, false
			}
			man = man*10 + uint64(d[i]-'0')
			nd++
		}
		if i == s {
			return 0, -1, false
		}
		exp10 = s - i
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		return 0, -1, false
	}
	v, ok = fastfloat.Convert(man, exp10, neg, pow)
	return v, i, ok
}
