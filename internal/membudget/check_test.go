package membudget

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckBoundary: terms that add up to exactly the budget fit (Check's
// contract: an error only for more than the budget); one byte more does
// not. The budget is MemAvailable 1000 kB = 1 024 000 B, worked by hand.
func TestCheckBoundary(t *testing.T) {
	m := Machine{Proc: write(t, map[string]string{"meminfo": "MemAvailable: 1000 kB\n"})}
	for _, tc := range []struct {
		terms []int64
		fits  bool
	}{
		{[]int64{1024000}, true},
		{[]int64{1000000, 24000}, true},
		{[]int64{1000000, 24001}, false},
		{[]int64{1024001}, false},
	} {
		var ts []Term
		for _, b := range tc.terms {
			ts = append(ts, Term{Name: "t", Size: "s", Bytes: b})
		}
		err := m.Check(0, "x", "y", ts...)
		if (err == nil) != tc.fits {
			t.Errorf("terms %v against 1024000 B: %v, want fits=%v", tc.terms, err, tc.fits)
		}
		if err != nil && !errors.Is(err, ErrTooLarge) {
			t.Errorf("terms %v: %v is not ErrTooLarge", tc.terms, err)
		}
	}
}

// TestCheckAdvice: the advice names the knob of the source that set the
// budget: max_memory's flag, RLIMIT_AS's ulimit -v, and for the others
// (cgroup, MemAvailable) neither.
func TestCheckAdvice(t *testing.T) {
	meminfo := write(t, map[string]string{"meminfo": "MemAvailable: 1000 kB\n"})
	cg := write(t, map[string]string{"memory.max": "1000", "memory.current": "0"})
	cases := []struct {
		name       string
		m          Machine
		maxMemory  int64
		want, lack string
	}{
		{"max_memory", Machine{}, 10, "raise max_memory (--max-memory)", "ulimit"},
		{"RLIMIT_AS", Machine{AddressSpace: rlimit(10, nil)}, 0, "raise the address-space limit (ulimit -v)", "max_memory"},
		{"cgroup", Machine{Cgroup: cg}, 0, "the limit is 1 kB (" + FromCgroup + ")", "ulimit"},
		{"MemAvailable", Machine{Proc: meminfo}, 0, "(" + FromAvailable + ")", "ulimit"},
	}
	for _, tc := range cases {
		err := tc.m.Check(tc.maxMemory, "the thing", "use less", Term{"a", "b", 1 << 40})
		if err == nil {
			t.Errorf("%s: 1 TiB fits", tc.name)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, tc.want) || strings.Contains(msg, tc.lack) || !strings.Contains(msg, "use less") {
			t.Errorf("%s: %q: want %q and the caller's advice, without %q", tc.name, msg, tc.want, tc.lack)
		}
	}
}

// TestMulAdd: sizes multiply and add exactly below 2^63, a zero or
// negative factor is an empty allocation (0), and overflow saturates at
// math.MaxInt64 rather than wrapping to a small or negative size.
func TestMulAdd(t *testing.T) {
	const max = math.MaxInt64
	for _, tc := range []struct {
		xs   []int64
		want int64
	}{
		{[]int64{4, 1024, 19, 8}, 622592},
		{[]int64{3, 0, 5}, 0},
		{[]int64{7, -2, 5}, 0},
		{[]int64{1 << 31, 1 << 31, 2}, max},
		{[]int64{1 << 31, 1 << 31, 1}, 1 << 62},
		{[]int64{1 << 40, 1 << 40}, max},
		{[]int64{max, 1}, max},
	} {
		if got := Mul(tc.xs...); got != tc.want {
			t.Errorf("Mul(%v) = %d, want %d", tc.xs, got, tc.want)
		}
	}
	for _, tc := range []struct {
		xs   []int64
		want int64
	}{
		{[]int64{1, 2, 3}, 6},
		{[]int64{max - 10, 5}, max - 5},
		{[]int64{max - 10, 10}, max},
		{[]int64{max - 10, 11}, max},
		{[]int64{max, max}, max},
		{[]int64{1 << 62, 1 << 61}, 3 << 61},
	} {
		if got := Add(tc.xs...); got != tc.want {
			t.Errorf("Add(%v) = %d, want %d", tc.xs, got, tc.want)
		}
	}
}

// TestFormatBytes: decimal SI prefixes (1 kB = 1000 B, as the messages'
// "MB" and "GB" are read), three significant digits.
func TestFormatBytes(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{999, "999 B"}, {1000, "1 kB"}, {1500, "1.5 kB"}, {6830000, "6.83 MB"},
		{1.5e9, "1.5 GB"}, {2e12, "2 TB"}, {1 << 30, "1.07 GB"},
	} {
		if got := FormatBytes(tc.n); got != tc.want {
			t.Errorf("FormatBytes(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

// TestCgroupV1Hierarchical: a v1 memory.stat holds both this cgroup's
// own inactive_file and the hierarchy's total_inactive_file (the kernel's
// Documentation/admin-guide/cgroup-v1/memory.rst, 5.2); usage_in_bytes
// counts the hierarchy, so the page cache to discount is the total:
// 2e9 − (5e8 − 3e8) = 1.8e9.
func TestCgroupV1Hierarchical(t *testing.T) {
	cg := write(t, map[string]string{
		"memory/memory.limit_in_bytes": "2000000000\n",
		"memory/memory.usage_in_bytes": "500000000\n",
		"memory/memory.stat":           "cache 400000000\ninactive_file 100000000\ntotal_cache 400000000\ntotal_inactive_file 300000000\n",
	})
	got, ok := Machine{Cgroup: cg}.Budget(0)
	if want := (Limit{1.8e9, FromCgroup}); !ok || got != want {
		t.Errorf("Budget = %+v, %v; want %+v", got, ok, want)
	}
	if err := os.Remove(filepath.Join(cg, "memory", "memory.stat")); err != nil {
		t.Fatal(err)
	}
	if got, _ := (Machine{Cgroup: cg}).Budget(0); got.Bytes != 1.5e9 {
		t.Errorf("without memory.stat: %d, want 1.5e9 (no page cache known)", got.Bytes)
	}
}
