package membudget

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// write makes the files of a fake /proc or cgroup root.
func write(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func rlimit(v uint64, err error) func() (uint64, error) {
	return func() (uint64, error) { return v, err }
}

// TestBudgetSources: each source alone gives its bound, and the budget
// is the least of those known.
func TestBudgetSources(t *testing.T) {
	meminfo := map[string]string{"meminfo": "MemTotal: 16000000 kB\nMemAvailable:   8000000 kB\n"}
	status := map[string]string{"self/status": "Name: x\nVmSize:\t 1000000 kB\n", "meminfo": meminfo["meminfo"]}
	cg2 := map[string]string{"memory.max": "3000000000\n", "memory.current": "1000000000\n", "memory.stat": "anon 1\ninactive_file 500000000\n"}
	cg1 := map[string]string{"memory/memory.limit_in_bytes": "2000000000", "memory/memory.usage_in_bytes": "500000000", "memory/memory.stat": "total_inactive_file 0\n"}
	cases := []struct {
		name       string
		proc, cg   map[string]string
		as         func() (uint64, error)
		maxMemory  int64
		want       Limit
		wantOK     bool
		wantLimits int
	}{
		{"nothing known", nil, nil, nil, 0, Limit{}, false, 0},
		{"max_memory alone", nil, nil, nil, 5e8, Limit{5e8, FromMaxMemory}, true, 1},
		{"MemAvailable", meminfo, nil, nil, 0, Limit{8192000000, FromAvailable}, true, 1},
		{"max_memory over MemAvailable", meminfo, nil, nil, 9e9, Limit{8192000000, FromAvailable}, true, 2},
		{"cgroup v2 limit less usage, page cache free", meminfo, cg2, nil, 0, Limit{2.5e9, FromCgroup}, true, 2},
		{"cgroup v1", meminfo, cg1, nil, 0, Limit{1.5e9, FromCgroup}, true, 2},
		{"cgroup v2 max", meminfo, map[string]string{"memory.max": "max\n", "memory.current": "1"}, nil, 0, Limit{8192000000, FromAvailable}, true, 1},
		{"cgroup v1 unlimited", meminfo, map[string]string{"memory/memory.limit_in_bytes": "9223372036854771712", "memory/memory.usage_in_bytes": "1"}, nil, 0, Limit{8192000000, FromAvailable}, true, 1},
		{"cgroup over its limit", meminfo, map[string]string{"memory.max": "1000", "memory.current": "5000"}, nil, 0, Limit{0, FromCgroup}, true, 2},
		{"RLIMIT_AS less VmSize", status, nil, rlimit(3e9, nil), 0, Limit{3e9 - 1024000000, FromAddressSpace}, true, 2},
		{"RLIMIT_AS without VmSize", nil, nil, rlimit(3e9, nil), 0, Limit{3e9, FromAddressSpace}, true, 1},
		{"RLIMIT_AS under VmSize", status, nil, rlimit(5e8, nil), 0, Limit{0, FromAddressSpace}, true, 2},
		{"RLIMIT_AS infinite", meminfo, nil, rlimit(math.MaxUint64, nil), 0, Limit{8192000000, FromAvailable}, true, 1},
		{"RLIMIT_AS unreadable", meminfo, nil, rlimit(0, errors.New("no")), 0, Limit{8192000000, FromAvailable}, true, 1},
		{"max_memory least of all", status, cg2, rlimit(3e9, nil), 1e9, Limit{1e9, FromMaxMemory}, true, 4},
		{"meminfo without MemAvailable", map[string]string{"meminfo": "MemTotal: 1 kB\n"}, nil, nil, 0, Limit{}, false, 0},
		{"meminfo garbled", map[string]string{"meminfo": "MemAvailable: lots kB\n"}, nil, nil, 7, Limit{7, FromMaxMemory}, true, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := Machine{AddressSpace: tc.as}
			if tc.proc != nil {
				m.Proc = write(t, tc.proc)
			}
			if tc.cg != nil {
				m.Cgroup = write(t, tc.cg)
			}
			got, ok := m.Budget(tc.maxMemory)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("Budget(%d) = %+v, %v; want %+v, %v", tc.maxMemory, got, ok, tc.want, tc.wantOK)
			}
			if n := len(m.Limits(tc.maxMemory)); n != tc.wantLimits {
				t.Errorf("%d limits known, want %d: %+v", n, tc.wantLimits, m.Limits(tc.maxMemory))
			}
		})
	}
}

// TestSystem reads this machine's sources: whatever they are, the budget
// is at most each of them and at most a given max_memory.
func TestSystem(t *testing.T) {
	m := System()
	b, ok := m.Budget(1 << 20)
	if !ok || b.Bytes > 1<<20 {
		t.Errorf("Budget(1 MiB) = %+v, %v; want at most 1 MiB", b, ok)
	}
	for _, l := range m.Limits(0) {
		if l.Bytes < 0 {
			t.Errorf("%s: %d bytes", l.From, l.Bytes)
		}
		t.Logf("%s: %d bytes", l.From, l.Bytes)
	}
}

// TestCgroupNesting: the process's own cgroup (from /proc/self/cgroup)
// and every ancestor bound it, the least of them wins; a level without a
// limit bounds nothing.
func TestCgroupNesting(t *testing.T) {
	const v2 = "0::/user.slice/run.scope\n"
	const v1 = "4:memory:/process_api/abc\n3:cpu,cpuacct:/other\n"
	cases := []struct {
		name   string
		self   string // /proc/self/cgroup ("": absent)
		files  map[string]string
		want   int64
		wantOK bool
	}{
		{"v2 nested limit", v2, map[string]string{
			"user.slice/run.scope/memory.max": "2000000000", "user.slice/run.scope/memory.current": "500000000"}, 1.5e9, true},
		{"v2 parent tighter", v2, map[string]string{
			"user.slice/run.scope/memory.max": "2000000000", "user.slice/run.scope/memory.current": "500000000",
			"user.slice/memory.max": "1000000000", "user.slice/memory.current": "700000000", "user.slice/memory.stat": "inactive_file 100000000\n"}, 4e8, true},
		{"v2 nested unlimited", v2, map[string]string{
			"user.slice/run.scope/memory.max": "max\n", "user.slice/run.scope/memory.current": "5"}, 0, false},
		{"v2 nested without /proc/self/cgroup: root only", "", map[string]string{
			"user.slice/run.scope/memory.max": "2000000000", "user.slice/run.scope/memory.current": "500000000"}, 0, false},
		{"v1 nested limit", v1, map[string]string{
			"memory/process_api/abc/memory.limit_in_bytes": "3000000000", "memory/process_api/abc/memory.usage_in_bytes": "1000000000",
			"memory/process_api/memory.limit_in_bytes": "9223372036854771712", "memory/process_api/memory.usage_in_bytes": "1"}, 2e9, true},
		{"v1 limit on the root", v1, map[string]string{
			"memory/memory.limit_in_bytes": "1000000000", "memory/memory.usage_in_bytes": "0"}, 1e9, true},
		{"v1 and v2 both, the least", v2 + v1, map[string]string{
			"user.slice/run.scope/memory.max": "2000000000", "user.slice/run.scope/memory.current": "0",
			"memory/process_api/abc/memory.limit_in_bytes": "3000000000", "memory/process_api/abc/memory.usage_in_bytes": "0"}, 2e9, true},
		{"a path climbing out of the root", "0::/../../etc\n", map[string]string{"memory.max": "1000", "memory.current": "0"}, 1000, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := Machine{Cgroup: write(t, tc.files), Proc: t.TempDir()}
			if tc.self != "" {
				m.Proc = write(t, map[string]string{"self/cgroup": tc.self})
			}
			got, ok := m.cgroupAvailable()
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("cgroupAvailable = %d, %v; want %d, %v", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}
