//go:build !linux

package atomicfile

import "os"

// startWriteback does nothing where sync_file_range(2) does not exist:
// Commit's sync writes everything.
func startWriteback(*os.File) error { return nil }
