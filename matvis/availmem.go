// The memory this machine leaves a run: /proc/meminfo and the memory
// cgroup (the CPU backend's default budget). The memory model itself is
// memmodel.go; the host-side checks hostmem.go.

package matvis

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// AvailableMemory is the memory a run may take, in bytes: MemAvailable
// from /proc/meminfo, or less when the process's memory cgroup (a
// container's limit) leaves less. It is the CPU backend's default budget.
func AvailableMemory() (int64, error) {
	avail, err := memAvailable("/proc/meminfo")
	if err != nil {
		return 0, err
	}
	if c, ok := cgroupAvailable("/sys/fs/cgroup"); ok && c < avail {
		avail = c
	}
	return avail, nil
}

// memAvailable reads MemAvailable from a meminfo file.
func memAvailable(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("matvis: available memory: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemAvailable:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("matvis: parsing MemAvailable %q: %w", fields[1], err)
			}
			return kb * 1024, nil
		}
	}
	return 0, fmt.Errorf("matvis: no MemAvailable in %s", path)
}

// cgroupAvailable is the memory limit of the cgroup mounted at root less
// its usage, counting reclaimable page cache (inactive files) as free:
// cgroup v2 (memory.max) or v1 (memory/memory.limit_in_bytes). ok is
// false when there is no limit or it cannot be read.
func cgroupAvailable(root string) (avail int64, ok bool) {
	files := [][4]string{
		{"memory.max", "memory.current", "memory.stat", "inactive_file"},
		{"memory/memory.limit_in_bytes", "memory/memory.usage_in_bytes", "memory/memory.stat", "total_inactive_file"},
	}
	for _, f := range files {
		limit, err := readInt(filepath.Join(root, f[0]))
		if err != nil || limit <= 0 || limit >= 1<<60 {
			continue
		}
		used, err := readInt(filepath.Join(root, f[1]))
		if err != nil {
			continue
		}
		used -= statValue(filepath.Join(root, f[2]), f[3])
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
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
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
