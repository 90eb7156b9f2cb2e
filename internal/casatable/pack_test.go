package casatable

import (
	"bytes"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// TestPackBoolsEqualsBits: packBools (eight values a byte where it can)
// packs random values, in cells of random sizes (0: a scalar column's one
// packing) and pieces of random lengths, into the bytes that packBits,
// one bit at a time, makes.
func TestPackBoolsEqualsBits(t *testing.T) {
	rng := sharedtest.RNG(t, 2)
	for trial := range 200 {
		cell := rng.IntN(40)
		n := rng.IntN(500)
		if cell > 0 {
			n = cell * rng.IntN(20)
		}
		v := make([]bool, n)
		for i := range v {
			v[i] = rng.IntN(3) == 0
		}
		var fast, slow spill
		var got, want []byte
		for lo := 0; lo < n; {
			hi := min(n, lo+1+rng.IntN(30))
			got = fast.packBools(got, v[lo:hi], cell)
			want = slow.packBits(want, v[lo:hi], cell)
			lo = hi
		}
		if !bytes.Equal(got, want) || fast.bits != slow.bits || fast.nbits != slow.nbits || fast.cellBits != slow.cellBits {
			t.Fatalf("trial %d (%d values, cells of %d): packBools %x (left %d bits), packBits %x (left %d bits)", trial, n, cell, got, fast.nbits, want, slow.nbits)
		}
	}
}
