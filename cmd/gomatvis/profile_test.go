package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/matvis/multi"
	"github.com/gomatvis/gomatvis/matvis/profile"
)

func TestProfileCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "prof")
	var out, errb bytes.Buffer
	args := []string{"profile", "--preset", "dev", "--backend", "cpu", "--nsrc", "2000", "--nant", "6", "--ntimes", "2", "--scaling=false", "-o", dir}
	if code := run(context.Background(), args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	doc, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := profile.ValidateSummary(doc); err != nil {
		t.Fatal(err)
	}
	rep, err := profile.ReadJSON(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Config.NAnt != 6 || rep.Config.NBeam != 6 || rep.Config.NSrc != 2000 || rep.Config.Preset != "dev" {
		t.Errorf("config %+v: flags did not override the preset", rep.Config)
	}
	// The first result line names the one per-integration figure, the
	// run's wall per integration as summary.json has it; no unlabelled
	// steady / chunk-stage / host-overhead numbers.
	first, _, _ := strings.Cut(out.String(), "\n")
	want := fmt.Sprintf("cpu: run wall per integration %.3g s (host stage time %.3g s, no GPU time); ", rep.Derived.RunWallPerIntegration, rep.Derived.ChunkTimePerIntegration)
	if !strings.HasPrefix(first, want) {
		t.Errorf("first line %q, want it to start with %q", first, want)
	}
	for _, gone := range []string{"steady", "host overhead", "chunk stages"} {
		if strings.Contains(out.String(), gone) {
			t.Errorf("stdout still prints %q:\n%s", gone, out.String())
		}
	}
	// roofline --from re-measures the ceilings and places the stages.
	rdir := filepath.Join(t.TempDir(), "roof")
	out.Reset()
	if code := run(context.Background(), []string{"roofline", "--from", filepath.Join(dir, "summary.json"), "-o", rdir}, &out, &errb); code != 0 {
		t.Fatalf("roofline exit %d: %s", code, errb.String())
	}
	for _, f := range []string{"roofline.png", "roofline.svg", "roofline.json"} {
		if st, err := os.Stat(filepath.Join(rdir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestProfileBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"profile", "--preset", "huge", "-o", t.TempDir()},
		{"profile", "--precision", "3", "-o", t.TempDir()},
		{"profile", "--preset", "dev"},
	} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), args, &out, &errb); code == 0 {
			t.Errorf("%v: exit 0", args)
		}
	}
}

func TestProfileDevices(t *testing.T) {
	for _, c := range []struct {
		name    string
		devices []string // --devices and its value, or nothing
		code    int
		ndev    int // derived.devices
		shares  int // per-device entries
	}{
		{"one backend", nil, 0, 1, 0},
		{"two cpu backends", []string{"--devices", "0,1"}, 0, 2, 2},
		{"two backends, two blocks", []string{"--devices", "0,1", "--blocks", "2"}, 0, 2, 2},
		{"two backends, eight blocks", []string{"--devices", "0,1", "--blocks", "8"}, 0, 2, 2},
		{"one listed device", []string{"--devices", "0"}, 0, 1, 0},
		{"negative blocks", []string{"--devices", "0,1", "--blocks", "-1"}, 2, 0, 0},
		{"repeated device", []string{"--devices", "0,0"}, 2, 0, 0},
		{"not an ordinal", []string{"--devices", "gpu1"}, 2, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "prof")
			args := append([]string{"profile", "--preset", "custom", "--backend", "cpu", "--nsrc", "500", "--nant", "4",
				"--ntimes", "4", "--nfreq", "2", "--roofline=false", "--scaling=false", "-o", dir}, c.devices...)
			var out, errb bytes.Buffer
			if code := run(context.Background(), args, &out, &errb); code != c.code {
				t.Fatalf("exit %d, want %d: %s", code, c.code, errb.String())
			}
			if c.code != 0 {
				return
			}
			doc, err := os.ReadFile(filepath.Join(dir, "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := profile.ValidateSummary(doc); err != nil {
				t.Fatal(err)
			}
			rep, err := profile.ReadJSON(filepath.Join(dir, "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			d := rep.Derived
			if d.Devices != c.ndev || len(rep.Devices) != c.shares {
				t.Errorf("derived.devices %d, %d device entries; want %d, %d", d.Devices, len(rep.Devices), c.ndev, c.shares)
			}
			if want := rep.Timing.Run / 8; math.Abs(d.RunWallPerIntegration-want) > 1e-12 || d.ChunkTimePerIntegration <= 0 || d.Concurrency <= 0 {
				t.Errorf("run wall per integration %g (want %g), stage time %g, concurrency %g", d.RunWallPerIntegration, want, d.ChunkTimePerIntegration, d.Concurrency)
			}
			ints, blocks := 0, 0
			for _, s := range rep.Devices {
				ints += s.Integrations
				blocks += s.Blocks
				if s.Integrations > 0 && (s.BusySeconds <= 0 || s.BusyFraction <= 0 || s.BusyFraction > 1.01) {
					t.Errorf("%s: busy %g s, fraction %g", s.Name, s.BusySeconds, s.BusyFraction)
				}
			}
			wantBlocks := rep.Config.Blocks
			if wantBlocks == 0 {
				wantBlocks = multi.BlocksPerBackend * c.shares
			}
			if c.shares > 0 && (ints != 8 || blocks != wantBlocks) {
				t.Errorf("devices ran %d integrations in %d blocks, want 8 in %d", ints, blocks, wantBlocks)
			}
			if !strings.Contains(out.String(), "measured run: wall") {
				t.Errorf("stdout lacks the measured wall:\n%s", out.String())
			}
		})
	}
}

// TestProfileHeadline: the console's first line from a report's derived
// numbers, named, for one GPU, two GPUs and the CPU.
func TestProfileHeadline(t *testing.T) {
	per := make([]profile.IntegrationSample, 4)
	for _, c := range []struct {
		name    string
		backend string
		devices int
		run     float64 // timing.run_s
		chunk   float64 // derived.chunk_time_per_integration
		want    string
	}{
		{"one gpu", "gpu", 1, 0.0844, 0.0191, "gpu: run wall per integration 0.0211 s (GPU time 0.0191 s, GPU busy 91 %); 350 ants, "},
		{"two gpus", "gpu", 2, 0.0422, 0.0191, "gpu: run wall per integration 0.0106 s over 2 devices (GPU time 0.0191 s summed over the devices, GPU busy 91 %); 350 ants, "},
		{"cpu", "cpu", 1, 0.0844, 0.0191, "cpu: run wall per integration 0.0211 s (host stage time 0.0191 s, no GPU time); 350 ants, "},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep := &profile.Report{Backend: c.backend, PerIntegration: per, Timing: profile.Timing{Run: c.run}}
			rep.Config.NAnt, rep.Config.NSrc = 350, 1000
			rep.Derived = profile.Derived{Devices: c.devices, ChunksPerIntegration: 1, RunWallPerIntegration: c.run / 4, ChunkTimePerIntegration: c.chunk}
			var b bytes.Buffer
			printHeadline(&b, rep, "DIR/summary.json")
			if got := b.String(); !strings.HasPrefix(got, c.want) || !strings.HasSuffix(got, "the rest in DIR/summary.json\n") {
				t.Errorf("%q, want %q… the rest in DIR/summary.json", got, c.want)
			}
		})
	}
}
