//go:build unix

package inputfile

import "syscall"

// mmap maps size bytes of the open file fd read-only and private.
func mmap(fd uintptr, size int) ([]byte, error) {
	return syscall.Mmap(int(fd), 0, size, syscall.PROT_READ, syscall.MAP_PRIVATE|mapFlags)
}

func munmap(b []byte) error { return syscall.Munmap(b) }
