package atomicfile

import (
	"encoding/binary"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// opensOf counts, with inotify, the opens of each watched directory
// itself (not of the files in it) while fn runs. Each directory's parent
// is watched too: inotify merges an event into an identical one just
// before it, and the parent's event of the same open keeps two opens of
// a directory in a row apart.
func opensOf(t *testing.T, dirs []string, fn func()) map[string]int {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		t.Skipf("SKIP: no inotify: %v", err)
	}
	defer syscall.Close(fd)
	byWD := map[int32]string{}
	for _, d := range append([]string{filepath.Dir(dirs[0])}, dirs...) {
		wd, err := syscall.InotifyAddWatch(fd, d, syscall.IN_OPEN)
		if err != nil {
			t.Fatal(err)
		}
		byWD[int32(wd)] = d
	}
	fn()
	counts := map[string]int{}
	buf := make([]byte, 1<<16)
	for {
		n, err := syscall.Read(fd, buf)
		if n <= 0 || err != nil {
			return counts
		}
		for off := 0; off+16 <= n; {
			wd := int32(binary.NativeEndian.Uint32(buf[off:]))
			nameLen := int(binary.NativeEndian.Uint32(buf[off+12:]))
			if nameLen == 0 { // the watched directory itself
				counts[byWD[wd]]++
			}
			off += 16 + nameLen
		}
	}
}

// TestSyncTreeOpensDirectories: SyncTree syncs each directory too (a
// file's new name is durable only once its directory is synced, fsync(2)),
// so it opens every directory of the tree more often than a bare walk,
// its twin, which opens each once to read it.
func TestSyncTreeOpensDirectories(t *testing.T) {
	dir := t.TempDir()
	dirs := []string{dir, filepath.Join(dir, "a"), filepath.Join(dir, "a", "b")}
	if err := os.MkdirAll(dirs[2], 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"x", "a/y", "a/b/z"} {
		if err := os.WriteFile(filepath.Join(dir, p), []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	walk := opensOf(t, dirs, func() {
		_ = filepath.WalkDir(dir, func(string, fs.DirEntry, error) error { return nil })
	})
	synced := opensOf(t, dirs, func() {
		if err := SyncTree(dir); err != nil {
			t.Error(err)
		}
	})
	for _, d := range dirs {
		if synced[d] <= walk[d] {
			t.Errorf("%s: opened %d times by SyncTree, %d by a bare walk: not synced", d, synced[d], walk[d])
		}
	}
}
