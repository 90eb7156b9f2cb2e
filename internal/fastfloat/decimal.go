package fastfloat

import (
	"encoding/binary"
	"math"
	"math/big"
	"math/bits"
	"sync"
)

// Decimal is a number being read as Man·10^Exp10, exact while Man holds
// all its significant digits (19 at most). A reader scans its grammar's
// sign, point and exponent itself and hands the runs of digits to
// ScanRun; Convert then gives the float64.
type Decimal struct {
	Man     uint64
	Exp10   int
	NDigits int // significant digits in Man
	Neg     bool
	// Exact is false once a digit past the 19th was seen: Man and Exp10
	// no longer say the number (strconv must read it).
	Exact bool
}

// NewDecimal is an empty, exact Decimal.
func NewDecimal(neg bool) Decimal { return Decimal{Neg: neg, Exact: true} }

// ScanRun reads the run of decimal digits at d[i:], of the integer part
// or of the fraction (frac), into x, and returns the run's end: leading
// zeros skipped (while x has no significant digit), then up to 19
// significant digits in all taken into Man, any beyond making x inexact.
// Eight digits are checked and converted at once while they fit (a
// coordinate has 16 or 17), in one pass over the run: a check of the
// class of each character, then its value, was a third of a spec
// reader's time, and a first pass to find the run's end another tenth.
func (x *Decimal) ScanRun(d []byte, i int, frac bool) int {
	s := i
	if x.Man == 0 {
		for i < len(d) && d[i] == '0' {
			i++
		}
	}
	man, n := x.Man, x.NDigits
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
		x.Exact = false
		for i < len(d) && d[i]-'0' < 10 {
			i++
		}
	}
	x.Man, x.NDigits = man, n
	if frac {
		x.Exp10 -= taken
	}
	return i
}

// EightDigits returns the number the eight bytes at b[i:] spell when
// they are all decimal digits (ok false otherwise, or when fewer than
// eight bytes are left): a reader's step over a long run of digits.
func EightDigits(b []byte, i int) (v uint64, ok bool) {
	if i+8 > len(b) {
		return 0, false
	}
	w := binary.LittleEndian.Uint64(b[i:])
	if !eightDigits(w) {
		return 0, false
	}
	return parseEightDigits(w), true
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

// Convert returns ±man·10^exp10 correctly rounded, or ok = false where
// it cannot tell (then strconv must): first Clinger's fast path (a
// mantissa and a power of ten that float64 holds exactly, one correctly
// rounded multiply or divide), then the Eisel-Lemire algorithm of Go's
// strconv (eisel_lemire.go, after Lemire 2021), which answers for every
// mantissa of up to 19 digits but halfway cases, subnormals and values
// out of range. pow is PowersOfTen(), which a reader of many numbers
// holds (fetching it for each number cost a tenth of a reader's time);
// nil fetches it only when Clinger's path does not answer.
func Convert(man uint64, exp10 int, neg bool, pow Powers) (float64, bool) {
	if f, ok := exact(man, exp10, neg); ok {
		return f, true
	}
	if pow == nil {
		pow = PowersOfTen()
	}
	return eiselLemire64(man, exp10, neg, pow)
}

func eiselLemire64(man uint64, exp10 int, neg bool, pow10 Powers) (f float64, ok bool) {
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

// Powers holds 10^q for q in [minPow10, maxPow10] as 128-bit mantissas
// rounded down, {low, high} words, the high bit set.
type Powers [][2]uint64

const minPow10, maxPow10 = -348, 347

func (t Powers) at(q int) ([2]uint64, bool) {
	if q < minPow10 || q > maxPow10 {
		return [2]uint64{}, false
	}
	return t[q-minPow10], true
}

// PowersOfTen computes the table once, exactly (math/big), on first use.
var PowersOfTen = sync.OnceValue(func() Powers {
	t := make(Powers, maxPow10-minPow10+1)
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
