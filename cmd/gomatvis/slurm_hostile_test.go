package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The values that gomatvis slurm writes into #SBATCH lines must be what
// Slurm accepts: anything else (a newline would start a shell line, a
// blank another option) is a usage error naming the flag and the value,
// and no script is written.
func TestSlurmRefusesBadValues(t *testing.T) {
	dir := t.TempDir()
	hostile := []string{"a\nrm -rf x", "a\rb", "a\x00b", "a b", "a\tb", "a'b", `a"b`, "$(touch PWN)", "`touch PWN`",
		"a;touch PWN", "a*", "a?", "[ab]", "-x", "--mem=1", "a#b", "a|b", "a&b", "a>b", "a%b", "a\\b", "é"}
	type flagCase struct{ flag, v string }
	var cases []flagCase
	for _, f := range []string{"--partition", "--time", "--mem", "--backend", "--coord-method"} {
		for _, v := range hostile {
			cases = append(cases, flagCase{f, v})
		}
	}
	for _, v := range []string{",", "gpu,", ",gpu", "a,,b", "gpu,-x"} {
		cases = append(cases, flagCase{"--partition", v})
	}
	for _, v := range []string{"1:2:3:4", "1-2-3", "1-", "-1", ":5", "5:", "1h", "04:00:00 ", "1.5", "1-2:3:4:5", "unlimited now"} {
		cases = append(cases, flagCase{"--time", v})
	}
	for _, v := range []string{"64GB", "G", "1.5G", "-1G", "64 G", "64g ", "1P", "0x10"} {
		cases = append(cases, flagCase{"--mem", v})
	}
	cases = append(cases, flagCase{"--backend", "CPU"}, flagCase{"--cpus-per-task", "-1"}, flagCase{"--gpus-per-task", "-2"})
	for _, c := range cases {
		wd := filepath.Join(dir, "w")
		code, _, e := runCLI(t, "slurm", "example", "--tasks", "2", "-o", filepath.Join(dir, "o.npy"), "--workdir", wd, c.flag, c.v)
		if code != 2 || !strings.Contains(e, c.flag) {
			t.Errorf("%s %q: exit %d, want 2 naming the flag: %q", c.flag, c.v, code, e)
		}
		if _, err := os.Stat(wd); err == nil {
			t.Fatalf("%s %q: the work directory was written", c.flag, c.v)
		}
	}
	// What Slurm accepts is accepted and written as given.
	for _, c := range []flagCase{
		{"--partition", "gpu"}, {"--partition", "gpu,debug"}, {"--partition", "a.b_c-1"}, {"--partition", "_x"},
		{"--time", "5"}, {"--time", "10:30"}, {"--time", "04:00:00"}, {"--time", "2-12"}, {"--time", "2-12:30"},
		{"--time", "2-12:30:15"}, {"--time", "UNLIMITED"}, {"--time", "infinite"},
		{"--mem", "500"}, {"--mem", "64G"}, {"--mem", "1024M"}, {"--mem", "2t"}, {"--mem", "0"}, {"--mem", "100k"},
	} {
		wd := filepath.Join(dir, "ok")
		code, _, e := runCLI(t, "slurm", "example", "--tasks", "2", "-o", filepath.Join(dir, "o.npy"), "--workdir", wd, "--backend", "cpu", c.flag, c.v)
		if code != 0 {
			t.Errorf("%s %q: exit %d: %s", c.flag, c.v, code, e)
			continue
		}
		for _, s := range []string{"array.sbatch", "merge.sbatch"} {
			if txt := string(mustRead(t, filepath.Join(wd, s))); !strings.Contains(txt, "\n#SBATCH "+c.flag+"="+c.v+"\n") {
				t.Errorf("%s %q: %s:\n%s", c.flag, c.v, s, txt)
			}
		}
	}
}

// hostileNames are legal path components that a shell or sbatch would
// read as code, options, globs or several words if written unquoted.
var hostileNames = []string{
	"nl\nx", "cr\rx", "tab\tx", "sp ace", "q'uote", "''", `d"q`, "$(touch PWN)", "`touch PWN`", "; touch PWN",
	"&& touch PWN ||", "*?[ab]", "-lead", "--help", "#hash %a%j%%", "$HOME ${IFS}x", `bs\x`, "<>|!~", "é∂",
}

// fakeGomatvis writes a program that records its arguments, NUL
// separated, into $GMV_ARGV.
func fakeGomatvis(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\nprintf '%s\\0' \"$@\" > \"$GMV_ARGV\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// runScript runs a generated script with bash as Slurm would (in a
// directory of its own, the task id set) and returns the argv that the
// fake gomatvis received.
func runScript(t *testing.T, script, taskID string) []string {
	t.Helper()
	run := t.TempDir()
	rec := filepath.Join(run, "argv")
	cmd := exec.Command("bash", script)
	cmd.Dir = run
	cmd.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID="+taskID, "GMV_ARGV="+rec)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("bash %q: %v: %s", script, err, out.String())
	}
	b := mustRead(t, rec)
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

// noPayloadRan fails if a file that the names' payloads create exists.
func noPayloadRan(t *testing.T, roots ...string) {
	t.Helper()
	for _, r := range roots {
		filepath.WalkDir(r, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Name() == "PWN" {
				t.Errorf("%q exists: a path ran as shell code", p)
			}
			return nil
		})
	}
}

// Every path the scripts carry (the program, the configuration, -o,
// --topo, --eop, the work directory) reaches gomatvis unchanged as one
// argument, by running the scripts with bash, and nothing in a name runs.
// A work directory sbatch cannot carry in its #SBATCH --output line
// (control characters, a backslash) is a usage error instead.
func TestSlurmHostilePathsRun(t *testing.T) {
	erfa, _ := normalizeCoordMethod("erfa")
	for i, name := range hostileNames {
		root := t.TempDir()
		hd := filepath.Join(root, name)
		if err := os.MkdirAll(hd, 0o755); err != nil {
			t.Fatal(err)
		}
		exe := filepath.Join(hd, "bin "+name, "gomatvis")
		fakeGomatvis(t, exe)
		old := slurmExecutable
		slurmExecutable = func() (string, error) { return exe, nil }
		spec := writeSpec(t, hd, nil, "")
		out := filepath.Join(hd, name+".npy")
		topo := filepath.Join(hd, name+"topo.npy")
		eop := filepath.Join(hd, name+"eop.json")
		// They must exist: the slurm command checks them (their content
		// is the fake gomatvis's business).
		for _, p := range []string{topo, eop} {
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		wd := filepath.Join(hd, "work")
		if strings.ContainsAny(name, "\n\r\t\\") {
			code, _, e := runCLI(t, "slurm", spec, "--tasks", "5", "-o", out, "--workdir", wd, "--backend", "cpu")
			if code != 2 || !strings.Contains(e, "--workdir") {
				t.Errorf("%d %q: --workdir %q: exit %d, want 2: %s", i, name, wd, code, e)
			}
			wd = filepath.Join(root, "work")
		}
		code, o, e := runCLI(t, "slurm", spec, "--tasks", "5", "-o", out, "--workdir", wd, "--backend", "cpu",
			"--topo", topo, "--eop", eop, "--coord-method", "erfa", "--partition", "gpu", "--time", "5", "--mem", "1G")
		slurmExecutable = old
		if code != 0 {
			t.Errorf("%d %q: exit %d: %s", i, name, code, e)
			continue
		}
		if !strings.Contains(o, "submit with: id=$(sbatch --parsable "+shellQuote(filepath.Join(wd, "array.sbatch"))+")") {
			t.Errorf("%d %q: the submit hint does not quote the paths: %s", i, name, o)
		}
		got := runScript(t, filepath.Join(wd, "array.sbatch"), "3")
		want := []string{"simulate", spec, "--shard", "3/5", "-o", filepath.Join(wd, "part-00003.gmvpart"), "--format", "npy",
			"--backend", "cpu", "-q", "--coord-method", erfa, "--eop", eop, "--topo", topo}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%d %q: array task 3 ran gomatvis with\n%q\nwant\n%q", i, name, got, want)
		}
		var parts []string
		for k := range 3 {
			p := filepath.Join(wd, "part-0000"+string(rune('0'+k))+".gmvpart")
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			parts = append(parts, p)
		}
		got = runScript(t, filepath.Join(wd, "merge.sbatch"), "")
		want = append(append([]string{"merge"}, parts...), "-o", out)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%d %q: the merge ran gomatvis with\n%q\nwant\n%q", i, name, got, want)
		}
		noPayloadRan(t, root)
	}
}

// A name that cannot be a path (NUL) is refused, whichever flag holds it.
func TestSlurmRefusesNUL(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"-o", filepath.Join(dir, "o\x00.npy"), "--workdir", filepath.Join(dir, "w")},
		{"-o", filepath.Join(dir, "o.npy"), "--workdir", filepath.Join(dir, "w\x00x")},
		{"-o", filepath.Join(dir, "o.npy"), "--workdir", filepath.Join(dir, "w"), "--topo", "t\x00.npy"},
		{"-o", filepath.Join(dir, "o.npy"), "--workdir", filepath.Join(dir, "w"), "--eop", "e\x00.json"},
	} {
		code, _, e := runCLI(t, append([]string{"slurm", "example", "--tasks", "2", "--backend", "cpu"}, args...)...)
		if code != 2 || !strings.Contains(e, "NUL") {
			t.Errorf("%q: exit %d, want 2 refusing the NUL: %q", args, code, e)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "w")); err == nil {
		t.Error("a work directory was written")
	}
}

// An output that is an input (-o against --topo, --eop and the
// configuration's files; the work directory's scripts, parts and logs
// against the inputs) is refused when the scripts are generated, not
// discovered when the merge overwrites the input.
func TestSlurmRefusesOutputThatIsInput(t *testing.T) {
	dir := t.TempDir()
	x := filepath.Join(dir, "x.npy")
	if err := os.WriteFile(x, []byte("topo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(x, filepath.Join(dir, "link.npy")); err != nil {
		t.Fatal(err)
	}
	wd := filepath.Join(dir, "w")
	for _, c := range []struct {
		name string
		args []string
	}{
		{"-o is --topo", []string{"-o", x, "--topo", x}},
		{"-o is --topo, not existing", []string{"-o", filepath.Join(dir, "new.npy"), "--topo", filepath.Join(dir, "new.npy")}},
		{"-o is --topo, spelled otherwise", []string{"-o", x, "--topo", filepath.Join(dir, "w", "..", ".", "x.npy")}},
		{"-o is --topo through a link", []string{"-o", filepath.Join(dir, "link.npy"), "--topo", x}},
		{"-o's meta.json is --eop", []string{"-o", filepath.Join(dir, "e.npy"), "--eop", filepath.Join(dir, "e.meta.json")}},
		{"-o's partial is --topo", []string{"-o", filepath.Join(dir, "p.npy"), "--topo", filepath.Join(dir, "p.partial.npy")}},
		{"--workdir is --topo", []string{"-o", filepath.Join(dir, "o.npy"), "--topo", wd}},
		{"the array script is --eop", []string{"-o", filepath.Join(dir, "o.npy"), "--eop", filepath.Join(wd, "array.sbatch")}},
		{"the merge script is --eop", []string{"-o", filepath.Join(dir, "o.npy"), "--eop", filepath.Join(wd, "merge.sbatch")}},
		{"a part is --topo", []string{"-o", filepath.Join(dir, "o.npy"), "--topo", filepath.Join(wd, "part-00001.gmvpart")}},
		{"a log is --eop", []string{"-o", filepath.Join(dir, "o.npy"), "--eop", filepath.Join(wd, "logs", "shard-0.out")}},
	} {
		os.RemoveAll(wd)
		args := append([]string{"slurm", "example", "--tasks", "2", "--backend", "cpu", "--workdir", wd}, c.args...)
		code, _, e := runCLI(t, args...)
		if code != 2 || !strings.Contains(e, "input") {
			t.Errorf("%s: exit %d, want 2 refusing: %q", c.name, code, e)
		}
		if _, err := os.Stat(filepath.Join(wd, "merge.sbatch")); err == nil {
			t.Errorf("%s: the scripts were written", c.name)
		}
	}
	// The configuration itself, when its output is its own file: an
	// obsparam's files are inputs too.
	spec := writeSpec(t, dir, nil, "")
	code, _, e := runCLI(t, "slurm", spec, "--tasks", "2", "--backend", "cpu", "--workdir", wd, "-o", filepath.Join(dir, "o.npy"), "--eop", spec)
	if code != 0 {
		t.Errorf("an --eop that is the spec is no output: exit %d: %s", code, e)
	}
	if b := mustRead(t, x); string(b) != "topo" {
		t.Errorf("the input changed: %q", b)
	}
}
