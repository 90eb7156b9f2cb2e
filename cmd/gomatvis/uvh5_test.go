package main

import (
	"context"
	"encoding/json"
	"errors"
	"math/cmplx"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/cpu"
	"github.com/gomatvis/gomatvis/matvis/simspec"
	"github.com/gomatvis/gomatvis/matvis/uvdata"
	"github.com/gomatvis/gomatvis/uvh5"
)

// realReaders returns /usr/bin/python3 (with h5py) and h5dump, the HDF5
// library's own reader, or skips: CI installs both (scripts/test.sh).
func realReaders(t *testing.T) (py, h5dump string) {
	t.Helper()
	py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import h5py").Run(); err != nil {
		t.Skipf("SKIP: %s with h5py is not installed (scripts/test.sh installs python3-h5py): %v", py, err)
	}
	h5dump, err := exec.LookPath("h5dump")
	if err != nil {
		t.Skipf("SKIP: h5dump is not installed (scripts/test.sh installs hdf5-tools): %v", err)
	}
	return py, h5dump
}

// TestSimulateWritesValidUVH5: every UVH5 simulate writes — from a
// pyuvsim obsparam and from a simspec, fp64 and fp32 — is read by h5dump
// and by h5py, which finds every field pyuvdata needs with its dtype and
// shape (uvh5/testdata/check_uvh5.py) and the visibilities and baseline
// axes of the same simulation run here in-process.
func TestSimulateWritesValidUVH5(t *testing.T) {
	py, h5dump := realReaders(t)
	ref := filepath.Join(sharedtest.Dir(t), "reference", "pyuvsim-stokesI-gaussian")
	spec := filepath.Join(sharedtest.Dir(t), "specs", "stokesI-gaussian.json")
	for _, c := range []struct {
		name string
		args []string
	}{
		{"obsparam", []string{filepath.Join(ref, "obsparam.yaml"), "--eop", filepath.Join(ref, "eop.json")}},
		{"simspec", []string{spec}},
		{"example", []string{"example"}},
	} {
		out := filepath.Join(t.TempDir(), c.name+".uvh5")
		code, _, stderr := runCLI(t, append(append([]string{"simulate"}, c.args...), "-o", out, "-q", "--backend", "cpu")...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, stderr)
		}
		if b, err := exec.Command(h5dump, out).CombinedOutput(); err != nil {
			t.Errorf("%s: h5dump %s: %v\n%s", c.name, out, err, tail(b))
		}
		want := expectedUVH5(t, c.args)
		js := filepath.Join(t.TempDir(), "expected.json")
		if err := os.WriteFile(js, want, 0o644); err != nil {
			t.Fatal(err)
		}
		checker := filepath.Join(sharedtest.Root(t), "uvh5", "testdata", "check_uvh5.py")
		b, err := exec.Command(py, checker, out, js).CombinedOutput()
		if err != nil || strings.TrimSpace(string(b)) != "OK" {
			t.Errorf("%s: check_uvh5.py: %v\n%s", c.name, err, tail(b))
		}
	}
}

// expectedUVH5 runs the CLI's input in-process and returns, as the
// checker's JSON, the values the file must hold.
func expectedUVH5(t *testing.T, args []string) []byte {
	t.Helper()
	in, err := loadInput(context.Background(), args[0])
	if err != nil {
		t.Fatal(err)
	}
	bo := buildOptions{uvh5: true}
	if len(args) == 3 {
		bo.eopPath = args[2]
	}
	sim, obs, err := in.build(context.Background(), bo)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cpu.New().Run(context.Background(), sim)
	if err != nil {
		t.Fatal(err)
	}
	h, err := uvdata.Header(sim, obs)
	if err != nil {
		t.Fatal(err)
	}
	nbl, nf, np := len(obs.Baselines), sim.NFreq(), len(obs.Pols)
	vis := make([][][][2]float64, 0, sim.NTime()*nbl)
	for ti := range sim.NTime() {
		for k := range obs.Baselines {
			row := make([][][2]float64, nf)
			for fi := range nf {
				row[fi] = make([][2]float64, np)
				for pi, p := range obs.Pols {
					a, b := matvis.PolIndex(p, sim.Options.Polarized)
					v := res.At(fi, ti, k, a, b)
					row[fi][pi] = [2]float64{real(v), imag(v)}
				}
			}
			vis = append(vis, row)
		}
	}
	b, err := json.Marshal(map[string]any{
		"Data/visdata":              vis,
		"Header/ant_1_array":        h.Ant1,
		"Header/ant_2_array":        h.Ant2,
		"Header/time_array":         h.Times,
		"Header/freq_array":         h.Freqs,
		"Header/polarization_array": h.Pols,
		"Header/antenna_numbers":    h.AntennaNumbers,
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// tail is the end of a tool's output, enough to see why it failed.
func tail(b []byte) string {
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

// TestUVH5StreamsTimeBlocks: an output that does not fit in
// max_memory_bytes is refused as npy but written as UVH5 block by block
// of times, equal to the same run with room for everything.
func TestUVH5StreamsTimeBlocks(t *testing.T) {
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.uvh5")
	if code, _, stderr := runCLI(t, "simulate", writeSpec(t, dir, nil, ""), "-o", whole, "-q", "--backend", "cpu"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// The example's other host terms take 68 kB and its UVH5 output 27 kB
	// per time (6 times): 0.9 × 130 kB holds one time at once.
	tight := writeSpec(t, filepath.Join(dir), func(m map[string]any) {
		m["options"] = map[string]any{"max_memory_bytes": 1.3e5}
	}, "")
	code, _, stderr := runCLI(t, "simulate", tight, "-o", filepath.Join(dir, "tight.npy"), "-q", "--backend", "cpu")
	if code == 0 || !strings.Contains(stderr, "does not fit in memory") {
		t.Fatalf("npy output over the budget: exit %d, %s", code, stderr)
	}
	blocks := filepath.Join(dir, "blocks.uvh5")
	code, _, stderr = runCLI(t, "simulate", tight, "-o", blocks, "-q", "--backend", "cpu")
	if code != 0 || !strings.Contains(stderr, "blocks of up to") {
		t.Fatalf("uvh5 output over the budget: exit %d, %s", code, stderr)
	}
	a, err := uvh5.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	b, err := uvh5.ReadFile(blocks)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Vis) != len(b.Vis) || len(a.Vis) == 0 {
		t.Fatalf("%d and %d visibilities", len(a.Vis), len(b.Vis))
	}
	var peak, worst float64
	for i, v := range a.Vis {
		peak = max(peak, cmplx.Abs(v))
		worst = max(worst, cmplx.Abs(b.Vis[i]-v))
	}
	// More source chunks under the tight budget sum in another order.
	if worst > 1e-12*peak {
		t.Errorf("blocks vs whole: max|ΔV| = %.3g of peak %.3g", worst, peak)
	}
}

// TestUVH5PartialOnCancel: a UVH5 run cancelled after its first block
// leaves OUT.partial.uvh5 with the finished times and the rest flagged,
// and no OUT.uvh5.
func TestUVH5PartialOnCancel(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.uvh5")
	sim, obs, stderr := cancelAfterFirstBlock(t, out)
	f, err := uvh5.ReadFile(partialPath(out))
	if err != nil {
		t.Fatal(err)
	}
	nbl, per := len(obs.Baselines), sim.NFreq()*len(obs.Pols)
	for row := range f.Counts.Nblts {
		ti := row / nbl
		wantFlag := ti == 2 // times 0, 1 from the first block; 3.. finished in the second
		for k := row * per; k < (row+1)*per; k++ {
			if f.Flags[k] != wantFlag || (f.Nsamples[k] == 0) != wantFlag {
				t.Fatalf("row %d (time %d): flag %v nsamples %v, want flagged=%v", row, ti, f.Flags[k], f.Nsamples[k], wantFlag)
			}
		}
	}
	if !strings.Contains(stderr, "5 of 6 times finished") {
		t.Errorf("message: %q", stderr)
	}
}

// cancelAfterFirstBlock streams the example spec's run into out's row
// writer (UVH5 or UVFITS, by out's extension) as a run cancelled in its
// second block does: times 0 and 1 written whole from the first block,
// the second block's result with time 2's first channel unfinished given
// to savePartialUVH5, which must return the cancellation and leave nothing
// at out. It returns the run and what savePartialUVH5 said on stderr.
func cancelAfterFirstBlock(t *testing.T, out string) (*matvis.Simulation, *matvis.Observation, string) {
	t.Helper()
	sim, obs, err := (&simInput{path: "example", spec: mustSpec(t)}).build(context.Background(), buildOptions{uvh5: true})
	if err != nil {
		t.Fatal(err)
	}
	w, err := createRows(out, sim, obs)
	if err != nil {
		t.Fatal(err)
	}
	first, err := sim.Subset(matvis.Block{F0: 0, F1: sim.NFreq(), T0: 0, T1: 2})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cpu.New().Run(context.Background(), first)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteTimes(0, res); err != nil {
		t.Fatal(err)
	}
	second, err := sim.Subset(matvis.Block{F0: 0, F1: sim.NFreq(), T0: 2, T1: sim.NTime()})
	if err != nil {
		t.Fatal(err)
	}
	cancelled, _ := cpu.New().Run(context.Background(), second)
	cancelled.Done[0] = false // time 2 lost one channel: not written
	var stderr strings.Builder
	if err := savePartialUVH5(w, out, 2, sim.NTime(), cancelled, context.Canceled, &stderr); !errors.Is(err, context.Canceled) {
		t.Fatalf("savePartialUVH5: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatalf("a cancelled run wrote %s", out)
	}
	return sim, obs, stderr.String()
}

func mustSpec(t *testing.T) *simspec.Spec {
	t.Helper()
	s, err := loadSpec("example")
	if err != nil {
		t.Fatal(err)
	}
	return s
}
