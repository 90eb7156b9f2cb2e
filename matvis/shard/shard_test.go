package shard

import (
	"testing"
)

func TestSplitTilesBalanced(t *testing.T) {
	for _, c := range []struct{ nf, nt, n int }{
		{1, 1, 1}, {4, 10, 1}, {4, 10, 3}, {4, 10, 10}, {4, 10, 11}, {4, 10, 23}, {4, 10, 40}, {7, 3, 8}, {1024, 4000, 300},
	} {
		blocks, err := Split(c.nf, c.nt, c.n)
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		if len(blocks) != c.n {
			t.Fatalf("%v: %d blocks", c, len(blocks))
		}
		seen := make([]int, c.nf*c.nt)
		lo, hi := c.nf*c.nt, 0
		for _, b := range blocks {
			if b.Size() <= 0 {
				t.Fatalf("%v: empty block %v", c, b)
			}
			lo, hi = min(lo, b.Size()), max(hi, b.Size())
			for f := b.F0; f < b.F1; f++ {
				for tt := b.T0; tt < b.T1; tt++ {
					seen[f*c.nt+tt]++
				}
			}
		}
		for i, s := range seen {
			if s != 1 {
				t.Fatalf("%v: integration %d covered %d times", c, i, s)
			}
		}
		// Time blocks differ by at most one time (nf integrations); freq
		// blocks of one time by at most a factor (k+1)/k plus one channel.
		if c.n <= c.nt && hi-lo > c.nf {
			t.Errorf("%v: block sizes %d..%d: unbalanced", c, lo, hi)
		}
		if c.n > c.nt && hi > 2*lo+1 {
			t.Errorf("%v: block sizes %d..%d: unbalanced", c, lo, hi)
		}
	}
}

func TestSplitDeterministicTimeMajor(t *testing.T) {
	a, _ := Split(5, 3, 7)
	b, _ := Split(5, 3, 7)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("block %d: %v then %v", i, a[i], b[i])
		}
		if i > 0 && (a[i].T0 < a[i-1].T0 || (a[i].T0 == a[i-1].T0 && a[i].F0 < a[i-1].F0)) {
			t.Fatalf("blocks %d, %d out of time-major order: %v, %v", i-1, i, a[i-1], a[i])
		}
	}
}

func TestSplitRefuses(t *testing.T) {
	for _, c := range []struct{ nf, nt, n int }{{4, 10, 0}, {4, 10, 41}, {0, 3, 1}, {3, 0, 1}} {
		if _, err := Split(c.nf, c.nt, c.n); err == nil {
			t.Errorf("%v: no error", c)
		}
	}
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Spec
		ok   bool
	}{
		{"0/1", Spec{0, 1}, true}, {"3/16", Spec{3, 16}, true}, {"16/16", Spec{}, false},
		{"-1/4", Spec{}, false}, {"1/0", Spec{}, false}, {"3", Spec{}, false}, {"a/b", Spec{}, false},
	} {
		got, err := Parse(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("Parse(%q) = %v, %v; want %v (ok %v)", c.in, got, err, c.want, c.ok)
		}
	}
}
