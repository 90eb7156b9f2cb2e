// The memory this machine leaves a run (the CPU backend's default
// budget), read by internal/membudget. The memory model itself is
// memmodel.go; the host-side checks hostmem.go.

package matvis

import "github.com/gomatvis/gomatvis/internal/membudget"

// AvailableMemory is the memory a run may take, in bytes: MemAvailable
// from /proc/meminfo, or less when the process's memory cgroup (a
// container's limit) leaves less. It is the CPU backend's default budget.
func AvailableMemory() (int64, error) {
	return membudget.System().Available()
}
