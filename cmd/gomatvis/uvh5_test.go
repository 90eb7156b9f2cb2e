package main

import (
	"context"
	"encoding/json"
	"fmt"
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
	"github.com/gomatvis/gomatvis/npy"
	"github.com/gomatvis/gomatvis/uvh5"
)

// realReaders returns /usr/bin/python3 (with h5py) and h5dump, the HDF5
// library's own reader, or skips: CI installs both (scripts/test.sh).
func realReaders(t *testing.T) (py, h5dump string) {
	t.Helper()
	py = sharedtest.Python(t, "h5py", "python3-h5py")
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

// TestOutputsStreamBlocks: an output that does not fit in
// max_memory_bytes is written block by block, as npy and as UVH5, equal
// to the same run with room for everything (npy used to be refused).
func TestOutputsStreamBlocks(t *testing.T) {
	dir := t.TempDir()
	roomy := writeSpec(t, t.TempDir(), nil, "")
	// The example's other host terms take 68 kB and its output 27 kB per
	// time (6 times): 0.9 × 130 kB holds two blocks of a few channels.
	tight := writeSpec(t, dir, func(m map[string]any) {
		m["options"] = map[string]any{"max_memory_bytes": 1.3e5}
	}, "")
	for _, ext := range []string{".uvh5", ".npy"} {
		whole := filepath.Join(dir, "whole"+ext)
		if code, _, stderr := runCLI(t, "simulate", roomy, "-o", whole, "-q", "--backend", "cpu"); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		blocks := filepath.Join(dir, "blocks"+ext)
		code, _, stderr := runCLI(t, "simulate", tight, "-o", blocks, "-q", "--backend", "cpu")
		if code != 0 || !strings.Contains(stderr, "blocks of up to") {
			t.Fatalf("%s output over the budget: exit %d, %s", ext, code, stderr)
		}
		a, b := readVis(t, whole), readVis(t, blocks)
		if len(a) != len(b) || len(a) == 0 {
			t.Fatalf("%s: %d and %d visibilities", ext, len(a), len(b))
		}
		var peak, worst float64
		for i, v := range a {
			peak = max(peak, cmplx.Abs(v))
			worst = max(worst, cmplx.Abs(b[i]-v))
		}
		// More source chunks under the tight budget sum in another order.
		if worst > 1e-12*peak {
			t.Errorf("%s: blocks vs whole: max|ΔV| = %.3g of peak %.3g", ext, worst, peak)
		}
	}
}

// readVis reads the visibilities of a UVH5 or .npy output.
func readVis(t *testing.T, path string) []complex128 {
	t.Helper()
	if strings.HasSuffix(path, ".npy") {
		a, err := npy.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return a.AsComplex128()
	}
	f, err := uvh5.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return f.Vis
}

// TestUVH5PartialOnCancel: a UVH5 run cancelled in its second block
// leaves OUT.partial.uvh5 with the finished integrations and the rest
// flagged, and no OUT.uvh5.
func TestUVH5PartialOnCancel(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.uvh5")
	sim, obs, kept := cancelAfterFirstBlock(t, out)
	f, err := uvh5.ReadFile(partialPath(out))
	if err != nil {
		t.Fatal(err)
	}
	nbl, np := len(obs.Baselines), len(obs.Pols)
	per := sim.NFreq() * np
	for row := range f.Counts.Nblts {
		ti := row / nbl
		for k := row * per; k < (row+1)*per; k++ {
			// Times 0, 1 from the first block; of the second, all but
			// time 2's first channel.
			wantFlag := ti == 2 && (k-row*per)/np == 0
			if f.Flags[k] != wantFlag || (f.Nsamples[k] == 0) != wantFlag {
				t.Fatalf("row %d (time %d) value %d: flag %v nsamples %v, want flagged=%v", row, ti, k-row*per, f.Flags[k], f.Nsamples[k], wantFlag)
			}
		}
	}
	want := fmt.Sprintf("5 of 6 times finished (%d of %d integrations), saved to %s (the others flagged)", 6*sim.NFreq()-1, 6*sim.NFreq(), partialPath(out))
	if kept != want {
		t.Errorf("kept: %q, want %q", kept, want)
	}
}

// cancelAfterFirstBlock streams the example spec's run into out's writer
// (UVH5 or UVFITS, by out's extension) as a run cancelled in its second
// block does: times 0 and 1 written whole from the first block, then the
// second block's result with time 2's first channel unfinished, and
// ClosePartial, which must leave nothing at out. It returns the run and
// what ClosePartial said it kept.
func cancelAfterFirstBlock(t *testing.T, out string) (*matvis.Simulation, *matvis.Observation, string) {
	t.Helper()
	sim, obs, err := (&simInput{path: "example", spec: mustSpec(t)}).build(context.Background(), buildOptions{uvh5: true})
	if err != nil {
		t.Fatal(err)
	}
	if sim.NTime() != 6 {
		t.Fatalf("the example has %d times; the test expects 6", sim.NTime())
	}
	var stderr strings.Builder
	w, err := openOutput(out, sim, obs, phasing{}, &stderr, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []matvis.Block{{F0: 0, F1: sim.NFreq(), T0: 0, T1: 2}, {F0: 0, F1: sim.NFreq(), T0: 2, T1: sim.NTime()}} {
		sub, err := sim.Subset(b)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cpu.New().Run(context.Background(), sub)
		if err != nil {
			t.Fatal(err)
		}
		if b.T0 == 2 {
			res.Done[0] = false // time 2 lost one channel: flagged
		}
		if err := w.WriteBlock(b, res); err != nil {
			t.Fatal(err)
		}
	}
	kept, err := w.ClosePartial()
	if err != nil {
		t.Fatalf("ClosePartial: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatalf("a cancelled run wrote %s", out)
	}
	return sim, obs, kept.String()
}

func mustSpec(t *testing.T) *simspec.Spec {
	t.Helper()
	s, err := loadSpec("example")
	if err != nil {
		t.Fatal(err)
	}
	return s
}
