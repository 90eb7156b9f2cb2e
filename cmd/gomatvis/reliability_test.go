package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/npy"
)

// smallSpec shrinks the example spec to nsrc sources, nfreq channels and
// ntime times (then applies edit) so that a CLI run takes milliseconds.
func smallSpec(nsrc, nfreq, ntime int, edit func(m map[string]any)) func(m map[string]any) {
	return func(m map[string]any) {
		src := m["sources"].(map[string]any)
		for _, k := range []string{"ra_rad", "dec_rad"} {
			src[k] = src[k].([]any)[:nsrc]
		}
		flux := src["flux_jy"].([]any)[:nsrc]
		for i, row := range flux {
			flux[i] = row.([]any)[:nfreq]
		}
		src["flux_jy"] = flux
		m["freqs_hz"] = m["freqs_hz"].([]any)[:nfreq]
		m["times_jd"] = m["times_jd"].([]any)[:ntime]
		if eop, ok := m["eop"].([]any); ok {
			m["eop"] = eop[:ntime]
		}
		if edit != nil {
			edit(m)
		}
	}
}

// fileState is a file's content and mode, to check it was left alone.
func fileState(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	st, _ := os.Stat(p)
	if err != nil {
		return "missing"
	}
	return fmt.Sprintf("%v %x", st.Mode(), b)
}

// TestOutputIsNotAnInput checks that no output file of a run (OUT,
// OUT.meta.json, OUT.partial.npy) may be an input, however named: simulate
// s.json -o s.json used to replace the spec with the output and exit 0.
func TestOutputIsNotAnInput(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, dir, spec string) []string // the arguments
		want  string
	}{
		{"spec as output", func(t *testing.T, dir, spec string) []string {
			return []string{"simulate", spec, "-o", spec}
		}, "is the input"},
		{"spec named .npy as output", func(t *testing.T, dir, spec string) []string {
			p := filepath.Join(dir, "spec.npy")
			os.Rename(spec, p)
			return []string{"simulate", p, "-o", p}
		}, "is the input"},
		{"spec through another path", func(t *testing.T, dir, spec string) []string {
			p := filepath.Join(dir, "spec.npy")
			os.Rename(spec, p)
			os.Mkdir(filepath.Join(dir, "sub"), 0o755)
			return []string{"simulate", p, "-o", dir + "/./sub/../spec.npy"}
		}, "is the input"},
		{"symlink to the spec", func(t *testing.T, dir, spec string) []string {
			if err := os.Symlink(spec, filepath.Join(dir, "out.npy")); err != nil {
				t.Skip(err)
			}
			return []string{"simulate", spec, "-o", filepath.Join(dir, "out.npy")}
		}, "is the input"},
		{"spec as the metadata sidecar", func(t *testing.T, dir, spec string) []string {
			p := filepath.Join(dir, "v.meta.json")
			os.Rename(spec, p)
			return []string{"simulate", p, "-o", filepath.Join(dir, "v.npy")}
		}, "is the input"},
		{"spec as the partial output", func(t *testing.T, dir, spec string) []string {
			p := filepath.Join(dir, "v.partial.npy")
			os.Rename(spec, p)
			return []string{"simulate", p, "-o", filepath.Join(dir, "v.npy")}
		}, "is the input"},
		{"topo as output", func(t *testing.T, dir, spec string) []string {
			p := filepath.Join(dir, "topo.npy")
			if code, _, e := runCLI(t, "topo", spec, "-o", p); code != 0 {
				t.Fatal(e)
			}
			return []string{"simulate", spec, "--topo", p, "-o", p}
		}, "is the input"},
		{"beam file as output", func(t *testing.T, dir, spec string) []string {
			b := filepath.Join(dir, "beam.npy")
			os.WriteFile(b, []byte("not a beam"), 0o644)
			writeSpec(t, dir, smallSpec(3, 2, 2, func(m map[string]any) {
				m["beams"] = []any{map[string]any{"type": "beamfits", "path": "beam.npy"}}
			}), "")
			return []string{"simulate", spec, "-o", b}
		}, "is the input"},
		{"topo command: spec as output", func(t *testing.T, dir, spec string) []string {
			p := filepath.Join(dir, "spec.npy")
			os.Rename(spec, p)
			return []string{"topo", p, "-o", p}
		}, "is the input"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			spec := writeSpec(t, dir, smallSpec(3, 2, 2, nil), "")
			args := tc.setup(t, dir, spec)
			before := map[string]string{}
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				before[e.Name()] = fileState(t, filepath.Join(dir, e.Name()))
			}
			code, _, stderr := runCLI(t, args...)
			if code == 0 || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want a refusal mentioning %q", code, stderr, tc.want)
			}
			for n, st := range before {
				if got := fileState(t, filepath.Join(dir, n)); got != st {
					t.Errorf("%s changed", n)
				}
			}
		})
	}
}

// TestOutputRefusedUpFront checks that an output that cannot be written
// as asked is refused before the run (it used to fail after it, or write
// NumPy data under any extension).
func TestOutputRefusedUpFront(t *testing.T) {
	type outCase struct {
		name string
		out  func(dir string) string
		want string
		code int
	}
	cases := []outCase{
		{"directory", func(dir string) string {
			os.Mkdir(filepath.Join(dir, "d.npy"), 0o755)
			return filepath.Join(dir, "d.npy")
		}, "is a directory", 1},
		{"existing directory without extension", func(dir string) string { return dir }, "extension", 2},
		{"HDF5 name", func(dir string) string { return filepath.Join(dir, "x.h5") }, `extension ".h5": want .npy`, 2},
		{"no extension", func(dir string) string { return filepath.Join(dir, "x") }, "extension", 2},
	}
	// simulate's npy output comes with OUT.meta.json: a directory there
	// made the run fail at its end, leaving OUT.npy without it.
	sidecarDir := func(dir string) string {
		os.Mkdir(filepath.Join(dir, "v.meta.json"), 0o755)
		return filepath.Join(dir, "v.npy")
	}
	for _, cmdCase := range []struct {
		cmd   string
		cases []outCase
	}{
		{"simulate", append(cases, outCase{"metadata sidecar is a directory", sidecarDir, "v.meta.json is a directory", 1})},
		{"topo", cases},
	} {
		cmd := cmdCase.cmd
		for _, tc := range cmdCase.cases {
			t.Run(cmd+" "+tc.name, func(t *testing.T) {
				dir := t.TempDir()
				spec := writeSpec(t, dir, smallSpec(3, 2, 2, nil), "")
				t0 := time.Now()
				code, stdout, stderr := runCLI(t, cmd, spec, "-o", tc.out(dir))
				if code != tc.code || !strings.Contains(stderr, tc.want) || stdout != "" {
					t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d mentioning %q", code, stdout, stderr, tc.code, tc.want)
				}
				t.Logf("refused in %v", time.Since(t0))
			})
		}
	}
}

// TestOutputLeftovers checks what a successful run leaves: temporaries of
// killed runs removed (only those), a stale OUT.partial.npy of an earlier
// cancelled run removed, and permissions 0666 less the umask for new
// files and the old mode for replaced ones (outputs used to be 0600).
func TestOutputLeftovers(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	spec := writeSpec(t, dir, smallSpec(3, 2, 2, nil), "")
	out := filepath.Join(dir, "v.npy")
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip(err)
	}
	stale := filepath.Join(dir, ".v.npy.tmp-"+strconv.Itoa(dead.Process.Pid)+"-0a0b")
	staleMeta := filepath.Join(dir, ".v.meta.json.tmp-"+strconv.Itoa(dead.Process.Pid)+"-0a0b")
	live := filepath.Join(dir, ".v.npy.tmp-"+strconv.Itoa(os.Getpid())+"-0a0b")
	for _, p := range []string{stale, staleMeta, live, filepath.Join(dir, "v.partial.npy")} {
		os.WriteFile(p, []byte("x"), 0o600)
	}
	code, _, stderr := runCLI(t, "simulate", spec, "-o", out, "--backend", "cpu")
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, p := range []string{stale, staleMeta, filepath.Join(dir, "v.partial.npy")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s survived a successful run", filepath.Base(p))
		}
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a live process's temporary was removed")
	}
	for _, p := range []string{out, filepath.Join(dir, "v.meta.json")} {
		if st, _ := os.Stat(p); st.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v, want 0644", filepath.Base(p), st.Mode().Perm())
		}
	}
	os.Chmod(out, 0o640)
	if code, _, stderr := runCLI(t, "simulate", spec, "-o", out, "--backend", "cpu"); code != 0 {
		t.Fatal(stderr)
	}
	if st, _ := os.Stat(out); st.Mode().Perm() != 0o640 {
		t.Errorf("replaced output: mode %v, want its old 0640", st.Mode().Perm())
	}
}

// TestWriteOutputsExclusive checks that two runs' output steps do not
// interleave: the second starts writing only after the first has written
// both its files.
func TestWriteOutputsExclusive(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "v.npy")
	inFirst := make(chan struct{})
	release := make(chan struct{})
	var mu sync.Mutex
	var order []string
	step := func(s string) {
		mu.Lock()
		order = append(order, s)
		mu.Unlock()
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		writeOutputs(out, true, os.Stderr, func() error {
			step("A npy")
			close(inFirst)
			<-release
			step("A meta")
			return nil
		})
	}()
	<-inFirst
	go func() {
		defer wg.Done()
		writeOutputs(out, true, os.Stderr, func() error { step("B npy"); step("B meta"); return nil })
	}()
	time.Sleep(200 * time.Millisecond)
	close(release)
	wg.Wait()
	if got := strings.Join(order, ", "); got != "A npy, A meta, B npy, B meta" {
		t.Fatalf("order %s", got)
	}
}

// TestConcurrentRunsConsistent runs two simulations of different shapes
// into one output at once, repeatedly: the array and its metadata must
// always come from the same run (2 of 40 trials mixed them).
func TestConcurrentRunsConsistent(t *testing.T) {
	dir := t.TempDir()
	specs := []string{
		writeSpec(t, t.TempDir(), smallSpec(3, 2, 1, nil), ""),
		writeSpec(t, t.TempDir(), smallSpec(3, 3, 1, nil), ""),
	}
	out := filepath.Join(dir, "v.npy")
	for trial := range 10 {
		var wg sync.WaitGroup
		for _, s := range specs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if code, _, e := runCLI(t, "simulate", s, "-o", out, "--backend", "cpu", "-q"); code != 0 {
					t.Error(e)
				}
			}()
		}
		wg.Wait()
		a, err := npy.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var meta struct {
			FreqsHz []float64 `json:"freqs_hz"`
		}
		b, _ := os.ReadFile(filepath.Join(dir, "v.meta.json"))
		if err := json.Unmarshal(b, &meta); err != nil {
			t.Fatal(err)
		}
		if a.Shape[0] != len(meta.FreqsHz) {
			t.Fatalf("trial %d: array of %d channels, metadata of %d", trial, a.Shape[0], len(meta.FreqsHz))
		}
	}
}

// TestCancelledRunExitCode checks that a cancelled run exits 130, not 0
// or 1.
func TestCancelledRunExitCode(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, smallSpec(3, 2, 2, nil), "")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var o, e strings.Builder
	code := run(ctx, []string{"simulate", spec, "-o", filepath.Join(dir, "v.npy"), "--backend", "cpu"}, &o, &e)
	if code != exitInterrupted || !strings.Contains(e.String(), "stopped by the interrupt") {
		t.Fatalf("exit %d, stderr %q; want %d", code, e.String(), exitInterrupted)
	}
	if _, err := os.Stat(filepath.Join(dir, "v.npy")); err == nil {
		t.Fatal("a cancelled run wrote the output")
	}
}

// TestMain runs the test binary as the child process of
// TestSecondInterruptExits when asked to (signalHelper), as gomatvis
// itself for the tests that signal a real run (mainHelperEnv), else the
// tests.
func TestMain(m *testing.M) {
	switch os.Getenv("GOMATVIS_SIGNAL_HELPER") {
	case "1":
		signalHelper()
	case "stopped":
		stoppedSignalHelper()
	}
	if args, ok := os.LookupEnv(mainHelperEnv); ok {
		os.Args = append([]string{"gomatvis"}, strings.Split(args, "\x1f")...)
		code := mainCode()
		if f := os.Getenv(peakRSSFileEnv); f != "" {
			writePeakRSS(f)
		}
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// signalHelper watches signals as main does, reports the first one's
// cancellation and then never finishes on its own, as a run stuck in a
// long step.
func signalHelper() {
	ctx, cancel := context.WithCancel(context.Background())
	onSignals(cancel, os.Stderr, func() { os.Exit(exitInterrupted) })
	fmt.Println("ready")
	<-ctx.Done()
	fmt.Println("cancelled")
	time.Sleep(time.Minute)
	os.Exit(0)
}

// stoppedSignalHelper watches signals as main does and ends the watch, as
// main does once the run has returned, then takes a moment to exit, as
// main does removing temporaries and closing files.
func stoppedSignalHelper() {
	ctx, cancel := context.WithCancel(context.Background())
	stop := onSignals(cancel, os.Stderr, func() { os.Exit(exitInterrupted) })
	stop()
	fmt.Println("ready")
	time.Sleep(500 * time.Millisecond)
	if ctx.Err() != nil {
		os.Exit(3) // a signal after stop must not cancel anything
	}
	os.Exit(0)
}

// startSignalHelper starts the test binary as a signal helper child
// (GOMATVIS_SIGNAL_HELPER=mode, TestMain), killed when t ends, and
// returns it with a scanner of its output lines.
func startSignalHelper(t *testing.T, mode string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "GOMATVIS_SIGNAL_HELPER="+mode)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return cmd, bufio.NewScanner(stdout)
}

// TestSignalAfterStopDoesNotKill checks that an interrupt arriving after
// the run has wound down (the watch stopped, the process exiting) leaves
// the exit status to the program instead of killing it by the signal: a
// second Ctrl-C just after a cancelled run finished used to end it "by
// signal: interrupt" rather than with status 130.
func TestSignalAfterStopDoesNotKill(t *testing.T) {
	cmd, lines := startSignalHelper(t, "stopped")
	if !lines.Scan() || lines.Text() != "ready" {
		t.Fatalf("child said %q, want ready", lines.Text())
	}
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child ended with %v after an interrupt past the watch, want exit 0", err)
	}
}

// TestSecondInterruptExits checks that the first SIGINT cancels the run's
// context and the second exits at once with status 130.
func TestSecondInterruptExits(t *testing.T) {
	cmd, lines := startSignalHelper(t, "1")
	expect := func(want string) {
		t.Helper()
		if !lines.Scan() || lines.Text() != want {
			t.Fatalf("child said %q, want %q", lines.Text(), want)
		}
	}
	expect("ready")
	cmd.Process.Signal(os.Interrupt)
	expect("cancelled")
	t0 := time.Now()
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
		t.Fatalf("child ended with %v, want exit %d", err, exitInterrupted)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Fatalf("exit took %v after the second interrupt", d)
	}
}

// TestProfileRefusesSizes checks that profile and roofline refuse sizes
// that cannot fit, and an output directory that is a file, before any
// work (they used to die allocating, or fail after the whole run).
func TestProfileRefusesSizes(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o644)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"profile", "--nsrc", "1000000000000", "--backend", "cpu"}, 2, "at most 2147483648"},
		{[]string{"profile", "--nsrc", "2000000000", "--backend", "cpu"}, 1, "does not fit in memory"},
		{[]string{"profile", "--nant", "1000000", "--nbeam", "1", "--backend", "cpu"}, 1, "output 256 TB"},
		{[]string{"roofline", "--nant", "1000000", "--nbeam", "1", "--backend", "cpu"}, 1, "does not fit in memory"},
		{[]string{"profile", "--nsrc", "100", "--max-memory", "1000", "--backend", "cpu"}, 1, "max_memory"},
		{[]string{"profile", "--nsrc", "100", "-o", file}, 1, "is not a directory"},
		{[]string{"roofline", "--nsrc", "100", "-o", file}, 1, "is not a directory"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			args := tc.args
			if !slices.Contains(args, "-o") {
				args = append(args, "-o", filepath.Join(t.TempDir(), "out"))
			}
			t0 := time.Now()
			code, _, stderr := runCLI(t, args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit %d mentioning %q", code, stderr, tc.code, tc.want)
			}
			if d := time.Since(t0); d > 2*time.Second {
				t.Fatalf("refused only after %v", d)
			}
		})
	}
}
