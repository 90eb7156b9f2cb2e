package simspec

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// TestScanFloat: scanFloat reads every spelling of a number as
// strconv.ParseFloat does, to the bit, errors (out of range) included:
// random float64s of every exponent in shortest, 17-digit, rounded and
// fixed form, random digit strings of 1 to 25 digits with random points
// and exponents (halfway cases and more than 19 digits, where it hands
// over to strconv), and the edges of float64's range. On random strings
// of number characters it finds the end numberEnd finds.
func TestScanFloat(t *testing.T) {
	rng := sharedtest.RNG(t, 1)
	check := func(s string) {
		t.Helper()
		want, wantErr := strconv.ParseFloat(s, 64)
		got, end, err := scanFloat([]byte(s), 0, powersOfTen())
		if end != len(s) || math.Float64bits(got) != math.Float64bits(want) || (err == nil) != (wantErr == nil) {
			t.Fatalf("%q: scanFloat %v (end %d, err %v), strconv %v (err %v)", s, got, end, err, want, wantErr)
		}
	}
	for _, s := range []string{"0", "-0", "0.0", "-0e5", "1", "1e308", "1.7976931348623157e308", "1.7976931348623159e308",
		"4.9e-324", "5e-324", "2.4703282292062327e-324", "2.2250738585072011e-308", "2.2250738585072014e-308",
		"1e-400", "1e400", "9007199254740993", "9007199254740992.5", "123456789012345678901234567890",
		"0.1", "0.30000000000000004", "1e-7", "1E+22", "1e23", "8.98846567431158e307", "0.000000000000000000000000000001234"} {
		check(s)
	}
	for range 200000 {
		var s string
		switch rng.IntN(3) {
		case 0:
			v := math.Float64frombits(rng.Uint64())
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			s = strconv.FormatFloat(v, []byte("eEg")[rng.IntN(3)], []int{-1, 16, rng.IntN(20)}[rng.IntN(3)], 64)
		case 1:
			s = strconv.FormatFloat(rng.NormFloat64()*math.Pow(10, float64(rng.IntN(40)-20)), 'f', -1, 64)
		default:
			var b strings.Builder
			if rng.IntN(2) == 0 {
				b.WriteByte('-')
			}
			n := 1 + rng.IntN(25)
			point := rng.IntN(n + 1)
			b.WriteByte(byte('1' + rng.IntN(9)))
			for k := 1; k < n; k++ {
				if k == point {
					b.WriteByte('.')
				}
				b.WriteByte(byte('0' + rng.IntN(10)))
			}
			if rng.IntN(2) == 0 {
				b.WriteString("e" + strconv.Itoa(rng.IntN(700)-350))
			}
			s = b.String()
		}
		check(s)
	}
	for range 100000 {
		b := make([]byte, 1+rng.IntN(8))
		for k := range b {
			b[k] = "0123456789.-+eE"[rng.IntN(15)]
		}
		if _, end, _ := scanFloat(b, 0, powersOfTen()); end != numberEnd(b, 0) {
			t.Fatalf("%q: scanFloat ends at %d, numberEnd at %d", b, end, numberEnd(b, 0))
		}
	}
}

// BenchmarkScanFloat converts 17-digit numbers (what Python's json writes
// for random floats) with scanFloat and with strconv.ParseFloat.
func BenchmarkScanFloat(b *testing.B) {
	var nums [][]byte
	for k := range 1000 {
		nums = append(nums, []byte(strconv.FormatFloat(math.Sqrt(float64(k+2))*1.234567, 'g', -1, 64)))
	}
	pow := powersOfTen()
	b.Run("scanFloat", func(b *testing.B) {
		for b.Loop() {
			for _, n := range nums {
				if _, end, _ := scanFloat(n, 0, pow); end < 0 {
					b.Fatal(string(n))
				}
			}
		}
	})
	b.Run("strconv", func(b *testing.B) {
		for b.Loop() {
			for _, n := range nums {
				if _, err := strconv.ParseFloat(string(n), 64); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// TestRunTwin: scanRun, the reader's loop over a run of digits, leaves
// the decimal exactly as digit does one character at a time, on fresh
// random runs (zeros first and in between, up to 30 digits, integer part
// then fraction, from decimals already holding 0 to 19 digits): the
// mantissa, exponent, digit count and exactness (whose mantissa and
// exponent the reader uses only while exact).
func TestRunTwin(t *testing.T) {
	rng := sharedtest.RNG(t, 2)
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
		var start decimal
		start.exact = true
		for range rng.IntN(21) {
			start.digit(byte('1'+rng.IntN(9)), rng.IntN(2) == 0)
		}
		runs := [][]byte{randomRun(), randomRun()}
		got, want := start, start
		for k, r := range runs {
			frac := k == 1
			// The run as it lies in a document: a byte that is not a
			// digit after it, or the document's end.
			d := append(r[:len(r):len(r)], "e,]. -"[rng.IntN(6):]...)
			if end := got.scanRun(d, 0, frac); end != len(r) {
				t.Fatalf("scanRun(%q) ends at %d, want %d", d, end, len(r))
			}
			for _, c := range r {
				want.digit(c, frac)
			}
		}
		same := got.exact == want.exact && got.ndigs == want.ndigs && got.man == want.man
		if want.exact {
			same = same && got.exp10 == want.exp10
		}
		if !same {
			t.Fatalf("from %+v, runs %q: run gives %+v, digit by digit %+v", start, runs, got, want)
		}
	}
}

// TestEightDigits: eightDigits accepts exactly the eight-byte words whose
// bytes are all '0'…'9' (every value of each byte, the others digits,
// and random words), and parseEightDigits reads them as strconv does.
func TestEightDigits(t *testing.T) {
	rng := sharedtest.RNG(t, 3)
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
