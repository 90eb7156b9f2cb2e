//go:build unix

package choicecache

import (
	"errors"
	"os"
	"syscall"
)

// tryLock tries once to take an exclusive flock on f.
func tryLock(f *os.File) lockResult {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return lockTaken
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return lockBusy
		}
		return lockUnsupported // e.g. a file system without flock
	}
}
