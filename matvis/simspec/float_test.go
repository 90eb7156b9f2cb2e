package simspec

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/fastfloat"
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
		got, end, err := scanFloat([]byte(s), 0, fastfloat.PowersOfTen())
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
		if _, end, _ := scanFloat(b, 0, fastfloat.PowersOfTen()); end != numberEnd(b, 0) {
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
	pow := fastfloat.PowersOfTen()
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

// FuzzScanFloat: on any bytes, scanFloat ends where numberEnd does, and
// a number it reads is strconv's to the bit (with strconv's range error).
func FuzzScanFloat(f *testing.F) {
	for _, s := range []string{"4.667882444970197,", "-0.43943948775932284]", "0.000000000000000000012345", "1e-7", "01", "-", "1.", "9999999999999999999.5"} {
		f.Add([]byte(s))
	}
	pow := fastfloat.PowersOfTen()
	f.Fuzz(func(t *testing.T, b []byte) {
		got, end, err := scanFloat(b, 0, pow)
		if want := numberEnd(b, 0); end != want {
			t.Fatalf("%q: scanFloat ends at %d, numberEnd at %d", b, end, want)
		}
		if end < 0 {
			return
		}
		want, wantErr := strconv.ParseFloat(string(b[:end]), 64)
		if math.Float64bits(got) != math.Float64bits(want) || (err == nil) != (wantErr == nil) {
			t.Fatalf("%q: scanFloat %v (err %v), strconv %v (err %v)", b[:end], got, err, want, wantErr)
		}
	})
}
