package h5write

import "testing"

// The vectors are those printed by the self-test (driver5) in Jenkins'
// lookup3.c.
func TestLookup3Vectors(t *testing.T) {
	cases := []struct {
		in   string
		init uint32
		want uint32
	}{
		{"", 0, 0xdeadbeef},
		{"", 0xdeadbeef, 0xbd5b7dde},
		{"Four score and seven years ago", 0, 0x17770551},
		{"Four score and seven years ago", 1, 0xcd628161},
	}
	for _, c := range cases {
		if got := lookup3([]byte(c.in), c.init); got != c.want {
			t.Errorf("lookup3(%q, %#x) = %#08x, want %#08x", c.in, c.init, got, c.want)
		}
	}
}
