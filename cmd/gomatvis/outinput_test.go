package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMergeAndRooflineOutputIsNotAnInput checks merge and roofline with
// simulate's rule (checkOutputNotInput): no file a command writes may be
// one of its inputs, however it is named — the same path spelled
// otherwise, a symbolic link or a hard link. roofline --from
// DIR/roofline.json -o DIR used to overwrite its own input.
func TestMergeAndRooflineOutputIsNotAnInput(t *testing.T) {
	link := func(t *testing.T, from, to string, hard bool) {
		t.Helper()
		var err error
		if hard {
			err = os.Link(from, to)
		} else {
			err = os.Symlink(from, to)
		}
		if err != nil {
			t.Skip(err)
		}
	}
	cases := []struct {
		name string
		// setup returns the command's arguments; parts are 3 npy parts
		// of the example in dir.
		setup func(t *testing.T, dir string, parts []string) []string
	}{
		{"merge: output hard link to a part", func(t *testing.T, dir string, parts []string) []string {
			out := filepath.Join(dir, "m.npy")
			link(t, parts[1], out, true)
			return append([]string{"merge", "-o", out}, parts...)
		}},
		{"merge: output symlink to a part", func(t *testing.T, dir string, parts []string) []string {
			out := filepath.Join(dir, "m.npy")
			link(t, parts[2], out, false)
			return append([]string{"merge", "-o", out}, parts...)
		}},
		{"merge: the sidecar is a part", func(t *testing.T, dir string, parts []string) []string {
			// A part is recognised by its content, not its name.
			p := filepath.Join(dir, "m.meta.json")
			if err := os.Rename(parts[0], p); err != nil {
				t.Fatal(err)
			}
			return []string{"merge", "-o", filepath.Join(dir, "m.npy"), p, parts[1], parts[2]}
		}},
		{"merge: the output spelled through another path", func(t *testing.T, dir string, parts []string) []string {
			p := filepath.Join(dir, "m.npy")
			if err := os.Rename(parts[0], p); err != nil {
				t.Fatal(err)
			}
			os.Mkdir(filepath.Join(dir, "sub"), 0o755)
			return []string{"merge", "-o", dir + "/sub/../m.npy", dir + "/./m.npy", parts[1], parts[2]}
		}},
		{"roofline: --from is its roofline.json", func(t *testing.T, dir string, parts []string) []string {
			p := filepath.Join(dir, "roofline.json")
			os.WriteFile(p, []byte(`{"schema": "an earlier roofline"}`), 0o644)
			return []string{"roofline", "--from", p, "-o", dir}
		}},
		{"roofline: --from is a link to its roofline.json", func(t *testing.T, dir string, parts []string) []string {
			p := filepath.Join(dir, "roofline.json")
			os.WriteFile(p, []byte(`{"schema": "an earlier roofline"}`), 0o644)
			l := filepath.Join(t.TempDir(), "summary.json")
			link(t, p, l, false)
			return []string{"roofline", "--from", l, "-o", dir}
		}},
		{"roofline: --from is a hard link to its figure", func(t *testing.T, dir string, parts []string) []string {
			p := filepath.Join(dir, "roofline.svg")
			os.WriteFile(p, []byte(`<svg/>`), 0o644)
			l := filepath.Join(t.TempDir(), "summary.json")
			link(t, p, l, true)
			return []string{"roofline", "--from", l, "-o", dir}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			parts := shardAll(t, dir, "example", 3)
			args := c.setup(t, dir, parts)
			before := map[string]string{}
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				before[e.Name()] = fileState(t, filepath.Join(dir, e.Name()))
			}
			code, _, stderr := runCLI(t, args...)
			if code == 0 || !strings.Contains(stderr, "is the input") {
				t.Fatalf("exit %d, stderr %q; want a refusal saying the output is the input", code, stderr)
			}
			after, _ := os.ReadDir(dir)
			if len(after) != len(before) {
				t.Errorf("%d files before, %d after the refusal", len(before), len(after))
			}
			for n, st := range before {
				if got := fileState(t, filepath.Join(dir, n)); got != st {
					t.Errorf("%s changed", n)
				}
			}
		})
	}
}

// TestMergeSidecarDirectory: merge -o OUT.npy where OUT.meta.json is a
// directory is refused before the merge; the merged array used to be
// renamed into place and its metadata then fail, leaving OUT.npy alone.
func TestMergeSidecarDirectory(t *testing.T) {
	dir := t.TempDir()
	parts := shardAll(t, dir, "example", 2)
	out := filepath.Join(dir, "m.npy")
	if err := os.Mkdir(filepath.Join(dir, "m.meta.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, append([]string{"merge", "-o", out}, parts...)...)
	if code == 0 || !strings.Contains(stderr, "m.meta.json is a directory") {
		t.Fatalf("exit %d, stderr %q; want a refusal naming the directory", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatalf("%s left behind without its metadata", out)
	}
}
