package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/matvis/gpu"
)

// TestFlagErrorsComeFirst: a refused flag prints its error, with a "did
// you mean" for a near name, and a pointer to --help, not the command's
// whole usage (45 lines, under which --backnd's one line was lost).
func TestFlagErrorsComeFirst(t *testing.T) {
	cases := []struct {
		args []string
		want []string
		not  string
	}{
		{[]string{"simulate", "example", "--backnd", "cpu", "-o", "x.npy"}, []string{"unknown flag --backnd; did you mean --backend?", "gomatvis simulate --help lists the flags"}, ""},
		{[]string{"simulate", "example", "--bakcend", "cpu", "-o", "x.npy"}, []string{"did you mean --backend?"}, ""},
		{[]string{"simulate", "example", "--max-memroy", "1", "-o", "x.npy"}, []string{"did you mean --max-memory?"}, ""},
		{[]string{"simulate", "example", "-0", "x.npy"}, []string{"unknown flag --0; did you mean --o?"}, ""},
		{[]string{"topo", "example", "--coord-metod=erfa", "-o", "x.npy"}, []string{"did you mean --coord-method?", "gomatvis topo --help"}, ""},
		{[]string{"merge", "--zzzzzz", "-o", "x.npy"}, []string{"unknown flag --zzzzzz (gomatvis merge --help lists the flags)"}, "did you mean"},
		{[]string{"simulate", "example", "--precision", "two", "-o", "x.npy"}, []string{`--precision "two": not a number`, "--help lists the flags"}, ""},
		{[]string{"simulate", "example", "-o"}, []string{"flag needs an argument: -o"}, ""},
		{[]string{"simulate", "example", "--q=maybe", "-o", "x.npy"}, []string{`--q "maybe": want true or false`}, ""},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, _, stderr := runCLI(t, c.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2 (a usage error)", code)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			if c.not != "" && strings.Contains(stderr, c.not) {
				t.Errorf("stderr %q has %q", stderr, c.not)
			}
			if n := strings.Count(stderr, "\n"); n != 1 || strings.Contains(stderr, "flags:") {
				t.Errorf("stderr is %d lines, want the one error line and no usage: %q", n, stderr)
			}
		})
	}
	// --help still prints the flags.
	if code, _, stderr := runCLI(t, "simulate", "--help"); code != 0 || !strings.Contains(stderr, "-max-memory") {
		t.Errorf("--help: exit %d, stderr %q; want the flags", code, stderr)
	}
}

// TestUnknownCommand: a mistyped command is named with the nearest one.
func TestUnknownCommand(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"simulat", `unknown command "simulat"; did you mean simulate?`},
		{"mrege", `unknown command "mrege"; did you mean merge?`},
		{"frobnicate", `unknown command "frobnicate"` + "\n"},
	} {
		code, _, stderr := runCLI(t, c.name)
		if code != 2 || !strings.HasPrefix(stderr, "gomatvis: ") || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q first", c.name, code, stderr, c.want)
		}
	}
}

// TestEditDistance checks the optimal-string-alignment distance on
// hand-counted pairs.
func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"", "abc", 3}, {"backnd", "backend", 1}, {"kitten", "sitting", 3}, {"o", "0", 1}, {"flaw", "lawn", 2}, {"abc", "abc", 0},
		{"mrege", "merge", 1}, {"bakcend", "backend", 1}, {"ca", "abc", 3}, {"abcd", "acbd", 1}} {
		if got := editDistance(c.a, c.b); got != c.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
		if got := editDistance(c.b, c.a); got != c.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.b, c.a, got, c.d)
		}
	}
}

// TestParseByteSize: sizes as people write them; units SI (1000) and
// IEC (1024), a bare G refused as ambiguous rather than guessed.
func TestParseByteSize(t *testing.T) {
	ok := []struct {
		in   string
		want int64
	}{
		{"2000000000", 2000000000}, {"2e9", 2000000000}, {"1GB", 1000000000}, {"1gb", 1000000000},
		{"512MiB", 512 << 20}, {"512 MiB", 512 << 20}, {"1.5GiB", 3 << 29}, {"64kB", 64000}, {"2TiB", 2 << 40},
		{"100B", 100}, {"0", 0}, {"9007199254740993", 9007199254740993}, {"9223372036854775807", math.MaxInt64},
		{"8388607TiB", 8388607 << 40},
	}
	for _, c := range ok {
		if got, err := parseByteSize(c.in); err != nil || got != c.want {
			t.Errorf("parseByteSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	bad := []struct{ in, want string }{
		{"1G", "ambiguous: write 1GB (powers of 1000) or 1GiB"},
		{"GB", "want an integer"}, {"abc", "want an integer"}, {"1 furlong", "want an integer"},
		{"-1", "want a positive number"}, {"-1.5GB", "want a positive number"}, {"1e400", "too large"},
		{"9223372036854775808", "too large"}, {"8388608TiB", "too large"}, {"1e19", "too large"}, {"NaN", "want an integer"}, {"Inf", "want an integer"},
		{"0.5", "whole number of bytes"}, {"", "want an integer"},
	}
	for _, c := range bad {
		if got, err := parseByteSize(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("parseByteSize(%q) = %d, %v; want an error with %q", c.in, got, err, c.want)
		}
	}
}

// TestMaxMemoryUnits: --max-memory 1GB runs (it was "parse error"), a
// bad size names the flag and the spellings, and the help lists them.
func TestMaxMemoryUnits(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, smallSpec(3, 2, 2, nil), "")
	for _, v := range []string{"1GB", "512MiB", "2e9"} {
		if code, _, e := runCLI(t, "simulate", spec, "--max-memory", v, "--backend", "cpu", "-o", filepath.Join(dir, "v.npy")); code != 0 {
			t.Errorf("--max-memory %s: exit %d, stderr %q", v, code, e)
		}
	}
	code, _, e := runCLI(t, "simulate", spec, "--max-memory", "1G", "--backend", "cpu", "-o", filepath.Join(dir, "v.npy"))
	if code != 2 || !strings.Contains(e, `--max-memory "1G": the unit "G" is ambiguous`) || !strings.Contains(e, "1GiB") {
		t.Errorf("--max-memory 1G: exit %d, stderr %q; want a usage error naming the flag and the spellings", code, e)
	}
	for _, cmd := range []string{"simulate", "profile"} {
		if _, _, h := runCLI(t, cmd, "--help"); !strings.Contains(h, "1GB or 512MiB") {
			t.Errorf("%s --help does not say which sizes --max-memory takes", cmd)
		}
	}
}

// TestGPUBackendPointsToAuto: --backend gpu without a usable GPU says
// that --backend auto would run (on the CPU).
func TestGPUBackendPointsToAuto(t *testing.T) {
	err := gpuOpenError(fmt.Errorf("backend gpu: open CUDA driver: %w", gpu.ErrNoDevice))
	if !strings.Contains(err.Error(), "no CUDA device/driver found; --backend auto") {
		t.Errorf("got %q", err)
	}
	if e := errors.New("backend gpu: out of memory"); gpuOpenError(e) != e {
		t.Error("an error other than no device got the hint")
	}
	dir := t.TempDir()
	spec := writeSpec(t, dir, smallSpec(3, 2, 2, nil), "")
	for _, args := range [][]string{
		{"simulate", spec, "--backend", "gpu", "-o", filepath.Join(dir, "v.npy")},
		{"profile", "--preset", "custom", "--nant", "3", "--nbeam", "1", "--nsrc", "10", "--ntimes", "1", "--nfreq", "1", "--backend", "gpu", "-o", filepath.Join(dir, "p")},
	} {
		code, _, stderr := runCLI(t, args...)
		if code == 0 {
			t.Skip("a GPU opened here: the message is for machines without one")
		}
		if !strings.Contains(stderr, "--backend auto") {
			t.Errorf("%s: exit %d, stderr %q; want a pointer to --backend auto", args[0], code, stderr)
		}
	}
}

// TestTopoOfAnotherSky: a --topo file of another sky names the flag and
// the file, and how to make the right one (it said only "coords: 3
// sources, the sky has 4").
func TestTopoOfAnotherSky(t *testing.T) {
	dir := t.TempDir()
	spec3 := writeSpec(t, dir, smallSpec(3, 2, 2, nil), "")
	topo := filepath.Join(dir, "topo3.npy")
	if code, _, e := runCLI(t, "topo", spec3, "-o", topo); code != 0 {
		t.Fatal(e)
	}
	spec4 := filepath.Join(dir, "spec4.json")
	writeSpecAt(t, spec4, smallSpec(4, 2, 2, nil))
	spec3t := filepath.Join(dir, "spec3t.json")
	writeSpecAt(t, spec3t, smallSpec(3, 2, 3, nil))
	cases := []struct {
		spec  string
		extra []string
		want  string
	}{
		{spec4, nil, "matvis: coords: 3 sources, the sky has 4"},
		{spec4, []string{"--shard", "0/1"}, "matvis: coords: 3 sources, the sky has 4"},
		{spec3t, nil, "times: 3 values, coordinates have 2 times"},
	}
	for _, c := range cases {
		out := filepath.Join(dir, "v.npy")
		if c.extra != nil {
			out = filepath.Join(dir, "v.gmvpart")
		}
		args := append([]string{"simulate", c.spec, "--topo", topo, "--backend", "cpu", "-o", out}, c.extra...)
		code, _, stderr := runCLI(t, args...)
		want := fmt.Sprintf("--topo %s: ", topo)
		if code == 0 || !strings.Contains(stderr, want) || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "gomatvis topo SPEC.json") {
			t.Errorf("%s %v: exit %d, stderr %q; want %q, %q and how to write the right file", filepath.Base(c.spec), c.extra, code, stderr, want, c.want)
		}
	}
}

// writeSpecAt is writeSpec to another name than spec.json.
func writeSpecAt(t *testing.T, path string, edit func(m map[string]any)) {
	t.Helper()
	dir := t.TempDir()
	b, err := os.ReadFile(writeSpec(t, dir, edit, ""))
	if err == nil {
		err = os.WriteFile(path, b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestInterruptedLastLine: a run stopped by an interrupt ends with a line
// saying so, not with "…: context canceled", which read like an error;
// the exit status stays 130.
func TestInterruptedLastLine(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, smallSpec(3, 2, 2, nil), "")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, args := range [][]string{
		{"simulate", spec, "-o", filepath.Join(dir, "v.npy"), "--backend", "cpu"},
		{"topo", spec, "-o", filepath.Join(dir, "t.npy")},
	} {
		var o, e strings.Builder
		code := run(ctx, args, &o, &e)
		lines := strings.Split(strings.TrimSpace(e.String()), "\n")
		last := lines[len(lines)-1]
		if code != exitInterrupted || strings.Contains(last, "context canceled") || !strings.Contains(last, "stopped by the interrupt, as asked") {
			t.Errorf("%s: exit %d, last line %q; want %d and a line saying the run stopped as asked", args[0], code, last, exitInterrupted)
		}
	}
	// A failure on the way out is still reported as one.
	err := fmt.Errorf("run cancelled: %w (and saving the finished integrations failed: %w)", context.Canceled, errors.New("disk full"))
	if l := interruptedLine("simulate", err); !strings.Contains(l, "disk full") || strings.Contains(l, "as asked") {
		t.Errorf("got %q", l)
	}
}

// FuzzParseByteSize: no input panics; an accepted size is not negative;
// a plain decimal integer is read exactly, as strconv.ParseInt reads it.
func FuzzParseByteSize(f *testing.F) {
	for _, s := range []string{"1GB", "512MiB", "2e9", "2000000000", "1G", "-1", "0.5", "1e400", "9223372036854775807", " 3 kib "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseByteSize(s)
		if err != nil {
			return
		}
		if n < 0 {
			t.Fatalf("parseByteSize(%q) = %d", s, n)
		}
		if want, perr := strconv.ParseInt(strings.TrimSpace(s), 10, 64); perr == nil && want != n {
			t.Fatalf("parseByteSize(%q) = %d, want %d", s, n, want)
		}
	})
}
