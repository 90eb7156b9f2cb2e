package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// liveNames lists the temporaries the process has recorded in dir.
func liveNames(dir string) []string {
	live.mu.Lock()
	defer live.mu.Unlock()
	var names []string
	for n := range live.names {
		if filepath.Dir(n) == dir {
			names = append(names, n)
		}
	}
	return names
}

// TestLiveTemporaries checks the bookkeeping RemoveLive relies on: every
// way a temporary ends (renamed by a Stream's Commit or a group, removed by
// a Stream's Abort, Discard or a failed fill) forgets it; only unfinished ones stay recorded.
func TestLiveTemporaries(t *testing.T) {
	dir := t.TempDir()
	fill := func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }
	boom := errors.New("boom")
	if err := WriteGroup(File{filepath.Join(dir, "a"), fill}, File{filepath.Join(dir, "b"), fill}); err != nil {
		t.Fatal(err)
	}
	// Replacing existing files keeps their old content under hard links.
	if err := WriteGroup(File{filepath.Join(dir, "a"), fill}, File{filepath.Join(dir, "b"), fill}); err != nil {
		t.Fatal(err)
	}
	if err := Write(filepath.Join(dir, "c"), func(io.Writer) error { return boom }); !errors.Is(err, boom) {
		t.Fatal(err)
	}
	c, err := NewStream(filepath.Join(dir, "d"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Commit(c.Path()); err != nil {
		t.Fatal(err)
	}
	a, err := NewStream(filepath.Join(dir, "d2"))
	if err != nil {
		t.Fatal(err)
	}
	a.Abort()
	d, _ := CreateTemp(filepath.Join(dir, "e"))
	Discard(d)
	if n := liveNames(dir); len(n) != 0 {
		t.Fatalf("finished writes left recorded temporaries %v", n)
	}
	open, err := CreateTemp(filepath.Join(dir, "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	if n := liveNames(dir); !slices.Equal(n, []string{open.Name()}) {
		t.Fatalf("recorded %v, want the open temporary %s", n, open.Name())
	}
	Discard(open)
}

// TestRemoveLive: RemoveLive removes the temporaries still being written
// (a second interrupt used to exit leaving them), and no new one may be
// made afterwards.
func TestRemoveLive(t *testing.T) {
	defer func() { // the package's other tests write files after this one
		live.mu.Lock()
		live.closed = false
		live.mu.Unlock()
	}()
	dir := t.TempDir()
	a, err := CreateTemp(filepath.Join(dir, "v.uvh5"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := WriteBytes(filepath.Join(dir, "done.json"), []byte("{}")); err != nil {
		t.Fatal(err)
	}
	removed, err := RemoveLive()
	if err != nil || !slices.Contains(removed, a.Name()) {
		t.Fatalf("RemoveLive = %v, %v; want %s removed", removed, err, a.Name())
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != "done.json" {
		t.Fatalf("left %v, want only done.json", ents)
	}
	if f, err := CreateTemp(filepath.Join(dir, "late")); !errors.Is(err, errExiting) {
		if f != nil {
			Discard(f)
		}
		t.Fatalf("CreateTemp after RemoveLive: %v, want errExiting", err)
	}
	if err := WriteBytes(filepath.Join(dir, "late"), nil); err == nil {
		t.Fatal("WriteBytes after RemoveLive succeeded")
	}
}
