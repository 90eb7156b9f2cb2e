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
	"slices"
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

// cgroupAvailable is the least, over the process's memory cgroup and its
// ancestors (cgroupDirs), of a level's limit less its usage, counting
// reclaimable page cache (inactive files) as free: cgroup v2 (memory.max)
// or v1 (memory.limit_in_bytes). ok is false when no level has a limit
// that can be read.
func (m Machine) cgroupAvailable() (avail int64, ok bool) {
	if m.Cgroup == "" {
		return 0, false
	}
	v2, v1 := m.cgroupDirs()
	levels := func(dirs []string, limit, usage, key string) {
		for _, d := range dirs {
			a, has := cgroupLevel(d, limit, usage, key)
			if has && (!ok || a < avail) {
				avail, ok = a, true
			}
		}
	}
	levels(v2, "memory.max", "memory.current", "inactive_file")
	levels(v1, "memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file")
	return avail, ok
}

// cgroupLevel is one cgroup directory's limit less its usage; has is
// false without a limit.
func cgroupLevel(dir, limitFile, usageFile, inactiveKey string) (avail int64, has bool) {
	limit, err := readInt(filepath.Join(dir, limitFile))
	if err != nil || limit <= 0 || limit >= 1<<60 {
		return 0, false
	}
	used, err := readInt(filepath.Join(dir, usageFile))
	if err != nil {
		return 0, false
	}
	used -= statValue(filepath.Join(dir, "memory.stat"), inactiveKey)
	return max(limit-max(used, 0), 0), true
}

// cgroupDirs are the directories of the process's memory cgroup and of
// each ancestor up to the hierarchy's root, for v2 (Cgroup/PATH of the
// "0::PATH" line of Proc/self/cgroup) and v1 (Cgroup/memory/PATH of the
// line naming the memory controller). A process in a nested cgroup
// (systemd-run -p MemoryMax=…, a job scheduler's) is bounded there, not
// at the root; in a container the path is "/" and the root is its own.
// Without Proc/self/cgroup, the roots alone.
func (m Machine) cgroupDirs() (v2, v1 []string) {
	p2, p1 := "/", "/"
	if m.Proc != "" {
		if b, err := os.ReadFile(filepath.Join(m.Proc, "self", "cgroup")); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				parts := strings.SplitN(line, ":", 3)
				switch {
				case len(parts) != 3:
				case parts[0] == "0" && parts[1] == "":
					p2 = parts[2]
				case slices.Contains(strings.Split(parts[1], ","), "memory"):
					p1 = parts[2]
				}
			}
		}
	}
	return ancestors(m.Cgroup, p2), ancestors(filepath.Join(m.Cgroup, "memory"), p1)
}

// ancestors are root/path and each of its parents up to root, innermost
// first; a path that climbs out of root ("..") is taken as root.
func ancestors(root, path string) []string {
	rel := filepath.Clean("/" + path)
	var dirs []string
	for {
		dirs = append(dirs, filepath.Join(root, rel))
		if rel == "/" {
			return dirs
		}
		rel = filepath.Dir(rel)
	}
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
