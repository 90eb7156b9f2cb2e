package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestSimulateRunWallLine: simulate ends with one line that names the
// run's wall per integration (on the CPU: host stage time, no GPU time),
// and the figure is the run's wall over its integrations.
func TestSimulateRunWallLine(t *testing.T) {
	for _, c := range []struct{ name, ext string }{{"npy", ".npy"}, {"uvh5", ".uvh5"}} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			code, stdout, stderr := runCLI(t, "simulate", "example", "-o", filepath.Join(dir, "v"+c.ext), "--backend", "cpu", "-q")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			re := regexp.MustCompile(`(?m)^run wall per integration (\S+) s \(host stage time (\S+) s, no GPU time\)$`)
			m := re.FindStringSubmatch(stdout)
			if m == nil {
				t.Fatalf("no named run-wall line:\n%s", stdout)
			}
			per, err1 := strconv.ParseFloat(m[1], 64)
			stage, err2 := strconv.ParseFloat(m[2], 64)
			if err1 != nil || err2 != nil || per <= 0 || stage <= 0 || stage > 1.01*per {
				t.Errorf("run wall per integration %q, host stage time %q: want 0 < stage ≤ wall", m[1], m[2])
			}
			// The summary line's "in all" over the example's 9 × 6
			// integrations is the same figure.
			all := regexp.MustCompile(`: (\S+) s in all → `).FindStringSubmatch(stdout)
			if all == nil {
				t.Fatalf("no summary line:\n%s", stdout)
			}
			tot, _ := strconv.ParseFloat(all[1], 64)
			if got := fmt.Sprintf("%.3g", tot/54); !near3(got, per) {
				t.Errorf("in all %g s / 54 = %s, run wall per integration %g", tot, got, per)
			}
			if strings.Contains(stdout, "GPU busy") {
				t.Errorf("a CPU run prints a GPU busy fraction:\n%s", stdout)
			}
		})
	}
}

// near3 says whether s (a %.3g figure) is within rounding of x.
func near3(s string, x float64) bool {
	v, err := strconv.ParseFloat(s, 64)
	return err == nil && (v-x)*(v-x) <= (0.01*x)*(0.01*x)
}

// TestSimulateBlockFlag: --block sets the streamed block; the smallest
// (one integration: 1 byte asks for less) splits the example's 9 × 6
// grid into 54 blocks, the default runs it as one, and the outputs are
// byte for byte the same, for the npy and the UVH5.
func TestSimulateBlockFlag(t *testing.T) {
	for _, ext := range []string{".npy", ".uvh5"} {
		t.Run(ext[1:], func(t *testing.T) {
			dir := t.TempDir()
			var outs [2][]byte
			for i, c := range []struct {
				args   []string
				blocks string
			}{
				{nil, "output: 1 block(s) of up to 6 times × 9 channels"},
				{[]string{"--block", "1"}, "output: 54 block(s) of up to 1 times × 1 channels"},
			} {
				out := filepath.Join(dir, fmt.Sprintf("v%d%s", i, ext))
				args := append([]string{"simulate", "example", "-o", out, "--backend", "cpu", "-q"}, c.args...)
				code, stdout, stderr := runCLI(t, args...)
				if code != 0 {
					t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
				}
				if !strings.Contains(stdout, c.blocks) {
					t.Errorf("%v: want %q in:\n%s", c.args, c.blocks, stdout)
				}
				b, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				outs[i] = b
			}
			if !bytes.Equal(outs[0], outs[1]) {
				t.Errorf("--block 1 wrote a different %s (%d bytes against %d)", ext, len(outs[1]), len(outs[0]))
			}
		})
	}
}
