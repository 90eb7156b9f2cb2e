package profile

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/matvis"
)

// handMade is a run of nf × nt integrations of two chunks each: every
// chunk 1 ms of tau_z and 3 ms of matprod, chunk 0 also 2 ms of coords,
// so 10 ms of stage time per integration; the first integration's wall
// is 20 ms, the others 11 ms.
func handMade(backend string, devices, nf, nt int) *matvis.Result {
	ms := time.Millisecond
	res := &matvis.Result{Shape: []int{nf, nt, 3}, Done: make([]bool, nf*nt), Plan: matvis.MemoryPlan{NChunks: 2}}
	st := &res.Stats
	st.Backend = backend
	for i := range nf * nt {
		f, ti := i/nt, i%nt
		w := 11 * ms
		if i == 0 {
			w = 20 * ms
		}
		st.Integrations = append(st.Integrations, w)
		for c := range 2 {
			var s matvis.StageTimes
			s[matvis.StageTauZ], s[matvis.StageMatProd] = 1*ms, 3*ms
			if c == 0 {
				s[matvis.StageCoords] = 2 * ms
			}
			st.Chunks = append(st.Chunks, matvis.ChunkSample{Freq: f, Time: ti, Chunk: c, Stages: s})
		}
	}
	if devices > 1 {
		st.Backends = make([]matvis.BackendStats, devices)
	}
	return res
}

func ptr(x float64) *float64 { return &x }

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestDerivedRunWallAndBusy(t *testing.T) {
	for _, c := range []struct {
		name        string
		backend     string
		devices     int
		run         float64 // Timing.Run, s
		runWall     float64 // want run_wall_per_integration
		busy        *float64
		concurrency float64
		line        string
	}{
		// 4 integrations × 10 ms of GPU time over a 50 ms wall.
		{"one gpu", "gpu", 1, 0.050, 0.0125, ptr(0.8), 0.8,
			"run wall per integration 0.0125 s (GPU time 0.01 s, GPU busy 80 %)"},
		// A wall with a long set-up: 40 ms of GPU time in 100 ms.
		{"one gpu, long set-up", "gpu", 1, 0.100, 0.025, ptr(0.4), 0.4,
			"run wall per integration 0.025 s (GPU time 0.01 s, GPU busy 40 %)"},
		// Two devices: 40 ms of GPU time in 25 ms of wall, each 80 % busy.
		{"two gpus", "gpu×2", 2, 0.025, 0.00625, ptr(0.8), 1.6,
			"run wall per integration 0.00625 s over 2 devices (GPU time 0.01 s summed over the devices, GPU busy 80 %)"},
		{"cpu", "cpu", 1, 0.050, 0.0125, nil, 0.8,
			"run wall per integration 0.0125 s (host stage time 0.01 s, no GPU time)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := handMade(c.backend, c.devices, 2, 2)
			rep := &Report{Backend: strings.SplitN(c.backend, "×", 2)[0], Timing: Timing{Run: c.run}}
			summarizeStats(rep, res)
			d := rep.Derived
			if !near(d.RunWallPerIntegration, c.runWall) || !near(d.ChunkTimePerIntegration, 0.010) || !near(d.Concurrency, c.concurrency) || d.Devices != c.devices {
				t.Errorf("run wall %g (want %g), chunk time %g (want 0.01), concurrency %g (want %g), devices %d (want %d)",
					d.RunWallPerIntegration, c.runWall, d.ChunkTimePerIntegration, d.Concurrency, c.concurrency, d.Devices, c.devices)
			}
			switch {
			case (d.GPUBusyFraction == nil) != (c.busy == nil):
				t.Errorf("gpu_busy_fraction %v, want %v", d.GPUBusyFraction, c.busy)
			case c.busy != nil && !near(*d.GPUBusyFraction, *c.busy):
				t.Errorf("gpu_busy_fraction %g, want %g", *d.GPUBusyFraction, *c.busy)
			}
			// The steady median and the chunk median keep their meaning:
			// 11 ms, 5 ms × 2 chunks, 1 ms outside the stages.
			if !near(d.SteadyWallPerIntegration, 0.011) || !near(d.ChunkTotalMedian, 0.005) || !near(d.HostOverheadPerIntegration, 0.001) {
				t.Errorf("steady %g, chunk median %g, host overhead %g; want 0.011, 0.005, 0.001", d.SteadyWallPerIntegration, d.ChunkTotalMedian, d.HostOverheadPerIntegration)
			}
			if got := rep.Headline().String(); got != c.line {
				t.Errorf("headline %q, want %q", got, c.line)
			}
			// FiguresOf on the Stats gives the same line (simulate's).
			if got := FiguresOf(&res.Stats, c.run, 4).String(); got != c.line {
				t.Errorf("FiguresOf %q, want %q", got, c.line)
			}
			// A report read back from JSON gives the same headline, and
			// Rederive restores a busy fraction an older summary lacks.
			doc, err := json.Marshal(rep)
			if err != nil {
				t.Fatal(err)
			}
			var back Report
			if err := json.Unmarshal(doc, &back); err != nil {
				t.Fatal(err)
			}
			if got := back.Headline().String(); got != c.line {
				t.Errorf("headline after JSON %q, want %q", got, c.line)
			}
			back.Derived.GPUBusyFraction = nil
			Rederive(&back)
			if (back.Derived.GPUBusyFraction == nil) != (c.busy == nil) || c.busy != nil && !near(*back.Derived.GPUBusyFraction, *c.busy) {
				t.Errorf("rederived gpu_busy_fraction %v, want %v", back.Derived.GPUBusyFraction, c.busy)
			}
		})
	}
}

func TestRunFiguresEdges(t *testing.T) {
	for _, c := range []struct {
		name   string
		f      RunFigures
		busyOK bool
		want   string
	}{
		{"no integrations", RunFigures{Backend: "gpu", Wall: 1}, true, "run wall per integration 0 s (GPU time 0 s, GPU busy 0 %)"},
		{"zero wall", RunFigures{Backend: "gpu", Integrations: 2, ChunkTime: 1}, false, "run wall per integration 0 s (GPU time 0.5 s)"},
		{"cpu", RunFigures{Backend: "cpu", Integrations: 2, Wall: 1, ChunkTime: 1}, false, "run wall per integration 0.5 s (host stage time 0.5 s, no GPU time)"},
		{"two cpus", RunFigures{Backend: "cpu×2", Integrations: 2, Devices: 2, Wall: 1, ChunkTime: 1.5}, false,
			"run wall per integration 0.5 s over 2 devices (host stage time 0.75 s summed over the devices, no GPU time)"},
		{"two gpus, one idle", RunFigures{Backend: "gpu×2", Integrations: 4, Devices: 2, Wall: 1, ChunkTime: 0.9}, true,
			"run wall per integration 0.25 s over 2 devices (GPU time 0.225 s summed over the devices, GPU busy 45 %)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, ok := c.f.BusyFraction(); ok != c.busyOK {
				t.Errorf("busy fraction ok %v, want %v", ok, c.busyOK)
			}
			if got := c.f.String(); got != c.want {
				t.Errorf("%q, want %q", got, c.want)
			}
		})
	}
}

// TestSummarySchemaBusyFraction: a measured summary.json with the GPU
// figures of a hand-made run in place of its CPU ones still matches the
// schema; a negative or non-numeric busy fraction or a negative run wall
// does not.
func TestSummarySchemaBusyFraction(t *testing.T) {
	rep := small(t, Options{})
	_, doc := writtenSummary(t, rep)
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		t.Fatal(err)
	}
	if b, ok := m["derived"].(map[string]any)["gpu_busy_fraction"]; !ok || b != nil {
		t.Errorf("CPU gpu_busy_fraction %v (present %v), want null", b, ok)
	}
	gpu := &Report{Backend: "gpu", Timing: Timing{Run: 0.05}}
	summarizeStats(gpu, handMade("gpu", 1, 2, 2))
	for _, c := range []struct {
		name string
		edit func(d map[string]any)
		ok   bool
	}{
		{"gpu figures", func(map[string]any) {}, true},
		{"negative busy fraction", func(d map[string]any) { d["gpu_busy_fraction"] = -0.1 }, false},
		{"busy fraction a string", func(d map[string]any) { d["gpu_busy_fraction"] = "90 %" }, false},
		// Optional, so that the committed summaries of earlier versions
		// (bench/profiles, TestCommittedSummaries) stay valid.
		{"no busy fraction, an earlier summary", func(d map[string]any) { delete(d, "gpu_busy_fraction") }, true},
		{"negative run wall", func(d map[string]any) { d["run_wall_per_integration"] = -0.01 }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			raw, _ := json.Marshal(gpu.Derived)
			var d map[string]any
			if err := json.Unmarshal(raw, &d); err != nil {
				t.Fatal(err)
			}
			if b, _ := d["gpu_busy_fraction"].(float64); !near(b, 0.8) {
				t.Fatalf("hand-made gpu_busy_fraction %v, want 0.8", d["gpu_busy_fraction"])
			}
			c.edit(d)
			m["derived"] = d
			out, _ := json.Marshal(m)
			if err := ValidateSummary(out); (err == nil) != c.ok {
				t.Errorf("validation error %v, want ok %v", err, c.ok)
			}
		})
	}
}

// TestRederiveCommittedBusy: Rederive gives the committed GPU summaries,
// written before gpu_busy_fraction, their busy fraction (one device:
// concurrency), and leaves it null on the CPU and where no GPU time was
// recorded.
func TestRederiveCommittedBusy(t *testing.T) {
	for _, c := range []struct {
		file string
		busy bool
	}{
		{"gpu-prodslice.json", true},
		{"gpu-dev.json", true},
		{"cpu-dev-20k.json", false},
		{"cpu-prodslice.json", false},
	} {
		t.Run(c.file, func(t *testing.T) {
			rep, err := ReadJSON(filepath.Join("../../bench/profiles", c.file))
			if errors.Is(err, os.ErrNotExist) {
				t.Skip(err)
			}
			if err != nil {
				t.Fatal(err)
			}
			Rederive(rep)
			b := rep.Derived.GPUBusyFraction
			switch {
			case (b != nil) != c.busy:
				t.Errorf("gpu_busy_fraction %v, want set %v", b, c.busy)
			case b != nil && (!near(*b, rep.Derived.Concurrency) || *b <= 0 || *b > 1):
				t.Errorf("gpu_busy_fraction %g, want the concurrency %g in (0, 1]", *b, rep.Derived.Concurrency)
			}
		})
	}
}
