package docs

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/matvis/profile"
)

// The blocks of the Markdown pages that are generated from committed
// profiles sit between "<!-- BEGIN generated: NAME -->" and "<!-- END
// generated: NAME -->"; TestGeneratedBlocks fails when one differs from
// what its generator makes now, and
//
//	go test ./docs/ -run TestGeneratedBlocks -update-docs
//
// rewrites them.
var updateDocs = flag.Bool("update-docs", false, "rewrite the generated blocks of docs/*.md")

// guideProfile is the committed profile the performance guide annotates.
const guideProfile = "bench/profiles/gpu-prodslice.json"

// readProfile reads a committed profile (path from the root) and
// rederives it as gomatvis roofline --from and notebook 03 do.
func readProfile(t *testing.T, path string) *profile.Report {
	t.Helper()
	rep, err := profile.ReadJSON(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	profile.Rederive(rep)
	return rep
}

// generated are the blocks of each page, by name.
func generated(t *testing.T) map[string]map[string]string {
	rep := readProfile(t, guideProfile)
	return map[string]map[string]string{
		"docs/performance.md": {
			"summary": annotatedSummary(t, rep),
			"floor":   floorTable(rep),
		},
	}
}

func TestGeneratedBlocks(t *testing.T) {
	for page, blocks := range generated(t) {
		path := filepath.Join(root, page)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for name, want := range blocks {
			begin, end := "<!-- BEGIN generated: "+name+" -->\n", "<!-- END generated: "+name+" -->"
			i, j := strings.Index(text, begin), strings.Index(text, end)
			if i < 0 || j < i {
				t.Errorf("%s: no block %q (between %q and %q)", page, name, strings.TrimSpace(begin), end)
				continue
			}
			got := text[i+len(begin) : j]
			if got == want {
				continue
			}
			if *updateDocs {
				text = text[:i+len(begin)] + want + text[j:]
				continue
			}
			t.Errorf("%s: block %q is stale (regenerate: go test ./docs/ -run TestGeneratedBlocks -update-docs)", page, name)
		}
		if *updateDocs && text != string(b) {
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// note is one line of the annotated summary: a JSON path into the
// document, and what it means.
type note struct{ path, text string }

// summaryNotes are the fields the guide explains, in the order shown.
var summaryNotes = []note{
	{"schema", "layout version; matvis/profile/summary.schema.json describes every field"},
	{"command", "what ran (GPU: one H200)"},
	{"config.nant", "antennas"},
	{"config.nsrc", "sources, about half above the horizon at any time"},
	{"config.ntimes", "integrations measured (× config.nfreq channels)"},
	{"config.nchunks", "least number of source chunks asked for"},
	{"config.precision", "1: float32, 2: float64"},
	{"matprod", "the Gram product strategy the run chose, and why"},
	{"beam_in_tau_z", "beam interpolation runs inside the τ/Z kernel (one fused stage)"},
	{"timing.warmup_s", "untimed warm-up of the first integration: kernel loading, strategy choice"},
	{"timing.setup_s", "the measured run's set-up (beams, coordinate caches, buffers), part of run_s"},
	{"timing.run_s", "the measured run's wall, call to return"},
	{"stages.matprod", "per chunk (seconds): median, mean, std, n = chunks × integrations"},
	{"stages.tau_z", "per chunk: beam values, phases and Z (fused)"},
	{"stages.total", "per chunk, every stage"},
	{"integrations", "wall per integration: the first pays one-off costs, so mean > median"},
	{"derived.run_wall_per_integration", "THE number: run_s / integrations, set-up and first integration included"},
	{"derived.chunk_time_per_integration", "GPU time per integration (CUDA events), mean over every integration"},
	{"derived.gpu_busy_fraction", "chunk time over the run's wall: 1 − it is the GPU waiting on the host"},
	{"derived.steady_wall_per_integration", "median wall of the integrations after the first: the rate a long run settles at"},
	{"derived.gpu_time_per_integration", "median chunk total × chunks (integrations after the first)"},
	{"derived.gpu_stage_sum_per_integration", "median over integrations after the first of every stage's GPU time"},
	{"derived.host_overhead_per_integration", "steady wall − gpu_time_per_integration: host time between the GPU's work"},
	{"derived.chunks_per_integration", "chunks the memory plan chose"},
	{"derived.floor_measured.per_integration_s", "the least time per integration at the measured roofs"},
	{"derived.floor_measured.fraction_achieved", "floor / steady wall"},
	{"derived.floor_datasheet.per_integration_s", "the least time per integration at the datasheet's roofs"},
	{"derived.floor_datasheet.fraction_achieved", "floor / steady wall"},
	{"memory.plan.total_bytes", "matvis's memory model at the chosen chunking"},
	{"memory.device.used_peak_bytes", "measured: device memory in use at the run's peak"},
	{"machine.gpu", "the device"},
}

// annotatedSummary is the guide's excerpt of rep's summary.json: each
// field of summaryNotes with its value as the file holds it and a comment.
func annotatedSummary(t *testing.T, rep *profile.Report) string {
	t.Helper()
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	fmt.Fprintf(&out, "```jsonc\n// %s (%s), after profile.Rederive; one line per field: path, value, meaning\n", guideProfile, rep.Created.Format("2006-01-02"))
	for _, n := range summaryNotes {
		v, ok := lookup(doc, n.path)
		if !ok {
			t.Errorf("%s: no field %s", guideProfile, n.path)
			continue
		}
		vb, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "%q: %s  // %s\n", n.path, vb, n.text)
	}
	out.WriteString("```\n")
	return out.String()
}

// lookup follows a dotted path through decoded JSON objects.
func lookup(doc map[string]any, path string) (any, bool) {
	var v any = doc
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// floorTable is the guide's table of rep's floors per stage.
func floorTable(rep *profile.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "From %s (%d chunks per integration), per integration:\n\n", guideProfile, rep.Derived.ChunksPerIntegration)
	b.WriteString("| stage | GFLOP | GB moved | roofs | compute roof | FLOPs / roof | bytes / bandwidth | floor | measured | achieved |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, f := range []*profile.Floor{rep.Derived.FloorMeasured, rep.Derived.FloorDatasheet} {
		if f == nil {
			continue
		}
		for _, s := range f.Stages {
			fmt.Fprintf(&b, "| %s | %.4g | %.4g | %s | %s, %.4g TFLOP/s | %.3g ms | %.3g ms | **%.3g ms** (%s) | %.3g ms | %.0f %% |\n",
				s.Stage, s.FLOPs/1e9, s.Bytes/1e9, f.Roofs, s.ComputeRoof, s.ComputeRate/1e12,
				s.ComputeSeconds*1e3, s.MemorySeconds*1e3, s.Seconds*1e3, s.Bound, s.Measured*1e3, 100*s.Fraction)
		}
		fmt.Fprintf(&b, "| **total** | | | %s | bandwidth: %s | | | **%.3g ms** | %.3g ms of stages, %.3g ms steady wall | %.0f %% of the wall |\n",
			f.Roofs, f.BandwidthRoof, f.PerIntegration*1e3, f.StageTime*1e3, rep.Derived.SteadyWallPerIntegration*1e3, 100*f.FractionAchieved)
	}
	return b.String()
}
