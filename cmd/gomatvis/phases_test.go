package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/matvis/profile"
	"github.com/gomatvis/gomatvis/uvh5"
)

// phaseLine is simulate's phase line: the wall, then every phase.
var phaseLine = regexp.MustCompile(`(?m)^wall ([0-9.]+) s: start ([0-9.]+), input ([0-9.]+), set-up ([0-9.]+), compute ([0-9.]+), write ([0-9.]+), close ([0-9.]+)$`)

// inAll is the summary line's run wall ("… s in all →").
var inAll = regexp.MustCompile(`: ([0-9.e+-]+) s in all → `)

// outputLine is the output's account: compute, waits on the writer, close.
var outputLine = regexp.MustCompile(`compute ([0-9.e+-]+) s, waiting on the writer ([0-9.e+-]+) s, closing ([0-9.e+-]+) s`)

// phasesOf parses a run's phase line: wall, then the six phases.
func phasesOf(t *testing.T, stdout string) []float64 {
	t.Helper()
	m := phaseLine.FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no phase line in\n%s", stdout)
	}
	v := make([]float64, 7)
	for i := range v {
		v[i], _ = strconv.ParseFloat(m[i+1], 64)
	}
	return v
}

// TestSimulatePhases: every output's run prints its phases, which add up
// to the wall (each printed to the millisecond); the run's compute, write
// and close hold at least the output's own account of its compute, waits
// on the writer and close, and cover the summary line's run wall, of
// which compute and write are a part (the identity holds for any load:
// the wall is read from the clock's own marks).
func TestSimulatePhases(t *testing.T) {
	dir := t.TempDir()
	for _, ext := range []string{".npy", ".uvh5", ".uvfits"} {
		t.Run(ext, func(t *testing.T) {
			code, o, e := runCLI(t, "simulate", "example", "-o", filepath.Join(dir, "vis"+ext), "--backend", "cpu", "-q")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, e)
			}
			p := phasesOf(t, o)
			var sum float64
			for _, x := range p[1:] {
				sum += x
			}
			if math.Abs(sum-p[0]) > 0.0035 {
				t.Errorf("phases sum to %v s, wall %v s", sum, p[0])
			}
			m := inAll.FindStringSubmatch(o)
			if m == nil {
				t.Fatalf("no summary line in %s", o)
			}
			all, _ := strconv.ParseFloat(m[1], 64)
			o2 := outputLine.FindStringSubmatch(o)
			if o2 == nil {
				t.Fatalf("no output line in %s", o)
			}
			for i, name := range []string{"compute", "write", "close"} {
				own, _ := strconv.ParseFloat(o2[i+1], 64)
				if p[4+i] < own*0.99-0.002 {
					t.Errorf("%s %v s below the output's own %v s", name, p[4+i], own)
				}
			}
			// The summary's run wall is the interval between the clock's
			// set-up mark and its run mark: compute and write lie inside
			// it, and with close (the output's, then the backend's) they
			// cover it. Slack for the printing only: three phases to the
			// millisecond, the wall to three digits.
			slack := 0.0015 + all*0.005
			if cw := p[4] + p[5]; cw > all+slack {
				t.Errorf("compute and write %v s above the summary's run wall %v s", cw, all)
			}
			if run := p[4] + p[5] + p[6]; run < all-slack {
				t.Errorf("compute, write and close %v s below the summary's run wall %v s", run, all)
			}
		})
	}
	meta, err := os.ReadFile(filepath.Join(dir, "vis.meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Phases map[string]any `json:"phases"`
	}
	if err := json.Unmarshal(meta, &m); err != nil {
		t.Fatal(err)
	}
	// The metadata holds the phases before the run.
	for _, k := range []string{"start_s", "input_s", "setup_s", "wall_s", "start_from"} {
		if _, ok := m.Phases[k]; !ok {
			t.Errorf("meta.json phases %v: no %s", m.Phases, k)
		}
	}
	for _, k := range []string{"compute_s", "write_s", "close_s"} {
		if _, ok := m.Phases[k]; ok {
			t.Errorf("meta.json phases %v: %s before the run", m.Phases, k)
		}
	}
}

// TestSimulateProfile: --profile DIR writes a real run's summary.json in
// the profile's schema with the phases of the line printed, its figures,
// and puts the phases before the file's opening into the UVH5's history;
// without --profile the UVH5 holds no times (its bytes depend on the
// input only: a merged sharded run equals it, TestShardMergeEqualsUnsharded).
func TestSimulateProfile(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "prof")
	out := filepath.Join(dir, "vis.uvh5")
	code, o, e := runCLI(t, "simulate", "example", "-o", out, "--backend", "cpu", "-q", "--profile", prof)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	p := phasesOf(t, o)
	doc, err := os.ReadFile(filepath.Join(prof, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := profile.ValidateSummary(doc); err != nil {
		t.Fatalf("summary.json: %v", err)
	}
	rep, err := profile.ReadJSON(filepath.Join(prof, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Phases == nil || math.Abs(rep.Phases.WallS-p[0]) > 0.0005 || rep.Phases.WriteS == nil || rep.Phases.CloseS == nil {
		t.Fatalf("summary phases %+v, printed %v", rep.Phases, p)
	}
	if rep.Config.NAnt != 19 || rep.Config.NSrc != 400 || len(rep.PerIntegration) != 54 {
		t.Errorf("config %+v, %d integrations", rep.Config, len(rep.PerIntegration))
	}
	if _, err := os.Stat(filepath.Join(prof, "phases.svg")); err != nil {
		t.Error(err)
	}
	checkCPUProfile(t, filepath.Join(prof, "cpu.pprof"))
	f, err := uvh5.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.Header.History, "gomatvis run phases before this file was opened (s): wall ") ||
		!strings.Contains(f.Header.History, ", set-up ") || strings.Contains(f.Header.History, "compute") {
		t.Errorf("history %q: want the phases before the file", f.Header.History)
	}
	plain := filepath.Join(dir, "plain.uvh5")
	if code, _, e := runCLI(t, "simulate", "example", "-o", plain, "--backend", "cpu", "-q"); code != 0 {
		t.Fatal(e)
	}
	g, err := uvh5.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(g.Header.History, "phases") {
		t.Errorf("history %q: times without --profile", g.Header.History)
	}
}

// checkCPUProfile: path is a CPU profile as runtime/pprof writes it, a
// gzip-compressed protocol buffer (pprof's profile.proto) naming its
// sample type, "cpu".
func checkCPUProfile(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: not gzip: %v", path, err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if !bytes.Contains(b, []byte("cpu")) || !bytes.Contains(b, []byte("nanoseconds")) {
		t.Errorf("%s: %d bytes without the cpu/nanoseconds sample type", path, len(b))
	}
}

// TestSimulateProfileRefused: a --profile that cannot be a directory is
// refused before any work, naming the flag and the path, and so is one
// with --shard (a part is not a run to profile).
func TestSimulateProfileRefused(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "afile")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "vis.npy")
	code, _, e := runCLI(t, "simulate", "example", "-o", out, "--backend", "cpu", "-q", "--profile", filepath.Join(file, "prof"))
	if code == 0 || !strings.Contains(e, "--profile "+filepath.Join(file, "prof")) || !strings.Contains(e, "cannot create the directory") {
		t.Errorf("exit %d: %s", code, e)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("the run went ahead")
	}
	part := filepath.Join(dir, "p"+partExt)
	code, _, e = runCLI(t, "simulate", "example", "-o", part, "--shard", "1/2", "-q", "--profile", filepath.Join(dir, "prof"))
	if code == 0 || !strings.Contains(e, "--profile is for a whole run, not a --shard") {
		t.Errorf("--profile with --shard: exit %d: %s", code, e)
	}
}

// TestRooflineOfRunProfile: gomatvis roofline refuses a simulate
// --profile summary (it has no roofline) saying what it is and what to
// run instead.
func TestRooflineOfRunProfile(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "prof")
	if code, _, e := runCLI(t, "simulate", "example", "-o", filepath.Join(dir, "v.npy"), "--backend", "cpu", "-q", "--profile", prof); code != 0 {
		t.Fatal(e)
	}
	code, _, e := runCLI(t, "roofline", "--from", filepath.Join(prof, "summary.json"), "-o", filepath.Join(dir, "roof"))
	if code == 0 || !strings.Contains(e, "simulate --profile") || !strings.Contains(e, "gomatvis profile") {
		t.Errorf("exit %d: %s", code, e)
	}
}
