package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/gomatvis/gomatvis/internal/atomicfile"
	"github.com/gomatvis/gomatvis/internal/inputfile"
	"github.com/gomatvis/gomatvis/matvis/part"
	"github.com/gomatvis/gomatvis/matvis/shard"
)

// slurmJob is what the slurm command writes into its two scripts.
type slurmJob struct {
	exe, config, out, workdir string
	tasks, gpusPerTask        int
	backend, format           string
	partition, time, mem      string
	cpusPerTask               int
	simFlags                  []string // extra simulate flags (--eop, --coord-method, --topo)
}

// runSlurm writes DIR/array.sbatch and DIR/merge.sbatch and, with
// --submit, submits them, the merge after the whole array succeeded.
func runSlurm(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("slurm", flag.ContinueOnError)
	fs.SetOutput(stderr)
	j := slurmJob{}
	fs.IntVar(&j.tasks, "tasks", 0, "number of array tasks (shards), 1 to nfreq × ntimes")
	out := fs.String("o", "", "merged output OUT.uvh5 or OUT.npy")
	workdir := fs.String("workdir", "", "directory for the scripts, the parts and the logs (on storage the compute nodes share)")
	fs.StringVar(&j.backend, "backend", "auto", "simulate's --backend on the compute nodes")
	fs.IntVar(&j.gpusPerTask, "gpus-per-task", -1, "GPUs per array task (default 1, 0 for --backend cpu); more than 1 runs the task with --devices all")
	fs.StringVar(&j.partition, "partition", "", "Slurm partition")
	fs.StringVar(&j.time, "time", "", "Slurm time limit per task, e.g. 04:00:00")
	fs.StringVar(&j.mem, "mem", "", "Slurm memory per task, e.g. 64G")
	fs.IntVar(&j.cpusPerTask, "cpus-per-task", 0, "Slurm CPUs per task (0: Slurm's default)")
	submit := fs.Bool("submit", false, "submit both scripts with sbatch (the merge with --dependency=afterok on the array) and print the job ids")
	eop := fs.String("eop", "", "simulate's --eop")
	coord := fs.String("coord-method", "", "simulate's --coord-method")
	topo := fs.String("topo", "", "simulate's --topo")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := j.settle(ctx, pos, *out, *workdir, map[string]string{"--eop": *eop, "--coord-method": *coord, "--topo": *topo}); err != nil {
		return err
	}
	if err := j.write(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s and %s: %d shards of %s → %s\n", j.arrayScript(), j.mergeScript(), j.tasks, j.config, j.out)
	if !*submit {
		fmt.Fprintf(stdout, "submit with: id=$(sbatch --parsable %s) && sbatch --dependency=afterok:${id%%%%;*} %s\n", shellQuote(j.arrayScript()), shellQuote(j.mergeScript()))
		return nil
	}
	return j.submit(ctx, stdout)
}

// settle checks the flags and the configuration and makes every path absolute.
func (j *slurmJob) settle(ctx context.Context, pos []string, out, workdir string, extra map[string]string) error {
	if len(pos) != 1 {
		return fmt.Errorf("%w: want one SPEC.json or OBSPARAM.yaml, got %d arguments", errUsage, len(pos))
	}
	if out == "" || workdir == "" {
		return fmt.Errorf("%w: -o OUT and --workdir DIR are required", errUsage)
	}
	if err := j.checkValues(); err != nil {
		return err
	}
	for _, p := range [][2]string{{"SPEC", pos[0]}, {"-o", out}, {"--workdir", workdir}, {"--topo", extra["--topo"]}, {"--eop", extra["--eop"]}} {
		if strings.ContainsRune(p[1], 0) {
			return fmt.Errorf("%w: %s %q: a NUL character cannot be in a file name", errUsage, p[0], p[1])
		}
	}
	if err := checkOutputName(out, simulateFormats()); err != nil {
		return err
	}
	j.format = part.OutputNpy
	if isUVH5(out) {
		j.format = part.OutputUVH5
	}
	if j.gpusPerTask < 0 {
		j.gpusPerTask = 1
		if j.backend == "cpu" {
			j.gpusPerTask = 0
		}
	}
	in, err := loadInput(ctx, pos[0])
	if err != nil {
		return err
	}
	nf, nt := inputGrid(in)
	if _, err := shard.Split(nf, nt, j.tasks); err != nil {
		return fmt.Errorf("%w: --tasks %d: %w", errUsage, j.tasks, err)
	}
	if j.exe, err = slurmExecutable(); err != nil {
		return fmt.Errorf("finding this program's path for the scripts: %w", err)
	}
	j.config, j.out, j.workdir = pos[0], out, workdir
	for _, p := range []*string{&j.config, &j.out, &j.workdir} {
		if *p == "example" {
			continue
		}
		if *p, err = filepath.Abs(*p); err != nil {
			return err
		}
	}
	if err := checkWorkdir(j.workdir); err != nil {
		return err
	}
	inputs := in.namedFiles()
	for _, k := range []string{"--coord-method", "--eop", "--topo"} {
		v := extra[k]
		if v == "" {
			continue
		}
		if k == "--coord-method" {
			if v, err = normalizeCoordMethod(v); err != nil {
				return fmt.Errorf("%w: --coord-method %q: %w", errUsage, extra[k], err)
			}
		} else {
			if v, err = filepath.Abs(v); err != nil {
				return err
			}
			inputs = append(inputs, namedInput{v, k + " file"})
		}
		j.simFlags = append(j.simFlags, k, v)
	}
	if err := j.checkNotInputs(inputs); err != nil {
		return err
	}
	// After checkNotInputs: an input named as a part is refused as such.
	if err := checkNoParts(j.workdir); err != nil {
		return err
	}
	// Each task of the array would fail on a missing --eop or --topo:
	// refuse it now, not once per task after they have queued.
	for _, k := range []string{"--eop", "--topo"} {
		if extra[k] == "" {
			continue
		}
		if err := inputfile.Check(extra[k]); err != nil {
			return fmt.Errorf("%s %s: %w: every task of the array would fail on it; give an existing file", k, extra[k], err)
		}
	}
	return nil
}

// slurmExecutable is the gomatvis the scripts run (a variable for tests).
var slurmExecutable = func() (string, error) {
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	return exe, err
}

// What sbatch accepts in the values written into #SBATCH lines (sbatch(1)):
// partition names (a comma-separated list), the time formats "minutes",
// "minutes:seconds", "hours:minutes:seconds", "days-hours",
// "days-hours:minutes", "days-hours:minutes:seconds" (or UNLIMITED /
// INFINITE), and memory as an integer with an optional K, M, G or T unit.
var (
	slurmPartitionRe = regexp.MustCompile(`^[A-Za-z0-9_.][A-Za-z0-9_.-]{0,63}(,[A-Za-z0-9_.][A-Za-z0-9_.-]{0,63})*$`)
	slurmTimeRe      = regexp.MustCompile(`^([0-9]{1,9}-[0-9]{1,9}(:[0-9]{1,9}){0,2}|[0-9]{1,9}(:[0-9]{1,9}){0,2})$`)
	slurmMemRe       = regexp.MustCompile(`^[0-9]{1,15}[KMGTkmgt]?$`)
)

// checkValues refuses, as usage errors naming the flag and the value,
// every value the scripts would carry that Slurm or simulate does not
// accept: nothing but those values reaches an #SBATCH line or the shell.
func (j *slurmJob) checkValues() error {
	for _, c := range []struct {
		flag, v, want string
		ok            bool
	}{
		{"--partition", j.partition, "partition names of letters, digits, '_', '.' and '-' (not first), comma-separated", slurmPartitionRe.MatchString(j.partition)},
		{"--time", j.time, "minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS, UNLIMITED or INFINITE",
			slurmTimeRe.MatchString(j.time) || strings.EqualFold(j.time, "UNLIMITED") || strings.EqualFold(j.time, "INFINITE")},
		{"--mem", j.mem, "an integer with an optional unit K, M, G or T (e.g. 64G)", slurmMemRe.MatchString(j.mem)},
		{"--backend", j.backend, "cpu, nufftcpu, gpu or auto", slices.Contains([]string{"cpu", "nufftcpu", "gpu", "auto"}, j.backend)},
	} {
		if c.v != "" && !c.ok || c.v == "" && c.flag == "--backend" {
			return fmt.Errorf("%w: %s %q: want %s", errUsage, c.flag, c.v, c.want)
		}
	}
	if j.cpusPerTask < 0 {
		return fmt.Errorf("%w: --cpus-per-task %d: want 0 (Slurm's default) or more", errUsage, j.cpusPerTask)
	}
	if j.gpusPerTask < -1 {
		return fmt.Errorf("%w: --gpus-per-task %d: want 0 or more", errUsage, j.gpusPerTask)
	}
	return nil
}

// checkWorkdir refuses a work directory (absolute) that cannot be written
// into the #SBATCH --output lines, which sbatch parses itself: it is
// quoted there (sbatchQuote), but a control character cannot be carried,
// and a backslash turns off the %a of the log names.
func checkWorkdir(workdir string) error {
	if i := strings.IndexFunc(workdir, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '\\' }); i >= 0 {
		return fmt.Errorf("%w: --workdir %q: the character %q cannot be written into an #SBATCH --output line; choose a directory without control characters or backslashes", errUsage, workdir, workdir[i])
	}
	return nil
}

// checkNoParts refuses a work directory that already holds part files:
// the merge takes every part-*.gmvpart there, so another run's parts (or
// this one's from another --tasks) failed it only after the whole array
// had run.
func checkNoParts(workdir string) error {
	ents, err := os.ReadDir(workdir)
	if err != nil {
		return nil // a missing directory is made; another failure shows at write
	}
	var parts []string
	for _, e := range ents {
		if n := e.Name(); strings.HasPrefix(n, "part-") && strings.HasSuffix(n, partExt) {
			parts = append(parts, n)
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return fmt.Errorf("--workdir %s already holds %d part file(s) (%s): the merge would take them with this run's; choose an empty --workdir, or remove them (rm %s)",
		workdir, len(parts), strings.Join(parts[:min(3, len(parts))], ", "), shellQuote(filepath.Join(workdir, "part-"))+"*"+partExt)
}

// checkNotInputs refuses outputs that are inputs: -o's files, the work
// directory and the scripts, parts and logs in it, against the
// configuration's files and --topo/--eop (the same path cleaned, or the
// same file by os.SameFile).
func (j *slurmJob) checkNotInputs(inputs []namedInput) error {
	outs := []namedInput{{j.workdir, "--workdir"}, {j.arrayScript(), "the array script"}, {j.mergeScript(), "the merge script"}}
	for _, o := range outputFiles(j.out) {
		outs = append(outs, namedInput{o, "an output of -o " + j.out})
	}
	for _, in := range inputs {
		if in.path == "" || in.path == "example" && in.role == "" {
			continue
		}
		what := "the input " + in.path
		if in.role != "" {
			what = "the input " + in.role + " " + in.path
		}
		for _, o := range outs {
			if clobbers(o.path, in) != "" {
				return fmt.Errorf("%w: %s is %s: the job would overwrite it; choose another -o or --workdir", errUsage, o.path, what)
			}
		}
		// The parts and logs the jobs write in the work directory.
		names := []string{in.path}
		if r, err := filepath.EvalSymlinks(in.path); err == nil {
			names = append(names, r)
		}
		for _, n := range names {
			dir, base := filepath.Dir(n), filepath.Base(n)
			part, _ := filepath.Match("part-*"+partExt+"*", base)
			log, _ := filepath.Match("*.out", base)
			if part && samePath(dir, j.workdir) || log && samePath(dir, j.logDir()) {
				return fmt.Errorf("%w: %s is where the jobs write their parts and logs, and holds %s, which they would overwrite; choose another --workdir", errUsage, j.workdir, what)
			}
		}
	}
	return nil
}

// samePath says whether a and b are one path (absolute, cleaned) or one
// existing file.
func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	ab, err2 := filepath.Abs(b)
	if err1 == nil && err2 == nil && aa == ab {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// inputGrid is the configuration's channel and time counts.
func inputGrid(in *simInput) (nfreq, ntime int) {
	if in.cfg != nil {
		return len(in.cfg.Freqs), len(in.cfg.TimesJD)
	}
	return len(in.spec.FreqsHz), len(in.spec.TimesJD)
}

func (j *slurmJob) arrayScript() string { return filepath.Join(j.workdir, "array.sbatch") }
func (j *slurmJob) mergeScript() string { return filepath.Join(j.workdir, "merge.sbatch") }
func (j *slurmJob) logDir() string      { return filepath.Join(j.workdir, "logs") }

// write creates the work directory and both scripts, as one group: an
// array script is never left without the merge that goes with it.
func (j *slurmJob) write() error {
	if err := os.MkdirAll(j.logDir(), 0o755); err != nil {
		return fmt.Errorf("--workdir: %w", err)
	}
	text := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	return atomicfile.WriteGroup(
		atomicfile.File{Path: j.arrayScript(), Fill: text(j.arrayText())},
		atomicfile.File{Path: j.mergeScript(), Fill: text(j.mergeText())},
	)
}

// header is the #SBATCH lines both scripts share.
func (j *slurmJob) header(name, log string) []string {
	h := []string{"#!/bin/bash", "#SBATCH --job-name=" + name, "#SBATCH --output=" + sbatchQuote(log)}
	for _, o := range [][2]string{{"partition", j.partition}, {"time", j.time}, {"mem", j.mem}} {
		if o[1] != "" {
			h = append(h, fmt.Sprintf("#SBATCH --%s=%s", o[0], o[1]))
		}
	}
	return h
}

// arrayText is DIR/array.sbatch: task i computes shard i of N.
func (j *slurmJob) arrayText() string {
	lines := j.header("gomatvis-shards", filepath.Join(j.logDir(), "shard-%a.out"))
	lines = append(lines, fmt.Sprintf("#SBATCH --array=0-%d", j.tasks-1), "#SBATCH --ntasks=1")
	if j.cpusPerTask > 0 {
		lines = append(lines, fmt.Sprintf("#SBATCH --cpus-per-task=%d", j.cpusPerTask))
	}
	if j.gpusPerTask > 0 {
		lines = append(lines, fmt.Sprintf("#SBATCH --gpus-per-task=%d", j.gpusPerTask))
	}
	args := []string{shellQuote(j.exe), "simulate", shellQuote(j.config),
		fmt.Sprintf(`--shard "$SLURM_ARRAY_TASK_ID/%d"`, j.tasks),
		"-o", shellQuote(filepath.Join(j.workdir, "part-")) + `"$(printf %05d "$SLURM_ARRAY_TASK_ID")"` + partExt,
		"--format", j.format, "--backend", shellQuote(j.backend), "-q"}
	if j.gpusPerTask > 1 {
		args = append(args, "--devices", "all")
	}
	for _, f := range j.simFlags {
		args = append(args, shellQuote(f))
	}
	lines = append(lines,
		"# Written by gomatvis slurm. A task whose part is complete does nothing,",
		"# so the array can be resubmitted as it is after a failure.",
		"set -euo pipefail",
		"exec "+strings.Join(args, " "))
	return strings.Join(lines, "\n") + "\n"
}

// mergeText is DIR/merge.sbatch: the merge of every part into OUT.
func (j *slurmJob) mergeText() string {
	lines := j.header("gomatvis-merge", filepath.Join(j.logDir(), "merge.out"))
	lines = append(lines, "#SBATCH --ntasks=1",
		"# Written by gomatvis slurm; submit with --dependency=afterok:<array job id>.",
		"# The merge checks that the parts are one configuration's, none missing or doubled.",
		"set -euo pipefail",
		"exec "+shellQuote(j.exe)+" merge "+shellQuote(filepath.Join(j.workdir, "part-"))+"*"+partExt+" -o "+shellQuote(j.out))
	return strings.Join(lines, "\n") + "\n"
}

// sbatchQuote writes a log path (already checked by checkValues: no
// control characters, no backslash) for an #SBATCH line, which sbatch
// splits at blanks and cuts at '#' unless quoted: in double quotes, an
// embedded '"' escaped by a backslash, and every '%' of the path doubled
// so that only the name's own %a or %j is a Slurm replacement symbol.
func sbatchQuote(log string) string {
	dir, base := filepath.Split(log)
	dir = strings.ReplaceAll(dir, "%", "%%")
	return `"` + strings.ReplaceAll(dir+base, `"`, `\"`) + `"`
}

// shellQuote quotes s for bash (single quotes; embedded ones escaped).
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == ',' || r == ':' || r == '=' || r == '+' ||
			(r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// submit submits the array, then the merge depending on it, and prints
// both job ids.
func (j *slurmJob) submit(ctx context.Context, stdout io.Writer) error {
	sbatch, err := exec.LookPath("sbatch")
	if err != nil {
		return fmt.Errorf("--submit: %w", err)
	}
	id, err := runSbatch(ctx, sbatch, j.arrayScript())
	if err != nil {
		return err
	}
	mid, err := runSbatch(ctx, sbatch, "--dependency=afterok:"+id, j.mergeScript())
	if err != nil {
		return fmt.Errorf("array job %s submitted, but the merge was not: %w", id, err)
	}
	fmt.Fprintf(stdout, "array job %s (%d tasks), merge job %s (after the array succeeds) → %s\n", id, j.tasks, mid, j.out)
	return nil
}

// runSbatch runs sbatch --parsable with args and returns the job id.
func runSbatch(ctx context.Context, sbatch string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, sbatch, append([]string{"--parsable"}, args...)...)
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("sbatch %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
	if id == "" {
		return "", fmt.Errorf("sbatch %s printed no job id", strings.Join(args, " "))
	}
	return id, nil
}
