package inputfile_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gomatvis/gomatvis/internal/inputfile"
	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// TestMapTwin: Map gives the bytes ReadAll reads, for fresh random files
// of sizes around the page size (the empty file is read, not mapped).
func TestMapTwin(t *testing.T) {
	rng := sharedtest.RNG(t, 1)
	dir := t.TempDir()
	page := os.Getpagesize()
	for _, size := range []int{0, 1, page - 1, page, page + 1, 3*page + rng.IntN(page), 1<<20 + rng.IntN(1<<20)} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		path := filepath.Join(dir, fmt.Sprintf("f%d", size))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		want, err := inputfile.ReadAll(path, math.MaxInt64)
		if err != nil {
			t.Fatal(err)
		}
		m, err := inputfile.Map(path, math.MaxInt64)
		if err != nil {
			t.Fatalf("size %d: %v", size, err)
		}
		if got := m.Bytes(); !bytes.Equal(got, want) {
			t.Errorf("size %d: Map gave %d bytes (equal: false), ReadAll %d", size, len(got), len(want))
		}
		if size > 0 && !m.Mapped() {
			t.Errorf("size %d: not mapped", size)
		}
		if err := m.Close(); err != nil {
			t.Errorf("size %d: Close: %v", size, err)
		}
		if err := m.Close(); err != nil || m.Bytes() != nil {
			t.Errorf("size %d: second Close: %v, %d bytes left", size, err, len(m.Bytes()))
		}
	}
}

// TestMapRefuses: what Open and ReadAll refuse, Map refuses with the same
// errors, without blocking on a FIFO.
func TestMapRefuses(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, path string
		limit      int64
		is         error
		want       string
	}{
		{"directory", dir, math.MaxInt64, inputfile.ErrNotRegular, "is a directory"},
		{"fifo", fifo, math.MaxInt64, inputfile.ErrNotRegular, "is a named pipe (FIFO)"},
		{"/dev/zero", "/dev/zero", math.MaxInt64, inputfile.ErrNotRegular, "is a character device"},
		{"over the limit", small, 4, inputfile.ErrTooLarge, "5 bytes, the limit is 4"},
		{"missing", filepath.Join(dir, "missing"), math.MaxInt64, os.ErrNotExist, "missing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := inputfile.Map(c.path, c.limit)
			if err == nil {
				m.Close()
				t.Fatalf("Map(%s) accepted it", c.path)
			}
			if !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.path) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q: want %v naming %s and saying %q", err, c.is, c.path, c.want)
			}
		})
	}
}

// TestMapGuardTruncated: reading a mapped file that was truncated after
// it was mapped faults (SIGBUS); Guard turns that into an error naming the
// file, where the process would otherwise crash.
func TestMapGuardTruncated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shrinks")
	page := os.Getpagesize()
	if err := os.WriteFile(path, bytes.Repeat([]byte("x"), 4*page), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := inputfile.Map(path, math.MaxInt64)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	var sum int
	err = m.Guard(func() error {
		for _, b := range m.Bytes()[2*page:] {
			sum += int(b)
		}
		return nil
	})
	if !errors.Is(err, inputfile.ErrChanged) || !strings.Contains(err.Error(), path) {
		t.Errorf("Guard: %v (sum %d), want ErrChanged naming %s", err, sum, path)
	}
	want := errors.New("fn's own")
	if err := m.Guard(func() error { return want }); err != want {
		t.Errorf("Guard passed on %v, want fn's error", err)
	}
}
