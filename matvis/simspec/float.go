package simspec

import (
	"encoding/binary"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"sync"
)

// Reading a spec's numbers was bound by strconv.ParseFloat, which scans
// each number again after the reader found its end, one character class
// at a time (it also takes hex, underscores, "inf"). scanFloat does both in
// one pass over JSON's grammar, gathering up to 19 significant digits, and
// converts them with the Eisel-Lemire algorithm, which strconv itself uses
// and which is exact when it answers; when it does not (halfway cases,
// more than 19 digits, subnormals, overflow), strconv.ParseFloat decides.
// TestScanFloat holds it to strconv bit for bit.

// scanFloat reads the JSON number at d[i], returning its value and its
// end, -1 when d[i:] does not start with a JSON number; err is strconv's
// for a number out of float64's range. pow is powersOfTen(), which the
// caller holds (fetching it for each number cost a tenth of the time).
func scanFloat(d []byte, i int, pow pow10Table) (v float64, end int, err error) {
	x, end := scanDecimal(d, i)
	if end < 0 {
		return 0, -1, nil
	}
	if x.exact {
		if f, ok := eiselLemire64(x.man, x.exp10, x.neg, pow); ok {
			return f, end, nil
		}
	}
	v, err = strconv.ParseFloat(string(d[i:end]), 64)
	return v, end, err
}

// decimal is a JSON number as man·10^exp10, exact when man holds all its
// significant digits (19 at most).
type decimal struct {
	man          uint64
	exp10, ndigs int
	neg, exact   bool
}

// digit adds a digit of the integer part, or of the fraction (frac). It
// is the reference that run, which the reader uses, is tested against.
func (x *decimal) digit(c byte, frac bool) {
	switch {
	case x.man == 0 && c == '0': // a leading zero
	case x.ndigs < 19:
		x.man = x.man*10 + uint64(c-'0')
		x.ndigs++
	default:
		x.exact = false // strconv reads the rest
		return
	}
	if frac {
		x.exp10--
	}
}

// scanRun reads the run of decimal digits at d[i:], of the integer part
// or of the fraction (frac), into x as digit would one at a time, and
// returns the run's end: leading zeros skipped, then up to 19 significant
// digits in all taken into man, any beyond making x inexact (strconv
// reads it; its exponent no longer matters). Eight digits are checked and
// converted at once while they fit (a spec's coordinates have 16 or 17),
// in one pass over the run: digit's switch per character was a third of
// the reader's time, and a first pass to find the run's end another
// tenth.
func (x *decimal) scanRun(d []byte, i int, frac bool) int {
	s := i
	if x.man == 0 {
		for i < len(d) && d[i] == '0' {
			i++
		}
	}
	man, n := x.man, x.ndigs
	for n <= 19-8 && i+8 <= len(d) {
		v := binary.LittleEndian.Uint64(d[i:])
		if !eightDigits(v) {
			break
		}
		man = man*1e8 + parseEightDigits(v)
		n += 8
		i += 8
	}
	for n < 19 && i < len(d) && d[i]-'0' < 10 {
		man = man*10 + uint64(d[i]-'0')
		n++
		i++
	}
	taken := i - s
	if i < len(d) && d[i]-'0' < 10 {
		x.exact = false
		i = digitsEnd(d, i)
	}
	x.man, x.ndigs = man, n
	if frac {
		x.exp10 -= taken
	}
	return i
}

// eightDigits says whether the eight bytes of v (little-endian) are all
// decimal digits: each byte's high nibble 3, and adding 6 to it leaves
// it 3 (no carry past '9').
func eightDigits(v uint64) bool {
	return (v&0xF0F0F0F0F0F0F0F0)|(((v+0x0606060606060606)&0xF0F0F0F0F0F0F0F0)>>4) == 0x3333333333333333
}

// parseEightDigits is the number the eight digits of v spell, the first
// in its lowest byte, in three multiplications (pairs, then fours, then
// the eight: Lemire, "Number Parsing at a Gigabyte per Second", 2021).
func parseEightDigits(v uint64) uint64 {
	const mask = 0x000000FF000000FF
	v -= 0x3030303030303030
	v = v*10 + v>>8 // pairs of digits in bytes 0, 2, 4, 6
	v = ((v&mask)*(100+1000000<<32) + ((v>>16)&mask)*(1+10000<<32)) >> 32
	return v & 0xFFFFFFFF
}

// digitsEnd returns the end of the run of decimal digits at d[i:].
func digitsEnd(d []byte, i int) int {
	for i < len(d) && d[i] >= '0' && d[i] <= '9' {
		i++
	}
	return i
}

// scanDecimal reads the JSON number at d[i] along its grammar,
// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, returning its end, or -1
// when it is not one.
func scanDecimal(d []byte, i int) (x decimal, end int) {
	x.exact = true
	if x.neg = i < len(d) && d[i] == '-'; x.neg {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		i = x.scanRun(d, i, false)
	default:
		return x, -1
	}
	if i < len(d) && d[i] == '.' {
		s := i + 1
		if i = x.scanRun(d, s, true); i == s {
			return x, -1
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		e, end := scanExponent(d, i+1)
		x.exp10 += e
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

// eiselLemire64 returns man·10^exp10 (negated when neg) correctly rounded,
// or ok = false where it cannot tell (then strconv must). It is the
// algorithm of Go's strconv (eisel_lemire.go, after Lemire, "Number
// Parsing at a Gigabyte per Second", 2021).
func eiselLemire64(man uint64, exp10 int, neg bool, pow10 pow10Table) (f float64, ok bool) {
	if man == 0 {
		if neg {
			f = math.Copysign(0, -1)
		}
		return f, true
	}
	pow, ok := pow10.at(exp10)
	if !ok {
		return 0, false
	}
	clz := bits.LeadingZeros64(man)
	man <<= uint(clz)
	const bias = 1023
	retExp2 := uint64(217706*exp10>>16+64+bias) - uint64(clz)
	xHi, xLo := bits.Mul64(man, pow[1])
	if xHi&0x1FF == 0x1FF && xLo+man < man {
		yHi, yLo := bits.Mul64(man, pow[0])
		mergedHi, mergedLo := xHi, xLo+yHi
		if mergedLo < xLo {
			mergedHi++
		}
		if mergedHi&0x1FF == 0x1FF && mergedLo+1 == 0 && yLo+man < man {
			return 0, false
		}
		xHi, xLo = mergedHi, mergedLo
	}
	msb := xHi >> 63
	retMantissa := xHi >> (msb + 9)
	retExp2 -= 1 ^ msb
	if xLo == 0 && xHi&0x1FF == 0 && retMantissa&3 == 1 {
		return 0, false // halfway between two floats
	}
	retMantissa += retMantissa & 1
	retMantissa >>= 1
	if retMantissa>>53 > 0 {
		retMantissa >>= 1
		retExp2++
	}
	if retExp2-1 >= 0x7FF-1 {
		return 0, false // subnormal, or out of range
	}
	b := retExp2<<52 | retMantissa&(1<<52-1)
	if neg {
		b |= 1 << 63
	}
	return math.Float64frombits(b), true
}

// pow10Table holds 10^q for q in [minPow10, maxPow10] as 128-bit
// mantissas rounded down, {low, high} words, the high bit set.
type pow10Table [][2]uint64

const minPow10, maxPow10 = -348, 347

func (t pow10Table) at(q int) ([2]uint64, bool) {
	if q < minPow10 || q > maxPow10 {
		return [2]uint64{}, false
	}
	return t[q-minPow10], true
}

// powersOfTen computes the table once, exactly (math/big), on first use.
var powersOfTen = sync.OnceValue(func() pow10Table {
	t := make(pow10Table, maxPow10-minPow10+1)
	ten := big.NewInt(10)
	for q := minPow10; q <= maxPow10; q++ {
		p := new(big.Int).Exp(ten, big.NewInt(int64(abs(q))), nil)
		m := new(big.Int)
		if q >= 0 {
			if n := p.BitLen(); n > 128 {
				m.Rsh(p, uint(n-128))
			} else {
				m.Lsh(p, uint(128-n))
			}
		} else {
			// 2^k / 10^|q| with k such that the quotient has 128 bits.
			k := 127 + p.BitLen()
			m.Quo(new(big.Int).Lsh(big.NewInt(1), uint(k)), p)
		}
		lo := new(big.Int).And(m, new(big.Int).SetUint64(math.MaxUint64))
		t[q-minPow10] = [2]uint64{lo.Uint64(), new(big.Int).Rsh(m, 64).Uint64()}
	}
	return t
})

func abs(q int) int {
	if q < 0 {
		return -q
	}
	return q
}
