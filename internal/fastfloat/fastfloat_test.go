package fastfloat

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// checkSame fails unless ParseFloat(s) gives strconv's bits and error.
func checkSame(t *testing.T, s string) {
	t.Helper()
	want, werr := strconv.ParseFloat(s, 64)
	got, gerr := ParseFloat([]byte(s))
	if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
		t.Errorf("ParseFloat(%q) = %v (%#x), strconv %v (%#x)", s, got, math.Float64bits(got), want, math.Float64bits(want))
	}
	if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
		t.Errorf("ParseFloat(%q) error %v, strconv %v", s, gerr, werr)
	}
}

// TestClasses: every class of input a catalog field may hold, fast path
// or not, gives strconv's value and error.
func TestClasses(t *testing.T) {
	classes := map[string][]string{
		"integers":      {"0", "1", "7", "42", "360", "100000000", "9007199254740992", "9007199254740993", "18446744073709551615", "18446744073709551616"},
		"signs":         {"+0", "-0", "+1", "-1", "-0.0", "+0.5", "--1", "+-1", "-", "+", "-.5", "+5."},
		"leading zeros": {"00", "007", "-000.000", "0.000000001", "000000000000000000000000123.5", "0.0000000000000000000000000000012345"},
		"decimals":      {"0.1", "0.2", "0.3", "261.53967200", "-51.24619800", "100000000.00000000", "-0.94940000", ".5", "5.", "1.5e8"},
		"17 digits":     {"0.12345678901234567", "1.2345678901234567", "12345678901234567", "3.1415926535897931", "359.99999999999994"},
		"19 digits":     {"1234567890123456789", "0.1234567890123456789", "9999999999999999999", "1.000000000000000001"},
		"20 digits":     {"12345678901234567890", "0.12345678901234567890", "99999999999999999999", "1.0000000000000000001"},
		"25 digits":     {"1234567890123456789012345", "0.1234567890123456789012345", "2.2250738585072011360574097e-308"},
		"trailing zeros": {"1000000000000000000000", "10000000000000000000000.0", "1.0000000000000000000000000000",
			"90071992547409920", "90071992547409930", "0.90071992547409930e1"},
		"exponents": {"1e0", "1E0", "1e+5", "1e-5", "1E-22", "1e22", "1e23", "9e37", "1e37", "123e30", "1234567e30",
			"1e-23", "4.9e-324", "5e-324", "2e-324", "1e-400", "1.7976931348623157e308", "1.7976931348623159e308",
			"1e308", "1e309", "-1e400", "1e0000", "1e00005", "1e-0400", "0e99999", "0e-99999", "1e99999", "1e"},
		"subnormals": {"2.2250738585072009e-308", "2.2250738585072014e-308", "4.940656458412465441765687928682213723651e-324",
			"1e-310", "-3e-320"},
		"special":     {"inf", "Inf", "+Inf", "-inf", "INF", "infinity", "-Infinity", "nan", "NaN", "-nan", "+NAN", "infin", "na"},
		"underscores": {"1_000", "1_0.5", "0x_1p0", "_1", "1__0", "1e1_0"},
		"hex":         {"0x1p-2", "0X1.8P3", "0x10", "-0x1p1023", "0x1p1024", "0x"},
		"malformed":   {"", ".", "e5", ".e5", "1.2.3", "1e+", "1e-", "1ee5", "abc", "1.5x", "1,5", "١", "1 5", "0b101", "0o17", "\x00"},
	}
	for name, inputs := range classes {
		t.Run(name, func(t *testing.T) {
			for _, s := range inputs {
				checkSame(t, s)
			}
		})
	}
}

// TestFastPathTaken: the catalog's usual fields take the fast path (the
// speed claim; their values are checked by TestClasses).
func TestFastPathTaken(t *testing.T) {
	for _, s := range []string{"261.53967200", "-51.24619800", "100000000.00000000", "-0.94940000", "1.5e8", "0", "-0", "123e30",
		"0.0000000000000000012345",
		// 17 significant digits (Python's repr of a random float), past
		// 2⁵³: the Eisel-Lemire path.
		"0.026712351168229332", "-7.2714324706795", "12.640563700943096", "1.7976931348623157e308"} {
		if _, ok := parseExact([]byte(s)); !ok {
			t.Errorf("%q fell back to strconv", s)
		}
	}
	for _, s := range []string{"12345678901234567890", "1e23x", "inf", "0x1p3", "1e400", "1_0", "5e-324"} {
		if _, ok := parseExact([]byte(s)); ok {
			t.Errorf("%q took the fast path", s)
		}
	}
}

// TestRandom: random float64 bit patterns formatted every way a catalog
// writer might, and random short decimals, all give strconv's bits.
func TestRandom(t *testing.T) {
	rng := sharedtest.RNG(t, 1)
	n := 200_000
	if testing.Short() {
		n = 20_000
	}
	for range n {
		f := math.Float64frombits(rng.Uint64())
		for _, s := range []string{
			strconv.FormatFloat(f, 'g', -1, 64), strconv.FormatFloat(f, 'e', rng.IntN(6), 64),
			strconv.FormatFloat(f, 'e', -1, 64), strconv.FormatFloat(f, 'E', 16, 64),
		} {
			checkSame(t, s)
		}
		// Catalog-like: %.Nf of a value of a few magnitudes.
		v := (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(20)-6))
		checkSame(t, strconv.FormatFloat(v, 'f', rng.IntN(19), 64))
		checkSame(t, strconv.FormatFloat(v, 'f', -1, 64))
		checkSame(t, randomDecimal(rng))
	}
}

// randomDecimal writes digits, a point and an exponent at random lengths,
// near the fast path's limits (19 digits, 10^±22, 2⁵³).
func randomDecimal(rng *rand.Rand) string {
	var b strings.Builder
	switch rng.IntN(3) {
	case 0:
		b.WriteByte('-')
	case 1:
		b.WriteByte('+')
	}
	digits := func(n int) {
		for range n {
			b.WriteByte(byte('0' + rng.IntN(10)))
		}
	}
	digits(rng.IntN(22))
	if rng.IntN(2) == 0 {
		b.WriteByte('.')
		digits(rng.IntN(22))
	}
	if rng.IntN(2) == 0 {
		b.WriteByte("eE"[rng.IntN(2)])
		if rng.IntN(2) == 0 {
			b.WriteByte("+-"[rng.IntN(2)])
		}
		b.WriteString(strconv.Itoa(rng.IntN(60)))
	}
	return b.String()
}

// checkPrefix fails unless a prefix ParsePrefix takes is one strconv
// parses to the same bits.
func checkPrefix(t *testing.T, b []byte) {
	t.Helper()
	f, n, ok := ParsePrefix(b)
	if !ok {
		return
	}
	if n <= 0 || n > len(b) {
		t.Fatalf("ParsePrefix(%q) length %d", b, n)
	}
	want, err := strconv.ParseFloat(string(b[:n]), 64)
	if err != nil || math.Float64bits(f) != math.Float64bits(want) {
		t.Errorf("ParsePrefix(%q) = %v over %d bytes; strconv(%q) = %v, %v", b, f, n, b[:n], want, err)
	}
}

// TestPrefix: numbers followed by what a catalog line may hold next.
func TestPrefix(t *testing.T) {
	rng := sharedtest.RNG(t, 2)
	tails := []string{"", " ", "\t", "#", "\r", "x", "e", "E+", ".", "5", "_1", "\u00a0", " 1.5"}
	for range 20_000 {
		s := randomDecimal(rng)
		for _, tail := range tails {
			checkPrefix(t, []byte(s+tail))
		}
		if _, err := strconv.ParseFloat(s, 64); err == nil && len(s) < 12 && !strings.ContainsAny(s, "eE") {
			// short plain decimals are always exact
			if _, n, ok := ParsePrefix([]byte(s + " 7")); !ok || n != len(s) {
				t.Errorf("ParsePrefix(%q) = %d, %v", s+" 7", n, ok)
			}
		}
	}
}

func FuzzParsePrefix(f *testing.F) {
	for _, s := range []string{"261.53967200\t-51.2", "1e5x", "1.5.5", "-0#", "1e+"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkPrefix(t, b) })
}

func FuzzParseFloat(f *testing.F) {
	for _, s := range []string{"261.53967200", "-0", "1e23", "inf", "0x1p-2", "1_0", "9007199254740993", "1e-0400", ".5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkSame(t, s) })
}

func BenchmarkParseFloat(b *testing.B) {
	fields := [][]byte{[]byte("261.53967200"), []byte("-51.24619800"), []byte("0.34980000"),
		[]byte("100000000.00000000"), []byte("-0.94940000")}
	b.Run("fastfloat", func(b *testing.B) {
		for b.Loop() {
			for _, s := range fields {
				if _, err := ParseFloat(s); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("strconv", func(b *testing.B) {
		for b.Loop() {
			for _, s := range fields {
				if _, err := strconv.ParseFloat(string(s), 64); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
