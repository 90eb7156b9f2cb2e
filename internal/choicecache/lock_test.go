package choicecache

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// childEnv makes the test binary a TestHelperProcessDecide process: the cache
// file it decides in.
const childEnv = "GOMATVIS_CHOICECACHE_CHILD"

// decideLikeAChooser is what each chooser does around a measurement: the
// lock, a Get, on a miss a slow measurement whose value differs from
// process to process (its pid and clock: what a close call measured again
// gives), a Put, the unlock.
func decideLikeAChooser(path string) (string, error) {
	unlock, ok := Lock(path, "shape", time.Minute)
	defer unlock()
	if !ok {
		return "", fmt.Errorf("the lock was not had within a minute")
	}
	if v, hit := Get[string](path, "shape"); hit {
		return v, nil
	}
	time.Sleep(300 * time.Millisecond) // measuring
	v := fmt.Sprintf("pid%d-%d", os.Getpid(), time.Now().UnixNano())
	Put(path, "shape", v)
	return v, nil
}

// TestHelperProcessDecide is the child process of TestConcurrentFirstRuns (it
// does nothing when run on its own).
func TestHelperProcessDecide(t *testing.T) {
	path := os.Getenv(childEnv)
	if path == "" {
		return
	}
	v, err := decideLikeAChooser(path)
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(1)
	}
	fmt.Println("DECIDED", v)
}

// TestConcurrentFirstRuns (issue 41 item 4): processes started together on
// an empty cache all come out with one decision — the first to take the
// lock measures and stores, the others wait and read it — where each
// would otherwise measure its own (three first runs took different paths
// and differed by 5e-13 of the peak). Without Lock every process here
// measures, and the values differ.
func TestConcurrentFirstRuns(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SKIP: no flock: Lock does not coordinate processes there")
	}
	path := filepath.Join(t.TempDir(), "cache", "choices.json")
	const n = 4
	cmds := make([]*exec.Cmd, n)
	outs := make([]strings.Builder, n)
	for i := range cmds {
		cmds[i] = exec.Command(os.Args[0], "-test.run=^TestHelperProcessDecide$", "-test.count=1")
		cmds[i].Env = append(os.Environ(), childEnv+"="+path)
		cmds[i].Stdout, cmds[i].Stderr = &outs[i], &outs[i]
	}
	for _, c := range cmds { // started together, before any has run
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	var decided []string
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("child %d: %v\n%s", i, err, outs[i].String())
		}
		_, v, ok := strings.Cut(outs[i].String(), "DECIDED ")
		if !ok {
			t.Fatalf("child %d printed no decision:\n%s", i, outs[i].String())
		}
		decided = append(decided, strings.Fields(v)[0])
	}
	for i, v := range decided {
		if v != decided[0] {
			t.Fatalf("child %d decided %q, child 0 %q: the first runs did not share one decision (%q)", i, v, decided[0], decided)
		}
	}
	if v, ok := Get[string](path, "shape"); !ok || v != decided[0] {
		t.Errorf("the cache holds %q (%v), the children decided %q", v, ok, decided[0])
	}
}

// TestLockWaitBounded: a Lock of a key held elsewhere gives up after its
// wait with ok false (the caller then decides by a rule without timing),
// a Lock of another key or after the unlock is had at once, unlock may be
// called twice, and without a cache nothing is held.
func TestLockWaitBounded(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SKIP: no flock")
	}
	path := filepath.Join(t.TempDir(), "choices.json")
	unlock, ok := Lock(path, "a", time.Second)
	if !ok {
		t.Fatal("an unheld lock was not had")
	}
	t0 := time.Now()
	if _, ok := Lock(path, "a", 150*time.Millisecond); ok {
		t.Fatal("a held lock was had")
	}
	if d := time.Since(t0); d < 150*time.Millisecond || d > 5*time.Second {
		t.Errorf("gave up after %v, want 150 ms", d)
	}
	u2, ok := Lock(path, "b", 0)
	if !ok {
		t.Error("another key's lock was not had at once")
	}
	u2()
	unlock()
	unlock()
	u3, ok := Lock(path, "a", 0)
	if !ok {
		t.Error("the lock was not had after its unlock")
	}
	u3()
	u4, ok := Lock("", "a", 0)
	if !ok {
		t.Error("no cache: not ok")
	}
	u4()
}
