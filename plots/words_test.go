package plots

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestLegendWords: the stage and memory legends say what each thing is,
// matvis's name kept in parentheses; an unknown name stays as it is.
func TestLegendWords(t *testing.T) {
	f, err := StageBreakdown(StageData{Title: "s", Stages: []string{"coords", "matprod", "mystery"},
		Runs: []StageRun{{"cpu", []StageBar{{"t0", []float64{1, 2, 3}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"source positions (coords)", "V = Z Zᴴ, Gram product (matprod)", "mystery"} {
		if !slices.Contains(f.entries, want) {
			t.Errorf("stage legend %q lacks %q", f.entries, want)
		}
	}
	var pts []MemoryPoint
	for _, spc := range []float64{1e5, 1e4} {
		pts = append(pts, MemoryPoint{spc, []MemoryTerm{{"beam_grid", 1e9}, {"exptau", spc * 1e4}, {"zmat", spc * 2e4}}})
	}
	m, err := MemoryVsChunk(MemoryData{Title: "m", Points: pts, Floor: "beam_grid"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"raw beam grids (beam_grid)", "phase factors exp(iτ) (exptau)", "Z matrix (zmat)"} {
		if !slices.Contains(m.entries, want) {
			t.Errorf("memory legend %q lacks %q", m.entries, want)
		}
	}
}

// TestStageLevels: a level is a line across every bar at its value, named
// with it in the legend, and the y axis reaches it even above the bars.
func TestStageLevels(t *testing.T) {
	d := StageData{Title: "s", Unit: "ms", Stages: []string{"beam", "matprod"},
		Runs:   []StageRun{{"gpu", []StageBar{{"t0", []float64{0.001, 0.002}}, {"t1", []float64{0.001, 0.003}}}}},
		Levels: []Level{{"floor at the measured roofs", 0.0025}, {"above the bars", 0.010}}}
	f, err := StageBreakdown(d)
	if err != nil {
		t.Fatal(err)
	}
	checkFigure(t, f, "s", "integration", "time (ms)", map[string]int{"bars": 2, "line": 2})
	for _, want := range []string{"floor at the measured roofs 2.5 ms", "above the bars 10 ms"} {
		if !slices.Contains(f.entries, want) {
			t.Errorf("legend %q lacks %q", f.entries, want)
		}
	}
	var lines int
	for _, sh := range f.shapes {
		if sh.kind != polyline || !strings.Contains(sh.series, "ms") {
			continue
		}
		lines++
		// From the left edge of the first bar to the right of the last
		// (bars at x = 0 and 1), at the level's value in ms.
		if len(sh.xy) != 2 || sh.xy[0].X != -0.5 || sh.xy[1].X != 1.5 || sh.xy[0].Y != sh.xy[1].Y {
			t.Errorf("level %q at %v, want a horizontal line over x ∈ [-0.5, 1.5]", sh.series, sh.xy)
		}
	}
	if lines != 2 {
		t.Errorf("%d level lines, want 2", lines)
	}
	if f.Y.Max < 10 {
		t.Errorf("y max %g ms is below the 10 ms level", f.Y.Max)
	}
	d.Levels = []Level{{"zero", 0}}
	if _, err := StageBreakdown(d); err == nil || !strings.Contains(err.Error(), "zero") {
		t.Errorf("a zero level: %v, want an error naming it", err)
	}
}

// TestFitMarkersDiffer: where the total crosses the limit twice (too much
// memory for small chunks and for large ones), the two markers are named
// apart in the legend and drawn in different dash patterns and colours.
func TestFitMarkersDiffer(t *testing.T) {
	var pts []MemoryPoint
	for _, spc := range []float64{1e6, 1e5, 1e4, 1e3, 1e2} {
		// Z grows with the chunk, the accumulators with the chunk count.
		pts = append(pts, MemoryPoint{spc, []MemoryTerm{{"beam_grid", 0.5e9}, {"zmat", spc * 1e4}, {"vis", 1e6 / spc * 1e7}}})
	}
	f, err := MemoryVsChunk(MemoryData{Title: "m", Points: pts, Limit: 3e9, Floor: "beam_grid"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range f.entries {
		if strings.HasPrefix(e, "fits ") {
			names = append(names, e)
		}
	}
	if len(names) != 2 || !strings.HasPrefix(names[0], "fits ") || names[0][:12] == names[1][:12] {
		t.Fatalf("fit markers %q, want a \"fits up to\" and a \"fits down to\"", names)
	}
	svg, err := SVG(f)
	if err != nil {
		t.Fatal(err)
	}
	dashes := map[string]bool{}
	for _, m := range regexp.MustCompile(`stroke-dasharray:[^;"]+`).FindAllString(svg, -1) {
		dashes[m] = true
	}
	if len(dashes) < 2 {
		t.Errorf("the markers share one dash pattern: %v", dashes)
	}
	if markerColors[0] == markerColors[1] {
		t.Error("the markers share one colour")
	}
}
