// Package membudget finds how much memory a run may hold: the least of the
// user's limit (--max-memory, a spec's max_memory_bytes), the memory
// cgroup's limit less its usage (a container's limit), the address-space
// limit RLIMIT_AS less what the process has already mapped, and the
// machine's available memory (MemAvailable of /proc/meminfo).
//
// Each source is read from a root a test can replace (Machine), so that
// every source can be checked without changing the machine's limits.
package membudget

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Names of the sources, as errors print them.
const (
	FromMaxMemory    = "max_memory"
	FromCgroup       = "the memory cgroup's limit"
	FromAddressSpace = "RLIMIT_AS"
	FromAvailable    = "available memory"
)

// Limit is one bound on what a run may hold, in bytes, and its source.
type Limit struct {
	Bytes int64
	From  string
}

// Machine reads the machine's limits. Its zero value reads nothing;
// System reads this machine's.
type Machine struct {
	// Proc is where proc(5) is mounted ("/proc"): meminfo and
	// self/status (VmSize) are read from it.
	Proc string
	// Cgroup is where the cgroup hierarchy is mounted ("/sys/fs/cgroup"):
	// memory.max (v2) or memory/memory.limit_in_bytes (v1).
	Cgroup string
	// AddressSpace returns the soft RLIMIT_AS (math.MaxUint64: none).
	AddressSpace func() (uint64, error)
}

// System is this machine's Machine.
func System() Machine {
	return Machine{Proc: "/proc", Cgroup: "/sys/fs/cgroup", AddressSpace: rlimitAS}
}

// Limits are the bounds that are known: maxMemory when positive, then
// the cgroup's, RLIMIT_AS's and the available memory where they can be
// read and are finite. A source that cannot be read is left out: it
// bounds nothing this process can see.
func (m Machine) Limits(maxMemory int64) []Limit {
	var ls []Limit
	if maxMemory > 0 {
		ls = append(ls, Limit{maxMemory, FromMaxMemory})
	}
	if c, ok := m.cgroupAvailable(); ok {
		ls = append(ls, Limit{c, FromCgroup})
	}
	if a, ok := m.addressSpaceLeft(); ok {
		ls = append(ls, Limit{a, FromAddressSpace})
	}
	if a, err := m.memAvailable(); err == nil {
		ls = append(ls, Limit{a, FromAvailable})
	}
	return ls
}

// Budget is the least of Limits(maxMemory); ok is false when none is
// known.
func (m Machine) Budget(maxMemory int64) (b Limit, ok bool) {
	for _, l := range m.Limits(maxMemory) {
		if !ok || l.Bytes < b.Bytes {
			b, ok = l, true
		}
	}
	return b, ok
}

// memAvailable reads MemAvailable from Proc/meminfo.
func (m Machine) memAvailable() (int64, error) {
	if m.Proc == "" {
		return 0, fmt.Errorf("membudget: no /proc")
	}
	path := filepath.Join(m.Proc, "meminfo")
	kb, err := statusKB(path, "MemAvailable:")
	if err != nil {
		return 0, fmt.Errorf("membudget: available memory: %w", err)
	}
	return kb * 1024, nil
}

// addressSpaceLeft is RLIMIT_AS less the process's mapped address space
// (VmSize: a Go program maps about 1 GB before its first allocation), or
// the limit itself when VmSize cannot be read. ok is false without a
// limit.
func (m Machine) addressSpaceLeft() (int64, bool) {
	if m.AddressSpace == nil {
		return 0, false
	}
	lim, err := m.AddressSpace()
	if err != nil || lim >= math.MaxInt64 {
		return 0, false
	}
	left := int64(lim)
	if m.Proc != "" {
		if kb, err := statusKB(filepath.Join(m.Proc, "self", "status"), "VmSize:"); err == nil {
			left -= kb * 1024
		}
	}
	return max(left, 0), true
}

// statusKB reads the "key: N kB" line of a proc file.
func statusKB(path, key string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == key {
			n, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil || n < 0 {
				return 0, fmt.Errorf("%s: %s %q: want a number of kB", path, key, fields[1])
			}
			return n, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return 0, fmt.Errorf("%s: no %s line", path, key)
}

// cgroupAvailable is the cgroup's memory limit less its usage, counting
// reclaimable page cache (inactive files) as free: cgroup v2 (memory.max)
// or v1 (memory/memory.limit_in_bytes). ok is false when there is no
// limit or it cannot be read.
func (m Machine) cgroupAvailable() (avail int64, ok bool) {
	if m.Cgroup == "" {
		return 0, false
	}
	files := [][4]string{
		{"memory.max", "memory.current", "memory.stat", "inactive_file"},
		{"memory/memory.limit_in_bytes", "memory/memory.usage_in_bytes", "memory/memory.stat", "total_inactive_file"},
	}
	for _, f := range files {
		limit, err := readInt(filepath.Join(m.Cgroup, f[0]))
		if err != nil || limit <= 0 || limit >= 1<<60 {
			continue
		}
		used, err := readInt(filepath.Join(m.Cgroup, f[1]))
		if err != nil {
			continue
		}
		used -= statValue(filepath.Join(m.Cgroup, f[2]), f[3])
		return max(limit-max(used, 0), 0), true
	}
	return 0, false
}

// readInt reads a file holding one integer ("max" is an error).
func readInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
}

// statValue is the value of key in a memory.stat file (0 if absent).
func statValue(path, key string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, " "); ok && k == key {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}
