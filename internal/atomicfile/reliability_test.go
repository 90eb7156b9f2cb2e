//go:build unix

package atomicfile

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestWritePermissions checks that outputs are not created 0600 (as
// os.CreateTemp's temporaries are) and that a replaced file keeps its mode.
func TestWritePermissions(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	p := filepath.Join(dir, "new.npy")
	if err := WriteBytes(p, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o644 {
		t.Fatalf("new file mode %v, want 0644 (0666 less umask 022)", st.Mode().Perm())
	}
	q := filepath.Join(dir, "old.npy")
	if err := os.WriteFile(q, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	os.Chmod(q, 0o640)
	if err := WriteBytes(q, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(q); st.Mode().Perm() != 0o640 {
		t.Fatalf("replaced file mode %v, want its old 0640", st.Mode().Perm())
	}
}

// deadPID is the id of a process that has exited.
func deadPID(t *testing.T) int {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("cannot run true:", err)
	}
	return cmd.Process.Pid
}

// TestRemoveStale checks that only Write's temporaries of the given output
// whose process is gone are removed.
func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.npy")
	dead := strconv.Itoa(deadPID(t))
	live := strconv.Itoa(os.Getpid())
	names := map[string]bool{ // name → should be removed
		".out.npy.tmp-" + dead + "-a1b2":    true,
		".out.npy.tmp-" + live + "-a1b2":    false, // a live writer's
		".out.npy.tmp-123456789":            false, // another program's pattern
		".other.npy.tmp-" + dead + "-a1b2":  false, // another output's
		"out.npy.tmp-" + dead + "-a1b2":     false,
		".out.npy.tmp-" + dead + "x-a1b2":   false,
		".out.npy.meta.tmp-" + dead + "-aa": false,
	}
	for n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	removed, err := RemoveStale(out)
	if err != nil {
		t.Fatal(err)
	}
	for n, gone := range names {
		_, err := os.Stat(filepath.Join(dir, n))
		if exists := err == nil; exists == gone {
			t.Errorf("%s: exists %v after RemoveStale", n, exists)
		}
		if slices.Contains(removed, filepath.Join(dir, n)) != gone {
			t.Errorf("%s: reported removed %v", n, !gone)
		}
	}
}

// TestLockSerializes checks that a second Lock of a directory waits for
// the first to be released.
func TestLockSerializes(t *testing.T) {
	dir := t.TempDir()
	unlock, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan time.Time)
	go func() {
		u, err := Lock(dir)
		if err != nil {
			t.Error(err)
		}
		got <- time.Now()
		u()
	}()
	time.Sleep(200 * time.Millisecond)
	released := time.Now()
	unlock()
	if at := <-got; at.Before(released) {
		t.Fatal("the second Lock did not wait for the first")
	}
}
