package atomicfile

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txt")
	if err := Write(p, func(w io.Writer) error { _, err := io.WriteString(w, "hello"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != "hello" {
		t.Fatalf("%q %v", b, err)
	}
	// A failing fill leaves the old file untouched and no temporary behind.
	boom := errors.New("boom")
	if err := Write(p, func(w io.Writer) error { io.WriteString(w, "partial"); return boom }); !errors.Is(err, boom) {
		t.Fatalf("error %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "hello" {
		t.Fatalf("old content replaced by %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("left %d entries", len(ents))
	}
	if err := Write(filepath.Join(dir, "no", "x"), func(io.Writer) error { return nil }); err == nil {
		t.Fatal("missing directory accepted")
	}
}

// TestWriteGroup checks that a group whose last file fails changes none
// of its files and leaves no temporary.
func TestWriteGroup(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.npy"), filepath.Join(dir, "a.meta.json")
	fill := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	if err := WriteGroup(File{a, fill("A1")}, File{b, fill("B1")}); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := WriteGroup(File{a, fill("A2")}, File{b, func(io.Writer) error { return boom }})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v", err)
	}
	for p, want := range map[string]string{a: "A1", b: "B1"} {
		if got, _ := os.ReadFile(p); string(got) != want {
			t.Errorf("%s = %q after a failed group, want %q", filepath.Base(p), got, want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("%d entries left, want 2", len(ents))
	}
}

// TestStream: a streamed output appears at its destination with its bytes
// only once committed, and then atomically (no temporary left, the old file
// there until the rename); a failed commit and an abort leave no temporary
// and the old file, if any, as it was; a stream ends once (a second Commit
// is ErrFinished, Abort after either is a no-op).
func TestStream(t *testing.T) {
	for _, c := range []struct {
		name  string
		prior bool   // a file "old" at the path before
		end   string // "commit", "commit-fails" (into a missing directory) or "abort"
		want  string // the path's content afterwards; "" for no file
	}{
		{"commit new", false, "commit", "rows"},
		{"commit over old", true, "commit", "rows"},
		{"failed commit, new", false, "commit-fails", ""},
		{"failed commit keeps old", true, "commit-fails", "old"},
		{"abort new", false, "abort", ""},
		{"abort keeps old", true, "abort", "old"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "out.bin")
			if c.prior {
				if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s, err := NewStream(path)
			if err != nil {
				t.Fatal(err)
			}
			if s.Path() != path || s.Finished() {
				t.Fatalf("new stream: Path %q, Finished %v", s.Path(), s.Finished())
			}
			// Written out of order, as the row writers do.
			if _, err := s.File().WriteAt([]byte("ws"), 2); err != nil {
				t.Fatal(err)
			}
			if _, err := s.File().WriteAt([]byte("ro"), 0); err != nil {
				t.Fatal(err)
			}
			before := "" // nothing at the path while the stream is open
			if c.prior {
				before = "old"
			}
			if got := content(t, path); got != before {
				t.Fatalf("before the end: path holds %q, want %q", got, before)
			}
			tmp := s.File().Name()
			switch c.end {
			case "commit":
				err = s.Commit(path)
			case "commit-fails":
				if err = s.Commit(filepath.Join(dir, "missing", "out.bin")); err == nil {
					t.Fatal("Commit into a missing directory succeeded")
				}
				err = nil
			case "abort":
				err = s.Abort()
			}
			if err != nil {
				t.Fatal(err)
			}
			if !s.Finished() {
				t.Error("not Finished after its end")
			}
			if got := content(t, path); got != c.want {
				t.Errorf("path holds %q, want %q", got, c.want)
			}
			if _, err := os.Stat(tmp); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("temporary %s left: %v", tmp, err)
			}
			wantEnts := 0
			if c.want != "" {
				wantEnts = 1
			}
			if ents, _ := os.ReadDir(dir); len(ents) != wantEnts {
				t.Errorf("directory holds %v, want %d entries (the output, if any)", ents, wantEnts)
			}
			if err := s.Commit(path); !errors.Is(err, ErrFinished) {
				t.Errorf("second end by Commit: %v, want ErrFinished", err)
			}
			if err := s.Abort(); err != nil {
				t.Errorf("Abort after the end: %v", err)
			}
			if got := content(t, path); got != c.want {
				t.Errorf("after a second end: path holds %q, want %q", got, c.want)
			}
		})
	}
}

// content is the file at path, "" when there is none.
func content(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDiscard: Discard removes a temporary from CreateTemp, and a second
// Discard is not an error.
func TestDiscard(t *testing.T) {
	tmp, err := CreateTemp(filepath.Join(t.TempDir(), "out.bin"))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := Discard(tmp); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(tmp.Name()); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("temporary left after Discard: %v", err)
	}
}

// TestWriteGroupFailedRename checks a group whose rename fails part way
// (a directory where a companion goes): the files renamed before it get
// their old content back, new ones are removed, and nothing else is left
// (OUT.npy used to stay behind, new, without its OUT.meta.json).
func TestWriteGroupFailedRename(t *testing.T) {
	fill := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	cases := []struct {
		name string
		old  map[string]string // files there before the group ("" content: a directory)
	}{
		{"new array, directory sidecar", map[string]string{"b": ""}},
		{"old array, directory sidecar", map[string]string{"a": "A0", "b": ""}},
		{"old first two, directory third", map[string]string{"a": "A0", "b": "B0", "c": ""}},
		{"new first, directory second of three", map[string]string{"b": "", "c": "C0"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for n, content := range c.old {
				p := filepath.Join(dir, n)
				var err error
				if content == "" {
					err = os.Mkdir(p, 0o755)
					if err == nil { // not empty: no rename may replace it
						err = os.WriteFile(filepath.Join(p, "x"), nil, 0o644)
					}
				} else {
					err = os.WriteFile(p, []byte(content), 0o644)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			names := []string{"a", "b"}
			if _, ok := c.old["c"]; ok {
				names = append(names, "c")
			}
			var files []File
			for _, n := range names {
				files = append(files, File{filepath.Join(dir, n), fill(n + "1")})
			}
			if err := WriteGroup(files...); err == nil {
				t.Fatal("a group with a directory in a file's place was written")
			}
			for _, n := range names {
				p := filepath.Join(dir, n)
				st, err := os.Stat(p)
				content, had := c.old[n]
				switch {
				case !had && err == nil:
					t.Errorf("%s: left behind, new, by the failed group", n)
				case had && content == "" && (err != nil || !st.IsDir()):
					t.Errorf("%s: the directory is gone", n)
				case had && content != "":
					if got, _ := os.ReadFile(p); string(got) != content {
						t.Errorf("%s = %q after the failed group, want its old %q", n, got, content)
					}
				}
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != len(c.old) {
				var got []string
				for _, e := range ents {
					got = append(got, e.Name())
				}
				t.Errorf("left %v, want only the %d files there before", got, len(c.old))
			}
		})
	}
}

// TestIsTempOf: the names CreateTemp gives a path's temporaries are its
// temporaries, and those of another path, or the path itself, are not.
func TestIsTempOf(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "v.npy")
	f, err := CreateTemp(out)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(f.Name())
	f.Close()
	os.Remove(f.Name())
	if !IsTempOf(out, name) {
		t.Errorf("IsTempOf(%s, %s) = false for the temporary CreateTemp made", out, name)
	}
	for _, other := range []string{"v.npy", ".v.npy", "v.npy.tmp-1-a", ".v.npyx.tmp-1-a", ".w.npy.tmp-1-a"} {
		if IsTempOf(out, other) {
			t.Errorf("IsTempOf(%s, %s) = true", out, other)
		}
	}
	if !IsTempOf(filepath.Join(dir, "w.npy"), ".w.npy.tmp-1-a") {
		t.Error("IsTempOf misses .w.npy.tmp-1-a of w.npy")
	}
}

// TestStreamStartWriteback: starting the writeback of a stream's data
// midway changes nothing it holds (the committed file has every byte,
// later writes included), and a finished stream refuses it.
func TestStreamStartWriteback(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.bin")
	s, err := NewStream(path)
	if err != nil {
		t.Fatal(err)
	}
	want := bytes.Repeat([]byte("gomatvis"), 1<<16)
	half := len(want) / 2
	if _, err := s.File().WriteAt(want[:half], 0); err != nil {
		t.Fatal(err)
	}
	if err := s.StartWriteback(); err != nil {
		t.Fatalf("StartWriteback: %v", err)
	}
	if _, err := s.File().WriteAt(want[half:], int64(half)); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(path); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("committed %d bytes (err %v), want the %d written", len(got), err, len(want))
	}
	if err := s.StartWriteback(); !errors.Is(err, ErrFinished) {
		t.Errorf("StartWriteback after Commit: %v, want ErrFinished", err)
	}
}

// TestCommitWith: a stream and its companions (written while the stream
// syncs) appear together, or — when any companion's fill fails — none of
// them changes and no temporary is left; with several failing, the first
// companion's error (in the order given) is the one returned.
func TestCommitWith(t *testing.T) {
	fill := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	boom1, boom2 := errors.New("boom1"), errors.New("boom2")
	fail := func(err error) func(io.Writer) error {
		return func(w io.Writer) error { io.WriteString(w, "partial"); return err }
	}
	for _, c := range []struct {
		name         string
		fillB, fillC func(io.Writer) error
		want         error // nil: the new contents appear
	}{
		{"all written", fill("B2"), fill("C2"), nil},
		{"second companion fails", fill("B2"), fail(boom2), boom2},
		{"first companion fails", fail(boom1), fill("C2"), boom1},
		{"both fail", fail(boom1), fail(boom2), boom1},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			a, b, cc := filepath.Join(dir, "a.npy"), filepath.Join(dir, "a.meta.json"), filepath.Join(dir, "a.txt")
			if err := WriteGroup(File{a, fill("A1")}, File{b, fill("B1")}, File{cc, fill("C1")}); err != nil {
				t.Fatal(err)
			}
			s, err := NewStream(a)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.File().WriteAt([]byte("A2"), 0); err != nil {
				t.Fatal(err)
			}
			err = s.CommitWith(a, File{b, c.fillB}, File{cc, c.fillC})
			if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
				t.Fatalf("CommitWith: %v, want %v", err, c.want)
			}
			v := "2"
			if c.want != nil {
				v = "1"
			}
			for p, want := range map[string]string{a: "A" + v, b: "B" + v, cc: "C" + v} {
				if got, _ := os.ReadFile(p); string(got) != want {
					t.Errorf("%s = %q, want %q", filepath.Base(p), got, want)
				}
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 3 {
				t.Errorf("%d entries left, want 3 (a temporary stayed)", len(ents))
			}
			if err := s.CommitWith(a); !errors.Is(err, ErrFinished) {
				t.Errorf("second CommitWith: %v, want ErrFinished", err)
			}
		})
	}
}
