package fastfloat

import (
	"encoding/binary"
	"strconv"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// TestRunTwin: ScanRun, the readers' loop over a run of digits, leaves
// the Decimal exactly as digit does one character at a time, on fresh
// random runs (zeros first and in between, up to 30 digits, integer part
// then fraction, from decimals already holding 0 to 19 digits): the
// mantissa, exponent, digit count and exactness (whose mantissa and
// exponent the reader uses only while exact).
func TestRunTwin(t *testing.T) {
	rng := sharedtest.RNG(t, 12)
	randomRun := func() []byte {
		r := make([]byte, rng.IntN(31))
		for k := range r {
			if rng.IntN(3) == 0 {
				r[k] = '0'
			} else {
				r[k] = byte('0' + rng.IntN(10))
			}
		}
		return r
	}
	for range 100000 {
		start := NewDecimal(false)
		for range rng.IntN(21) {
			digit(&start, byte('1'+rng.IntN(9)), rng.IntN(2) == 0)
		}
		runs := [][]byte{randomRun(), randomRun()}
		got, want := start, start
		for k, r := range runs {
			frac := k == 1
			// The run as it lies in a document: a byte that is not a
			// digit after it, or the document's end.
			d := append(r[:len(r):len(r)], "e,]. -"[rng.IntN(6):]...)
			if end := got.ScanRun(d, 0, frac); end != len(r) {
				t.Fatalf("ScanRun(%q) ends at %d, want %d", d, end, len(r))
			}
			for _, c := range r {
				digit(&want, c, frac)
			}
		}
		same := got.Exact == want.Exact && got.NDigits == want.NDigits && got.Man == want.Man
		if want.Exact {
			same = same && got.Exp10 == want.Exp10
		}
		if !same {
			t.Fatalf("from %+v, runs %q: ScanRun gives %+v, digit by digit %+v", start, runs, got, want)
		}
	}
}

// TestEightDigits: eightDigits accepts exactly the eight-byte words whose
// bytes are all '0'…'9' (every value of each byte, the others digits,
// and random words), and parseEightDigits reads them as strconv does.
func TestEightDigits(t *testing.T) {
	rng := sharedtest.RNG(t, 13)
	isDigits := func(b []byte) bool {
		for _, c := range b {
			if c < '0' || c > '9' {
				return false
			}
		}
		return true
	}
	check := func(b []byte) {
		t.Helper()
		v := binary.LittleEndian.Uint64(b)
		if got, want := eightDigits(v), isDigits(b); got != want {
			t.Fatalf("eightDigits(%q) = %v, want %v", b, got, want)
		}
		if !isDigits(b) {
			return
		}
		want, _ := strconv.ParseUint(string(b), 10, 64)
		if got := parseEightDigits(v); got != want {
			t.Fatalf("parseEightDigits(%q) = %d, want %d", b, got, want)
		}
	}
	for pos := range 8 {
		for c := range 256 {
			b := []byte("12345678")
			for k := range b {
				b[k] = byte('0' + rng.IntN(10))
			}
			b[pos] = byte(c)
			check(b)
		}
	}
	for _, s := range []string{"00000000", "99999999", "09999990", "10000000", "00000001"} {
		check([]byte(s))
	}
	for range 200000 {
		b := make([]byte, 8)
		for k := range b {
			if rng.IntN(4) == 0 {
				b[k] = byte(rng.IntN(256))
			} else {
				b[k] = byte('0' + rng.IntN(10))
			}
		}
		check(b)
	}
}

// digit adds a digit of the integer part, or of the fraction (frac), to
// x, one character at a time: the reference ScanRun is tested against.
func digit(x *Decimal, c byte, frac bool) {
	switch {
	case x.Man == 0 && c == '0': // a leading zero
	case x.NDigits < 19:
		x.Man = x.Man*10 + uint64(c-'0')
		x.NDigits++
	default:
		x.Exact = false // strconv reads the rest
		return
	}
	if frac {
		x.Exp10--
	}
}

// TestEightDigitsExported: EightDigits reads eight bytes at an offset as
// strconv.ParseUint does when they are all digits, and refuses any other
// eight bytes and a window that runs past the end; the bytes are random
// digits with, at random, one replaced by a byte next to the digits'
// range ('/', ':') or any byte.
func TestEightDigitsExported(t *testing.T) {
	rng := sharedtest.RNG(t, 3)
	for range 100_000 {
		b := make([]byte, 8+rng.IntN(4))
		for k := range b {
			b[k] = byte('0' + rng.IntN(10))
		}
		if rng.IntN(2) == 0 {
			b[rng.IntN(len(b))] = []byte{'/', ':', byte(rng.IntN(256))}[rng.IntN(3)]
		}
		i := rng.IntN(len(b) + 1)
		v, ok := EightDigits(b, i)
		want, err := uint64(0), error(nil)
		if i+8 <= len(b) {
			want, err = strconv.ParseUint(string(b[i:i+8]), 10, 64)
			for _, c := range b[i : i+8] {
				if c < '0' || c > '9' { // ParseUint takes no sign, but be sure
					err = strconv.ErrSyntax
				}
			}
		}
		if wantOK := i+8 <= len(b) && err == nil; ok != wantOK || (ok && v != want) {
			t.Fatalf("EightDigits(%q, %d) = %d, %v; want %d, %v", b, i, v, ok, want, wantOK)
		}
	}
}
