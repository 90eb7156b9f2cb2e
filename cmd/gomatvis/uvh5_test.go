package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/cpu"
	"github.com/gomatvis/gomatvis/matvis/uvdata"
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
	in, err := loadInput(args[0])
	if err != nil {
		t.Fatal(err)
	}
	bo := buildOptions{uvh5: true}
	if len(args) == 3 {
		bo.eopPath = args[2]
	}
	sim, obs, err := in.build(bo)
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
