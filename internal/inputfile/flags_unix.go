//go:build unix

package inputfile

import "syscall"

// openFlags makes opening a named pipe return at once instead of waiting
// for a writer; it changes nothing for regular files.
const openFlags = syscall.O_NONBLOCK
