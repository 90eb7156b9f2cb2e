package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestObsparamFilingPaths: the filing section's output lands where
// pyuvsim's write_uvdata puts it — an outdir that does not exist is
// created (it was refused as "not writable"), and an absolute
// outfile_name is the path itself, outdir aside (it lost its '/').
func TestObsparamFilingPaths(t *testing.T) {
	cases := []struct {
		name         string
		outdir, file func(dir string) string // the filing values
		want, made   func(dir string) string // the output, a directory made
	}{
		{"missing outdir",
			func(d string) string { return filepath.Join(d, "new", "sub") }, func(string) string { return "run.uvh5" },
			func(d string) string { return filepath.Join(d, "new", "sub", "run.uvh5") }, func(d string) string { return filepath.Join(d, "new", "sub") }},
		{"absolute outfile_name",
			func(d string) string { return filepath.Join(d, "od") }, func(d string) string { return filepath.Join(d, "abs.uvh5") },
			func(d string) string { return filepath.Join(d, "abs.uvh5") }, func(d string) string { return filepath.Join(d, "od") }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			obs := copyObsparam(t, "pyuvsim-stokesI-gaussian")
			dir := filepath.Dir(obs)
			editFile(t, obs, `outdir: .*`, "outdir: "+c.outdir(dir))
			editFile(t, obs, `outfile_name: .*`, "outfile_name: "+c.file(dir))
			code, stdout, stderr := runCLI(t, "simulate", obs, "-q", "--backend", "cpu")
			if code != 0 {
				t.Fatalf("exit %d: %s%s", code, stdout, stderr)
			}
			if st, err := os.Stat(c.want(dir)); err != nil || !st.Mode().IsRegular() {
				t.Errorf("no output at %s: %v", c.want(dir), err)
			}
			if st, err := os.Stat(c.made(dir)); err != nil || !st.IsDir() {
				t.Errorf("outdir %s not made: %v", c.made(dir), err)
			}
			if strings.Contains(stderr, "not writable") {
				t.Errorf("stderr %q", stderr)
			}
		})
	}
}

// TestObsparamOutdirNotMade: an outdir that cannot be made (a file is in
// the way) is named with the obsparam and the cause.
func TestObsparamOutdirNotMade(t *testing.T) {
	obs := copyObsparam(t, "pyuvsim-stokesI-gaussian")
	dir := filepath.Dir(obs)
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	editFile(t, obs, `outdir: .*`, "outdir: "+filepath.Join(blocker, "sub"))
	code, _, stderr := runCLI(t, "simulate", obs, "-q", "--backend", "cpu")
	if code == 0 {
		t.Fatal("exit 0")
	}
	for _, w := range []string{obs, "filing.outdir " + filepath.Join(blocker, "sub"), "not a directory"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr %q lacks %q", stderr, w)
		}
	}
}
