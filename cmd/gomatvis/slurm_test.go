package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSlurmScripts(t *testing.T) {
	dir := t.TempDir()
	wd := filepath.Join(dir, "work dir")
	out := filepath.Join(dir, "out.uvh5")
	code, o, e := runCLI(t, "slurm", obsparamPath, "--tasks", "5", "-o", out, "--workdir", wd,
		"--partition", "gpu", "--time", "01:00:00", "--mem", "8G", "--backend", "gpu", "--gpus-per-task", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	if !strings.Contains(o, "submit with") {
		t.Errorf("stdout %q", o)
	}
	arr := string(mustRead(t, filepath.Join(wd, "array.sbatch")))
	exe, _ := os.Executable()
	exe, _ = filepath.EvalSymlinks(exe)
	cfg, _ := filepath.Abs(obsparamPath)
	for _, w := range []string{"#SBATCH --array=0-4", "#SBATCH --partition=gpu", "#SBATCH --time=01:00:00", "#SBATCH --mem=8G",
		"#SBATCH --gpus-per-task=2", "exec " + exe + " simulate " + cfg, `--shard "$SLURM_ARRAY_TASK_ID/5"`,
		"'" + filepath.Join(wd, "part-") + "'", "--format uvh5", "--devices all", "shard-%a.out"} {
		if !strings.Contains(arr, w) {
			t.Errorf("array.sbatch lacks %q:\n%s", w, arr)
		}
	}
	mrg := string(mustRead(t, filepath.Join(wd, "merge.sbatch")))
	for _, w := range []string{"exec " + exe + " merge '" + filepath.Join(wd, "part-") + "'*.gmvpart -o " + out} {
		if !strings.Contains(mrg, w) {
			t.Errorf("merge.sbatch lacks %q:\n%s", w, mrg)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"slurm", obsparamPath, "--tasks", "10", "-o", out, "--workdir", wd}, "--tasks 10"}, // 3 × 3 grid
		{[]string{"slurm", obsparamPath, "--tasks", "2", "-o", filepath.Join(dir, "x.fits"), "--workdir", wd}, "extension"},
		{[]string{"slurm", obsparamPath, "--tasks", "2", "-o", out}, "--workdir"},
	} {
		if code, _, e := runCLI(t, c.args...); code == 0 || !strings.Contains(e, c.want) {
			t.Errorf("%v: exit %d, %q", c.args, code, e)
		}
	}
}

func TestSlurmSubmit(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	log := filepath.Join(dir, "sbatch.log")
	fake := "#!/bin/sh\necho \"$@\" >> " + log + "\ncase \"$*\" in *dependency*) echo 102;; *) echo '101;cluster';; esac\n"
	if err := os.WriteFile(filepath.Join(bin, "sbatch"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	wd := filepath.Join(dir, "w")
	code, o, e := runCLI(t, "slurm", "example", "--tasks", "3", "-o", filepath.Join(dir, "o.npy"), "--workdir", wd, "--backend", "cpu", "--submit")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	if !strings.Contains(o, "array job 101 (3 tasks), merge job 102") {
		t.Errorf("stdout %q", o)
	}
	calls := string(mustRead(t, log))
	want := "--parsable " + filepath.Join(wd, "array.sbatch") + "\n--parsable --dependency=afterok:101 " + filepath.Join(wd, "merge.sbatch") + "\n"
	if calls != want {
		t.Errorf("sbatch calls:\n%s\nwant:\n%s", calls, want)
	}
	if arr := string(mustRead(t, filepath.Join(wd, "array.sbatch"))); strings.Contains(arr, "gpus-per-task") || !strings.Contains(arr, "--format npy") {
		t.Errorf("cpu array script:\n%s", arr)
	}
}

// TestSlurmScriptsTogether: when the merge script cannot be written (a
// directory in its place), the array script is not left behind without
// it — neither new nor replacing an earlier one.
func TestSlurmScriptsTogether(t *testing.T) {
	for _, earlier := range []bool{false, true} {
		dir := t.TempDir()
		wd := filepath.Join(dir, "work")
		arr := filepath.Join(wd, "array.sbatch")
		if err := os.MkdirAll(filepath.Join(wd, "merge.sbatch", "x"), 0o755); err != nil {
			t.Fatal(err)
		}
		if earlier {
			os.WriteFile(arr, []byte("#!/bin/bash\n# earlier\n"), 0o644)
		}
		code, _, e := runCLI(t, "slurm", obsparamPath, "--tasks", "2", "-o", filepath.Join(dir, "out.uvh5"), "--workdir", wd)
		if code == 0 {
			t.Fatalf("earlier script %v: the slurm command succeeded with a directory at merge.sbatch", earlier)
		}
		b, err := os.ReadFile(arr)
		switch {
		case !earlier && err == nil:
			t.Errorf("array.sbatch left behind without merge.sbatch (%s)", e)
		case earlier && string(b) != "#!/bin/bash\n# earlier\n":
			t.Errorf("the earlier array.sbatch was replaced: %q", b)
		}
	}
}
