package main

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// mainHelperEnv, set to gomatvis's arguments joined by \x1f, makes the
// test binary run main itself (TestMain): a real process to signal.
const mainHelperEnv = "GOMATVIS_MAIN_ARGS"

// syncBuffer is a bytes.Buffer safe to read while a process writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startGomatvis starts main in a child process with args, its stderr
// captured, in dir.
func startGomatvis(t *testing.T, dir string, args ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), mainHelperEnv+"="+strings.Join(args, "\x1f"))
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, stderr
}

// longSpec writes a spec whose CPU run takes seconds (the example's 19
// antennas and 9 channels, 20 000 sources, 60 times: about 11 s on one
// core), so that a signal finds it computing.
func longSpec(t *testing.T, dir string) string {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	return writeSpec(t, dir, func(m map[string]any) {
		const nsrc, ntime = 20000, 60
		nf := len(m["freqs_hz"].([]any))
		ra, dec, flux := make([]float64, nsrc), make([]float64, nsrc), make([][]float64, nsrc)
		for i := range nsrc {
			ra[i], dec[i] = r.Float64()*6.28, r.Float64()*2-1.5
			flux[i] = make([]float64, nf)
			for f := range flux[i] {
				flux[i][f] = 1
			}
		}
		m["sources"] = map[string]any{"ra_rad": ra, "dec_rad": dec, "flux_jy": flux}
		t0 := m["times_jd"].([]any)[0].(float64)
		times := make([]float64, ntime)
		for i := range times {
			times[i] = t0 + float64(i)*10/86400
		}
		m["times_jd"] = times
		delete(m, "eop")
	}, "")
}

// temporaries lists the atomicfile temporaries (".NAME.tmp-PID-…") in dir.
func temporaries(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var tmps []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), ".tmp-") {
			tmps = append(tmps, e.Name())
		}
	}
	return tmps
}

// waitFor polls until cond holds, failing the test after d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(d); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("no %s within %v", what, d)
		}
	}
}

// untilExit polls cond until it holds (true) or the process exits
// (false).
func untilExit(exited chan struct{}, cond func() bool) bool {
	for !cond() {
		select {
		case <-exited:
			return false
		case <-time.After(time.Millisecond):
		}
	}
	return true
}

// TestSignalsDuringRun signals a real run (the built command, as a child
// process) while it streams its UVH5 output into a temporary: SIGTERM is
// honoured as SIGINT is (the run stops at its next check, exit 130), and
// a second signal exits at once — in both cases within 2 s, and leaving
// no temporary behind (a second Ctrl-C used to leave the output's).
func TestSignalsDuringRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a seconds-long run")
	}
	cases := []struct {
		name    string
		signals []os.Signal
	}{
		{"SIGINT", []os.Signal{os.Interrupt}},
		{"SIGTERM", []os.Signal{syscall.SIGTERM}},
		{"SIGINT twice", []os.Signal{os.Interrupt, os.Interrupt}},
		{"SIGTERM twice", []os.Signal{syscall.SIGTERM, syscall.SIGTERM}},
		{"SIGINT then SIGTERM", []os.Signal{os.Interrupt, syscall.SIGTERM}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			spec := longSpec(t, dir)
			cmd, stderr := startGomatvis(t, dir, "simulate", spec, "-o", filepath.Join(dir, "v.uvh5"), "--backend", "cpu", "-q")
			waitFor(t, 30*time.Second, "temporary of the streamed output", func() bool { return len(temporaries(t, dir)) > 0 })
			t0 := time.Now()
			exited := make(chan struct{})
			var err error
			go func() { err = cmd.Wait(); close(exited) }()
			for i, s := range c.signals {
				// A second signal sent before the first is handled merges
				// with it: wait for the first's message (the run may have
				// stopped by then, as it should).
				if i > 0 && !untilExit(exited, func() bool { return strings.Contains(stderr.String(), "interrupted:") }) {
					break
				}
				cmd.Process.Signal(s)
			}
			select {
			case <-exited:
			case <-time.After(5 * time.Second):
				t.Fatalf("still running 5 s after %v; stderr %q", c.signals, stderr)
			}
			took := time.Since(t0)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
				t.Fatalf("ended with %v after %v, want exit %d; stderr %q", err, c.signals, exitInterrupted, stderr)
			}
			if took > 2*time.Second {
				t.Errorf("exit took %v after %v, want under 2 s", took, c.signals)
			}
			if tmps := temporaries(t, dir); len(tmps) != 0 {
				t.Errorf("left temporaries %v after %v; stderr %q", tmps, c.signals, stderr)
			}
			if _, err := os.Stat(filepath.Join(dir, "v.uvh5")); err == nil {
				t.Errorf("an interrupted run wrote the complete output")
			}
			t.Logf("exit %d %v after %v", ee.ExitCode(), took, c.signals)
		})
	}
}
