package inputfile

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// withTimeout fails the test when f does not return within d (a hang on a
// FIFO must fail, not block the test run).
func withTimeout(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("did not return within %v", d)
	}
}

func TestOpenRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, path, want string }{
		{"directory", dir, "is a directory"},
		{"fifo", fifo, "is a named pipe (FIFO)"},
		{"symlink to fifo", link, "is a named pipe (FIFO)"},
		{"/dev/zero", "/dev/zero", "is a character device"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			withTimeout(t, 5*time.Second, func() {
				f, _, err := Open(c.path)
				if err == nil {
					f.Close()
					t.Errorf("Open(%s) accepted it", c.path)
					return
				}
				if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path) {
					t.Errorf("error %q: want ErrNotRegular naming %s and saying %q", err, c.path, c.want)
				}
				if _, err := ReadAll(c.path, 1<<20); !errors.Is(err, ErrNotRegular) {
					t.Errorf("ReadAll: error %v, want ErrNotRegular", err)
				}
			})
		})
	}
}

func TestOpenRegular(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.txt")
	if err := os.WriteFile(p, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, size, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if size != 5 {
		t.Errorf("size %d, want 5", size)
	}
	if _, _, err := Open(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want os.ErrNotExist", err)
	}
}

func TestReadAllLimit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.txt")
	if err := os.WriteFile(p, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadAll(p, 5); err != nil || string(b) != "hello" {
		t.Errorf("ReadAll(limit 5) = %q, %v", b, err)
	}
	_, err := ReadAll(p, 4)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "5 bytes") {
		t.Errorf("ReadAll(limit 4): %v, want ErrTooLarge naming the size", err)
	}
}

// TestReadAllUnlimited checks ReadAll with the largest limit (no limit
// but the file's; limit+1 used to overflow to a negative read size, which
// read nothing) and that a large file is read into one allocation about
// its size, not through doubling copies.
func TestReadAllUnlimited(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big")
	want := make([]byte, 8<<20)
	for i := range want {
		want[i] = byte(i * 7)
	}
	if err := os.WriteFile(p, want, 0o600); err != nil {
		t.Fatal(err)
	}
	var got []byte
	var err error
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, err = ReadAll(p, math.MaxInt64)
	runtime.ReadMemStats(&after)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("ReadAll(MaxInt64): %d bytes, %v; want the file's %d", len(got), err, len(want))
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > uint64(len(want))*5/4 {
		t.Errorf("allocated %d bytes for a file of %d", n, len(want))
	}
}

// TestCheck: Check passes a regular file (and a link to one) and names
// what anything else is, without opening it.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	file, link, loop := filepath.Join(dir, "f"), filepath.Join(dir, "l"), filepath.Join(dir, "loop")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("loop", loop); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path string
		want string // "" for no error
	}{
		{file, ""}, {link, ""},
		{dir, dir + " is a directory"},
		{"/dev/null", "/dev/null is a character device"},
		{loop, "too many levels of symbolic links"},
		{filepath.Join(dir, "none"), "no such file or directory"},
	}
	for _, c := range cases {
		err := Check(c.path)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.path, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want %q", c.path, err, c.want)
		}
	}
}
