package profile

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/internal/runclock"
	"github.com/gomatvis/gomatvis/matvis/cblas"
	"github.com/gomatvis/gomatvis/matvis/cpu"
)

// TestFromRun profiles a run made outside the profiler, as simulate
// --profile does: the summary matches the schema (phases included), its
// stage times are the run's own chunks, the phases come back from the
// JSON as given, and the phases figure is written beside the others.
func TestFromRun(t *testing.T) {
	c, err := Preset("custom")
	if err != nil {
		t.Fatal(err)
	}
	c.NAnt, c.NBeam, c.NSrc, c.NTimes = 6, 2, 2000, 2
	sim, err := Build(c)
	if err != nil {
		t.Fatal(err)
	}
	be := cpu.NewWith(cblas.Best(), 2)
	res, err := be.Run(context.Background(), sim)
	if err != nil {
		t.Fatal(err)
	}
	f := func(x float64) *float64 { return &x }
	ph := runclock.Phases{WallS: 1.5, StartFrom: "process", StartS: f(0.01), InputS: f(0.8), SetupS: f(0.05),
		ComputeS: f(0.4), WriteS: f(0.2), CloseS: f(0.04), PeakRSSBytes: 123 << 20}
	rep := FromRun(sim, &res.Stats, res.Plan, RunInfo{Command: "gomatvis simulate spec.json", Backend: be, Coords: "erfa", Wall: 400 * time.Millisecond, Phases: ph})
	dir, doc := writtenSummary(t, rep)
	if err := ValidateSummary(doc); err != nil {
		t.Fatalf("summary.json does not match the schema: %v", err)
	}
	back, err := ReadJSON(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if back.Phases == nil || back.Phases.String() != ph.String() || back.Phases.PeakRSSBytes != ph.PeakRSSBytes {
		t.Fatalf("phases read back as %+v, want %v", back.Phases, ph)
	}
	if back.Config.NAnt != 6 || back.Config.NSrc != 2000 || back.Config.NTimes != 2 || back.Backend != "cpu" || back.Timing.Run != 0.4 || back.Timing.Build != 0.8 {
		t.Errorf("config %+v, backend %s, timing %+v", back.Config, back.Backend, back.Timing)
	}
	// The stages summarise the run's own chunks: their sum over every
	// chunk is the per-integration samples' sum.
	var chunks, samples float64
	for _, ch := range res.Stats.Chunks {
		chunks += ch.Stages.Total().Seconds()
	}
	for _, in := range back.PerIntegration {
		for _, s := range in.Stages {
			samples += s
		}
	}
	if len(back.PerIntegration) != 2 || math.Abs(chunks-samples) > 1e-9*max(1, chunks) {
		t.Errorf("%d integrations with stages summing to %v s, the chunks %v s", len(back.PerIntegration), samples, chunks)
	}
	for _, name := range []string{"phases.svg", "phases.png", "stages.svg", "memory.svg"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("figure %s: %v", name, err)
		}
	}
	// The visibilities are not held: no visibility figures.
	if _, err := os.Stat(filepath.Join(dir, "waterfall.svg")); err == nil {
		t.Error("a waterfall without the visibilities")
	}
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		t.Fatal(err)
	}
	if p := m["phases"].(map[string]any); p["compute_s"] != 0.4 || p["start_from"] != "process" {
		t.Errorf("phases in JSON: %v", p)
	}
	for _, n := range rep.Notes {
		if strings.Contains(n, "blocks") {
			t.Errorf("a one-block run noted as blocks: %q", n)
		}
	}
	// A run streamed in blocks: said so.
	blocked := FromRun(sim, &res.Stats, res.Plan, RunInfo{Backend: be, Phases: ph, Blocks: 2})
	if !slices.ContainsFunc(blocked.Notes, func(n string) bool { return strings.Contains(n, "streamed in 2 blocks") }) {
		t.Errorf("notes %q: the blocks not said", blocked.Notes)
	}
}

// TestPhasesSchema: the schema checks the phases it describes.
func TestPhasesSchema(t *testing.T) {
	rep := small(t, Options{})
	_, doc := writtenSummary(t, rep)
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m["phases"]; ok {
		t.Fatal("a synthetic profile has phases")
	}
	for _, bad := range []map[string]any{
		{"wall_s": 1.0, "start_from": "yesterday"},
		{"wall_s": -1.0, "start_from": "process"},
		{"start_from": "process"},
		{"wall_s": 1.0, "start_from": "process", "compute_s": -0.5},
	} {
		m["phases"] = bad
		b, _ := json.Marshal(m)
		if err := ValidateSummary(b); err == nil {
			t.Errorf("phases %v passed the schema", bad)
		}
	}
	if _, err := PhaseFigure(rep); err == nil {
		t.Error("a phase figure without phases")
	}
}
