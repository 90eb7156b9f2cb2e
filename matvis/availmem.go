// The memory this machine leaves a run (the backends' default budget),
// read by internal/membudget. The memory model itself is memmodel.go; the
// host-side checks hostmem.go.

package matvis

import (
	"errors"

	"github.com/gomatvis/gomatvis/internal/membudget"
)

// AvailableMemory is the memory a run may take, in bytes, when the user
// gave no limit: the least of MemAvailable from /proc/meminfo, what the
// process's memory cgroup (a container's limit) leaves and what RLIMIT_AS
// (ulimit -v) leaves. It is the CPU backend's default budget.
func AvailableMemory() (int64, error) {
	b, ok := membudget.System().Budget(0)
	if !ok {
		return 0, errors.New("matvis: available memory: neither /proc/meminfo, a memory cgroup nor RLIMIT_AS gives it")
	}
	return b.Bytes, nil
}
