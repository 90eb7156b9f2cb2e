package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInputsRefuseFIFO checks every command's input files through the
// CLI: a named pipe in any input's place is refused within a few seconds
// with a message naming it, never waited on (a FIFO among merge's parts
// used to block it forever; roofline --from one, and a spec's catalog,
// blocked too).
func TestInputsRefuseFIFO(t *testing.T) {
	// Each case gets a directory holding a small spec.json and a FIFO
	// named fifo (its name matters: the extension picks the reader).
	cases := []struct {
		name, fifo string
		args       func(dir, spec, fifo string) []string
	}{
		{"spec", "s.json", func(dir, spec, fifo string) []string {
			return []string{"simulate", fifo, "-o", filepath.Join(dir, "v.npy")}
		}},
		{"obsparam", "o.yaml", func(dir, spec, fifo string) []string {
			return []string{"simulate", fifo, "-o", filepath.Join(dir, "v.uvh5")}
		}},
		{"--topo", "t.npy", func(dir, spec, fifo string) []string {
			return []string{"simulate", spec, "--topo", fifo, "-o", filepath.Join(dir, "v.npy")}
		}},
		{"--eop", "eop.json", func(dir, spec, fifo string) []string {
			return []string{"simulate", spec, "--eop", fifo, "-o", filepath.Join(dir, "v.npy")}
		}},
		{"spec's catalog", "sky.txt", func(dir, spec, fifo string) []string {
			s := writeSpec(t, dir, smallSpec(3, 2, 2, func(m map[string]any) {
				m["sources"] = map[string]any{"catalog": map[string]any{"path": "sky.txt"}}
			}), "")
			return []string{"simulate", s, "-o", filepath.Join(dir, "v.npy")}
		}},
		{"spec's layout", "layout.csv", func(dir, spec, fifo string) []string {
			s := writeSpec(t, dir, smallSpec(3, 2, 2, func(m map[string]any) {
				delete(m, "antennas_enu_m")
				delete(m, "beam_idx")
				m["layout_csv"] = "layout.csv"
			}), "")
			return []string{"simulate", s, "-o", filepath.Join(dir, "v.npy")}
		}},
		{"merge part", "part-001.gmvpart", func(dir, spec, fifo string) []string {
			parts := shardAll(t, dir, spec, 2)
			return []string{"merge", parts[0], fifo, "-o", filepath.Join(dir, "v.npy")}
		}},
		{"roofline --from", "summary.json", func(dir, spec, fifo string) []string {
			return []string{"roofline", "--from", fifo, "-o", filepath.Join(dir, "roof")}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			spec := writeSpec(t, dir, smallSpec(3, 2, 2, nil), "")
			fifo := filepath.Join(dir, c.fifo)
			args := c.args(dir, spec, fifo)
			os.Remove(fifo) // a case may have written a file there (merge's second part)
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			type result struct {
				code   int
				stderr string
			}
			done := make(chan result, 1)
			go func() {
				code, _, stderr := runCLI(t, args...)
				done <- result{code, stderr}
			}()
			select {
			case r := <-done:
				if r.code == 0 || !strings.Contains(r.stderr, fifo) {
					t.Fatalf("exit %d, stderr %q; want a refusal naming %s", r.code, r.stderr, fifo)
				}
				t.Logf("%s", strings.TrimSpace(r.stderr))
			case <-time.After(10 * time.Second):
				// Unblock the reader so the test binary can finish.
				if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					w.Close()
				}
				t.Fatalf("gomatvis %s blocked on the FIFO %s", strings.Join(args, " "), fifo)
			}
		})
	}
}

// TestExampleOutput: example -o writes the embedded spec atomically; a
// FIFO at -o (os.WriteFile waited for a reader forever) is replaced, and
// a directory is refused.
func TestExampleOutput(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "spec.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan int, 1)
	go func() { code, _, _ := runCLI(t, "example", "-o", fifo); done <- code }()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("example -o FIFO: exit %d", code)
		}
	case <-time.After(10 * time.Second):
		if r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			r.Close()
		}
		t.Fatal("example -o FIFO blocked")
	}
	if b, err := os.ReadFile(fifo); err != nil || string(b) != exampleSpec {
		t.Fatalf("the output holds %d bytes (%v), want the embedded spec's %d", len(b), err, len(exampleSpec))
	}
	if code, _, stderr := runCLI(t, "example", "-o", dir); code == 0 || !strings.Contains(stderr, "is a directory") {
		t.Fatalf("example -o DIR: exit %d, %q", code, stderr)
	}
}
