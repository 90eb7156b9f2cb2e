//go:build !unix

package inputfile

import "errors"

// mmap is not offered here: Map reads the file instead.
func mmap(uintptr, int) ([]byte, error) { return nil, errors.New("no mmap") }

func munmap([]byte) error { return nil }
