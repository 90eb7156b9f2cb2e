package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestUntilCancelled checks the helper against a step that only ends
// when told: cancelled first, it returns ctx's error at once (naming the
// step) while the step runs on; not cancelled, it returns the step's own
// result and error; cancelled before, it does not start the step.
func TestUntilCancelled(t *testing.T) {
	release := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	t0 := time.Now()
	v, err := untilCancelled(ctx, "the long step", func() (int, error) { <-release; return 1, nil })
	close(release)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "the long step") || v != 0 {
		t.Fatalf("cancelled: %d, %v; want 0 and context.Canceled naming the step", v, err)
	}
	if d := time.Since(t0); d > time.Second {
		t.Fatalf("returned %v after the start, the cancel came at 20 ms", d)
	}
	boom := errors.New("boom")
	if v, err := untilCancelled(context.Background(), "s", func() (int, error) { return 7, boom }); v != 7 || err != boom {
		t.Fatalf("not cancelled: %d, %v; want the step's 7, boom", v, err)
	}
	ran := false
	if _, err := untilCancelled(ctx, "s", func() (int, error) { ran = true; return 0, nil }); !errors.Is(err, context.Canceled) || ran {
		t.Fatalf("cancelled before: %v, ran %v", err, ran)
	}
}

// writeBigCatalog writes a text catalog of n flat-spectrum sources.
func writeBigCatalog(t *testing.T, path string, n int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprint(w, "source_id\tra_icrs [deg]\tdec_icrs [deg]\tFlux [Jy]\n")
	r := rand.New(rand.NewPCG(3, 4))
	for i := range n {
		fmt.Fprintf(w, "s%d\t%.6f\t%.6f\t%.4f\n", i, r.Float64()*360, r.Float64()*180-90, r.Float64()*10)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestInterruptDuringCatalogRead cancels a run while it reads a large
// catalog (1.5·10⁶ sources: 1–3 s to read here): simulate returns with
// the interrupt's exit status within 0.5 s of it. It used to finish
// reading the catalog and building the run first (13–20 s on larger
// catalogs).
func TestInterruptDuringCatalogRead(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 60 MB catalog")
	}
	dir := t.TempDir()
	writeBigCatalog(t, filepath.Join(dir, "sky.txt"), 1_500_000)
	spec := writeSpec(t, dir, smallSpec(3, 2, 2, func(m map[string]any) {
		m["sources"] = map[string]any{"catalog": map[string]any{"path": "sky.txt"}}
	}), "")
	ctx, cancel := context.WithCancel(context.Background())
	const after = 50 * time.Millisecond
	time.AfterFunc(after, cancel)
	var o, e strings.Builder
	t0 := time.Now()
	code := run(ctx, []string{"simulate", spec, "-o", filepath.Join(dir, "v.npy"), "--backend", "cpu", "-q"}, &o, &e)
	took := time.Since(t0) - after
	if code != exitInterrupted {
		t.Fatalf("exit %d, stderr %q; want %d", code, e.String(), exitInterrupted)
	}
	if took > 500*time.Millisecond {
		t.Fatalf("returned %v after the cancellation, want under 0.5 s", took)
	}
	t.Logf("returned %v after the cancellation: %s", took, strings.TrimSpace(e.String()))
}
