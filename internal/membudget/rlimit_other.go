//go:build !unix

package membudget

import "errors"

// rlimitAS: no RLIMIT_AS outside Unix; the other sources bound the run.
func rlimitAS() (uint64, error) { return 0, errors.New("no RLIMIT_AS on this system") }
