package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// rlimitASEnv, set to a number of bytes, makes the test binary lower its
// address-space limit (RLIMIT_AS) to it before anything else runs, so
// that a child run of main (mainHelperEnv) meets the limit a user's
// `ulimit -v` sets; "+N" sets it N bytes above the address space the
// process has mapped then (VmSize: about 1 GB a Go program reserves
// before its first allocation, which varies with the binary).
const rlimitASEnv = "GOMATVIS_TEST_RLIMIT_AS"

func init() {
	v, ok := os.LookupEnv(rlimitASEnv)
	if !ok {
		return
	}
	n, err := strconv.ParseUint(strings.TrimPrefix(v, "+"), 10, 64)
	if err == nil && strings.HasPrefix(v, "+") {
		var vm uint64
		vm, err = vmSize()
		n += vm
	}
	if err == nil {
		err = syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: n, Max: n})
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s=%s: %v\n", rlimitASEnv, v, err)
		os.Exit(3)
	}
}

// vmSize is the process's mapped address space, from /proc/self/status.
func vmSize() (uint64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmSize:" {
			kb, err := strconv.ParseUint(f[1], 10, 64)
			return kb * 1024, err
		}
	}
	return 0, errors.New("no VmSize in /proc/self/status")
}

// peakRSSFileEnv names a file where a child run of main (mainHelperEnv)
// writes its own peak RSS (VmHWM, bytes) before it exits. The child's
// rusage cannot say it: the test binary starts it by vfork, and the
// kernel carries the parent's high-water mark across the exec into the
// child's ru_maxrss — 186 MB for a run that held 21 MB, once the test
// binary had grown from the tests before it (scripts/test.sh, 2026-12-07).
const peakRSSFileEnv = "GOMATVIS_TEST_PEAK_RSS_FILE"

// writePeakRSS writes the process's VmHWM in bytes to file (nothing if it
// cannot be read: the test then fails for want of it).
func writePeakRSS(file string) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				os.WriteFile(file, []byte(strconv.FormatInt(kb*1024, 10)), 0o644)
			}
		}
	}
}

// runLimited runs gomatvis with args in a child process in dir, under an
// address-space limit of as (rlimitASEnv's value; "": none), and returns
// its exit code, its stdout and stderr together and its peak RSS in bytes.
func runLimited(t *testing.T, dir string, as string, args ...string) (code int, output string, peakRSS int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0])
	cmd.Dir = dir
	hwm := filepath.Join(t.TempDir(), "peak-rss")
	cmd.Env = append(os.Environ(), mainHelperEnv+"="+strings.Join(args, "\x1f"), peakRSSFileEnv+"="+hwm)
	if as != "" {
		cmd.Env = append(cmd.Env, rlimitASEnv+"="+as)
	}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out // one writer: exec serializes the writes
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("gomatvis %v: %v", args, err)
	}
	b, err := os.ReadFile(hwm)
	if err != nil {
		t.Fatalf("gomatvis %v: the child wrote no peak RSS (%v); output:\n%.2000s", args, err, out.String())
	}
	if peakRSS, err = strconv.ParseInt(string(b), 10, 64); err != nil {
		t.Fatalf("peak RSS file %q: %v", b, err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), peakRSS
}

// gridLayout is n antennas 5 m apart on a grid 300 wide.
func gridLayout(n int) [][3]float64 {
	enu := make([][3]float64, n)
	for i := range enu {
		enu[i] = [3]float64{float64(i%300) * 5, float64(i/300) * 5, 0}
	}
	return enu
}

// smallRun trims the example spec to its first channel, time and
// sources.
func smallRun(m map[string]any, nsrc int) {
	m["freqs_hz"] = m["freqs_hz"].([]any)[:1]
	m["times_jd"] = m["times_jd"].([]any)[:1]
	m["eop"] = m["eop"].([]any)[:1]
	src := m["sources"].(map[string]any)
	src["ra_rad"] = src["ra_rad"].([]any)[:nsrc]
	src["dec_rad"] = src["dec_rad"].([]any)[:nsrc]
	flux := src["flux_jy"].([]any)[:nsrc]
	for i, row := range flux {
		flux[i] = row.([]any)[:1]
	}
	src["flux_jy"] = flux
}

// pySkyBomb writes a SkyH5 of argv[2] point sources (flat spectrum, one
// channel) whose datasets are gzip-compressed constants: a file of about
// 0.1 B a source declaring 65 B a source of arrays.
const pySkyBomb = `
import h5py, numpy as np, sys
path, n = sys.argv[1], int(sys.argv[2])
step = 1 << 20
with h5py.File(path, "w") as f:
    h = f.create_group("Header")
    h["Ncomponents"] = np.int64(n)
    h["Nfreqs"] = np.int64(1)
    h["component_type"] = np.bytes_("point")
    h["spectral_type"] = np.bytes_("flat")
    kw = dict(chunks=(step,), compression="gzip", compression_opts=9)
    name = h.create_dataset("name", (n,), dtype="S1", **kw)
    sc = h.create_group("skycoord")
    ra = sc.create_dataset("ra", (n,), dtype="f8", **kw)
    dec = sc.create_dataset("dec", (n,), dtype="f8", **kw)
    ra.attrs["unit"] = dec.attrs["unit"] = np.bytes_("deg")
    sc["frame"] = np.bytes_("icrs")
    sc["representation_type"] = np.bytes_("spherical")
    st = f.create_group("Data").create_dataset("stokes", (4, 1, n), dtype="f8", chunks=(1, 1, step), compression="gzip", compression_opts=9)
    st.attrs["unit"] = np.bytes_("Jy")
    one = np.ones(step)
    for i in range(0, n, step):
        j = min(n, i + step)
        name[i:j] = b"a"
        ra[i:j] = 10 * one[: j - i]
        dec[i:j] = -30 * one[: j - i]
        for p in range(4):
            st[p, 0, i:j] = (p == 0) * one[: j - i]
`

// skyBomb writes pySkyBomb's file of n sources into dir, or skips the
// test when h5py (the only writer of gzip HDF5 here) is missing.
func skyBomb(t *testing.T, dir string, n int) string {
	t.Helper()
	py := sharedtest.Python(t, "h5py", "python3-h5py")
	p := filepath.Join(dir, "bomb.skyh5")
	if out, err := exec.Command(py, "-c", pySkyBomb, p, strconv.Itoa(n)).CombinedOutput(); err != nil {
		t.Fatalf("writing the SkyH5: %v\n%s", err, out)
	}
	return p
}

// TestSizesBeforeAllocation: inputs that declare more than the machine's
// limit — the address-space limit (ulimit -v) or --max-memory — are
// refused with the numbers before they are allocated, in a process that
// stays small: never `fatal error: out of memory` after minutes (all
// pairs of 20 000 antennas; the pyuvsim path enumerated 2·10⁸ pairs
// before any check), never gigabytes inflated from a small gzip SkyH5.
func TestSizesBeforeAllocation(t *testing.T) {
	const as = "3221225472" // a `ulimit -v` of 3 GiB
	cases := []struct {
		name string
		// setup writes the inputs into dir and returns gomatvis's args.
		setup   func(t *testing.T, dir string) []string
		as      string
		wants   []string
		maxPeak int64
	}{
		{
			name: "spec, all pairs of 20 000 antennas, RLIMIT_AS 3 GiB",
			setup: func(t *testing.T, dir string) []string {
				spec := writeSpec(t, dir, func(m map[string]any) {
					smallRun(m, 3)
					m["antennas_enu_m"] = gridLayout(20000)
				}, "")
				return []string{"simulate", spec, "-o", filepath.Join(dir, "o.npy"), "--backend", "cpu"}
			},
			as:      as,
			wants:   []string{"20000 antennas, 400000000 baselines", "pair_list 6.4 GB", "accumulator 6.4 GB", "(RLIMIT_AS", "does not fit in memory", "ulimit -v"},
			maxPeak: 200e6,
		},
		{
			name: "obsparam, all pairs of 20 000 antennas, RLIMIT_AS 3 GiB",
			setup: func(t *testing.T, dir string) []string {
				obs := copyObsparam(t, "pyuvsim-stokesI-gaussian")
				var b strings.Builder
				b.WriteString("Name Number BeamID E N U\n")
				for i, p := range gridLayout(20000) {
					fmt.Fprintf(&b, "A%d %d 0 %g %g 0\n", i, i, p[0], p[1])
				}
				if err := os.WriteFile(filepath.Join(filepath.Dir(obs), "layout.csv"), []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return []string{"simulate", obs, "-o", filepath.Join(dir, "o.uvh5"), "--backend", "cpu"}
			},
			as:      as,
			wants:   []string{"the baseline list of 20000 antennas needs 9.6 GB", "selected pairs 3.2 GB (200010000 of 200010000 candidate pairs × 16 B)", "(RLIMIT_AS)", "select fewer baselines"},
			maxPeak: 200e6,
		},
		{
			name: "gzip SkyH5 of 4·10⁶ sources, --max-memory 100e6",
			setup: func(t *testing.T, dir string) []string {
				bomb := skyBomb(t, dir, 4_000_000)
				spec := writeSpec(t, dir, func(m map[string]any) {
					smallRun(m, 3)
					m["sources"] = map[string]any{"catalog": map[string]any{"path": bomb}}
				}, "")
				return []string{"simulate", spec, "-o", filepath.Join(dir, "o.npy"), "--backend", "cpu", "--max-memory", "100e6"}
			},
			wants:   []string{"bomb.skyh5: the sky (4000000 components × 1 channels, from /Header) needs 520 MB", "stokes 128 MB (4 × 1 channels × 4000000 components × 8 B)", "the limit is 100 MB (max_memory)"},
			maxPeak: 100e6,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := tc.setup(t, dir)
			t0 := time.Now()
			code, stderr, peak := runLimited(t, dir, tc.as, args...) // a refusal prints nothing on stdout
			t.Logf("exit %d in %v, peak RSS %.0f MB", code, time.Since(t0).Round(time.Millisecond), float64(peak)/1e6)
			if code != 1 || strings.Contains(stderr, "fatal error") {
				t.Fatalf("exit %d, want 1 with a message; stderr:\n%.2000s", code, stderr)
			}
			for _, w := range tc.wants {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if peak > tc.maxPeak {
				t.Errorf("peak RSS %.0f MB, want ≤ %.0f MB: the input was allocated before it was sized", float64(peak)/1e6, float64(tc.maxPeak)/1e6)
			}
			if entries, _ := filepath.Glob(filepath.Join(dir, "o.*")); len(entries) > 0 {
				t.Errorf("a refused run left %v", entries)
			}
		})
	}
}

// TestDefaultBudgetUnderRLIMIT_AS: without --max-memory, the CPU plans its
// chunks against what RLIMIT_AS leaves, not against MemAvailable. A
// 4·10⁶-source sky with the example's 19 antennas needs a 1.2 GB Z matrix
// in one chunk; 2.1 GB above the child's first VmSize leaves room for the
// sky (0.5 GB) and some chunks of it, not for the one chunk MemAvailable
// allows: on e0a3f9c the run dies (fatal error: out of memory in the
// CPU's fillZ, at 3.0–3.6 GB of `prlimit --as` for the gomatvis binary),
// here it completes in several chunks.
func TestDefaultBudgetUnderRLIMIT_AS(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP in -short: a 4·10⁶-source run (~10 s, 0.8 GB)")
	}
	dir := t.TempDir()
	bomb := skyBomb(t, dir, 4_000_000)
	spec := writeSpec(t, dir, func(m map[string]any) {
		smallRun(m, 3)
		m["sources"] = map[string]any{"catalog": map[string]any{"path": bomb}}
	}, "")
	code, out, peak := runLimited(t, dir, "+2100000000", "simulate", spec, "-o", filepath.Join(dir, "o.npy"), "--backend", "cpu")
	t.Logf("exit %d, peak RSS %.0f MB", code, float64(peak)/1e6)
	if code != 0 {
		t.Fatalf("exit %d, want 0; output:\n%.3000s", code, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "chunk(s)") {
			t.Log(line)
		}
	}
	if !strings.Contains(out, "chunk(s)") || strings.Contains(out, " 1 chunk(s)") {
		t.Errorf("want the sources split into several chunks:\n%s", out)
	}
}

// TestObsparamHoldsOnlySelectedPairs (not in -short): three antennas
// selected of a 20 000-antenna layout run under a 3 GiB RLIMIT_AS, the
// candidate pairs counted, not held; on e0a3f9c all 2·10⁸ candidates
// (3.2 GB) were enumerated before the selection: fatal error: out of
// memory.
func TestObsparamHoldsOnlySelectedPairs(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP in -short: three passes over 2·10⁸ pairs (~6–20 s)")
	}
	dir := t.TempDir()
	obs := copyObsparam(t, "pyuvsim-stokesI-gaussian")
	var b strings.Builder
	b.WriteString("Name Number BeamID E N U\n")
	for i, p := range gridLayout(20000) {
		fmt.Fprintf(&b, "A%d %d 0 %g %g 0\n", i, i, p[0], p[1])
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(obs), "layout.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	editFile(t, obs, `(?m)^polarization_array:`, "select:\n  antenna_nums: [0, 1, 2]\npolarization_array:")
	code, out, peak := runLimited(t, dir, "3221225472", "simulate", obs, "-o", filepath.Join(dir, "o.uvh5"), "--backend", "cpu")
	t.Logf("exit %d, peak RSS %.0f MB", code, float64(peak)/1e6)
	if code != 0 {
		t.Fatalf("exit %d, want 0; output:\n%.3000s", code, out)
	}
	if peak > 300e6 {
		t.Errorf("peak RSS %.0f MB for 6 baselines, want ≤ 300 MB", float64(peak)/1e6)
	}
}

// TestPeakRSSIsTheChilds: runLimited's peak RSS is the child's own,
// whatever the test binary holds — a parent holding 300 MB (as after the
// package's other tests) ran `gomatvis version`, and the child's rusage
// said 300 MB.
func TestPeakRSSIsTheChilds(t *testing.T) {
	if testing.Short() {
		t.Skip("holds 300 MB")
	}
	ballast := make([]byte, 300<<20)
	for i := range ballast {
		ballast[i] = byte(i)
	}
	code, out, peak := runLimited(t, t.TempDir(), "", "version")
	t.Logf("parent holds %d MB; child exit %d, peak RSS %.0f MB", len(ballast)>>20, code, float64(peak)/1e6)
	if code != 0 {
		t.Fatalf("gomatvis version: exit %d:\n%s", code, out)
	}
	if peak <= 0 || peak > 100e6 {
		t.Errorf("peak RSS %.0f MB for gomatvis version: want the child's own (≤ 100 MB), not the parent's", float64(peak)/1e6)
	}
	runtime.KeepAlive(ballast)
}
