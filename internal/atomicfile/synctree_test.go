package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSyncTree: every file and directory of a tree is synced without
// error, links are left alone, and a tree that is not there is an error.
func TestSyncTree(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"x", "a/y", "a/b/z"} {
		if err := os.WriteFile(filepath.Join(dir, p), []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/nonexistent", filepath.Join(dir, "a", "dangling")); err != nil {
		t.Fatal(err)
	}
	if err := SyncTree(dir); err != nil {
		t.Errorf("SyncTree: %v", err)
	}
	if err := SyncTree(filepath.Join(dir, "missing")); err == nil {
		t.Errorf("SyncTree of a missing directory: no error")
	}
}
