package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSlurmChecksAtGeneration: what would make every task or the merge
// fail is refused when the scripts are written, not after the array has
// run — a missing or unreadable --eop/--topo, and a work directory that
// already holds parts (the merge takes every part-*.gmvpart there).
func TestSlurmChecksAtGeneration(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		setup func(wd string) []string // extra arguments
		want  []string
	}{
		{"missing --eop", func(string) []string { return []string{"--eop", filepath.Join(dir, "none.json")} },
			[]string{"--eop " + filepath.Join(dir, "none.json"), "no such file", "every task of the array would fail"}},
		{"missing --topo", func(string) []string { return []string{"--topo", filepath.Join(dir, "none.npy")} },
			[]string{"--topo " + filepath.Join(dir, "none.npy"), "no such file"}},
		{"--topo a directory", func(string) []string { return []string{"--topo", filepath.Join(dir, "adir")} },
			[]string{"--topo", "is a directory"}},
		{"another run's parts", func(wd string) []string {
			if err := os.MkdirAll(wd, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, n := range []string{"part-00000.gmvpart", "part-00007.gmvpart"} {
				if err := os.WriteFile(filepath.Join(wd, n), []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			return nil
		}, []string{"already holds 2 part file(s)", "part-00000.gmvpart, part-00007.gmvpart", "choose an empty --workdir", "rm "}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wd := filepath.Join(t.TempDir(), "w")
			args := append([]string{"slurm", "example", "--tasks", "2", "--backend", "cpu", "--workdir", wd, "-o", filepath.Join(dir, "o.uvh5")}, c.setup(wd)...)
			code, _, e := runCLI(t, args...)
			if code != 1 {
				t.Errorf("exit %d, want 1: %q", code, e)
			}
			if strings.Contains(e, "usage:") {
				t.Errorf("stderr %q: a file's problem, not the usage", e)
			}
			for _, w := range c.want {
				if !strings.Contains(e, w) {
					t.Errorf("stderr %q lacks %q", e, w)
				}
			}
			if _, err := os.Stat(filepath.Join(wd, "array.sbatch")); err == nil {
				t.Error("the scripts were written")
			}
		})
	}
	// An empty or other-file work directory is fine.
	wd := filepath.Join(dir, "ok")
	if err := os.MkdirAll(wd, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wd, "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, e := runCLI(t, "slurm", "example", "--tasks", "2", "--backend", "cpu", "--workdir", wd, "-o", filepath.Join(dir, "o.uvh5")); code != 0 {
		t.Errorf("exit %d: %s", code, e)
	}
}
