// Package inputtest holds the checks every reader of user files shares in
// its tests: anything but a regular file is refused at once, by name and
// without reading it.
package inputtest

import (
	"errors"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/internal/inputfile"
)

// Allocated returns the bytes f allocates on the heap.
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// RefusesNonRegular checks that read refuses /dev/zero, a FIFO named name
// and a directory with inputfile.ErrNotRegular naming the path, within 5 s
// (a FIFO used to block forever) and allocating under 1 MiB (/dev/zero
// used to be read until memory ran out).
func RefusesNonRegular(t *testing.T, name string, read func(path string) error) {
	t.Helper()
	dir := t.TempDir()
	fifo := filepath.Join(dir, name)
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/dev/zero", fifo, dir} {
		done := make(chan error, 1)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		go func() { done <- read(p) }()
		select {
		case err := <-done:
			runtime.ReadMemStats(&after)
			if !errors.Is(err, inputfile.ErrNotRegular) || !strings.Contains(err.Error(), p) {
				t.Errorf("%s: error %v, want inputfile.ErrNotRegular naming the path", p, err)
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
				t.Errorf("%s: allocated %d bytes before refusing", p, n)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the reader hangs", p)
		}
	}
}
