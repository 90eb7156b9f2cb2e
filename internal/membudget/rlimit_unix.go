//go:build unix

package membudget

import "syscall"

// rlimitAS is the soft address-space limit (ulimit -v).
func rlimitAS() (uint64, error) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err != nil {
		return 0, err
	}
	return r.Cur, nil
}
