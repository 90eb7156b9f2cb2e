package plots

import (
	"bytes"
	"math"
	"math/cmplx"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkFigure checks a figure's labels and series and that it renders to
// non-empty PNG and SVG whose text holds the axis labels.
func checkFigure(t *testing.T, f *Figure, title, xlabel, ylabel string, series map[string]int) {
	t.Helper()
	if !strings.HasPrefix(f.Title.Text, title) {
		t.Errorf("title %q, want prefix %q", f.Title.Text, title)
	}
	if f.X.Label.Text != xlabel || f.Y.Label.Text != ylabel {
		t.Errorf("axes %q / %q, want %q / %q", f.X.Label.Text, f.Y.Label.Text, xlabel, ylabel)
	}
	for kind, n := range series {
		if got := f.Count(kind); got != n {
			t.Errorf("%d %q series, want %d (%+v)", got, kind, n, f.Series)
		}
	}
	png, err := PNG(f)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("PNG: %v (%d bytes)", err, len(png))
	}
	svg, err := SVG(f)
	if err != nil || !strings.Contains(svg, "<svg") {
		t.Fatalf("SVG: %v", err)
	}
	for _, l := range []string{xlabel, ylabel} {
		if l != "" && !strings.Contains(svg, escapeSVG(l)) {
			t.Errorf("SVG lacks the axis label %q", l)
		}
	}
	if pl := f.LegendPlacement(); len(pl.Covers) > 0 {
		t.Errorf("legend box %v covers %v", pl.Rect, pl.Covers)
	}
	if dir := os.Getenv("PLOTS_OUT"); dir != "" { // for a look by eye
		name := strings.NewReplacer(" ", "_", "/", "_").Replace(t.Name())
		if _, err := Save(f, dir, name); err != nil {
			t.Fatal(err)
		}
	}
}

func escapeSVG(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

func TestRoofline(t *testing.T) {
	d := RooflineData{
		Title:     "roofline test",
		Bandwidth: []Ceiling{{"copy", 2e10, true}, {"datasheet", 5e10, false}},
		Compute:   []Ceiling{{"herk", 1e11, true}},
		Points: []RooflinePoint{
			{"coords", 0.3, 1e9}, {"beam", 1, 3e9}, {"tau_z", 2, 8e9}, {"matprod", 50, 9e10},
			{"empty stage", 0, 0}, // not drawable on log axes: left out
		},
	}
	f, err := Roofline(d)
	if err != nil {
		t.Fatal(err)
	}
	checkFigure(t, f, "roofline test", "arithmetic intensity (FLOP/byte)", "performance (FLOP/s)",
		map[string]int{"line": 3, "scatter": 1, "labels": 1})
	if f.Series[3].Points != 4 {
		t.Errorf("stage points %d, want 4", f.Series[3].Points)
	}
	// Each drawable stage at (intensity, FLOP/s), in order.
	checkPoints(t, f, "stages", [][2]float64{{0.3, 1e9}, {1, 3e9}, {2, 8e9}, {50, 9e10}})
	if f.X.Min > 0.03 || f.X.Max < 500 {
		t.Errorf("x range [%g, %g] does not hold the points with a margin", f.X.Min, f.X.Max)
	}
}

func TestStageBreakdown(t *testing.T) {
	d := StageData{
		Title: "stages", Unit: "ms",
		Stages: []string{"coords", "beam", "tau_z", "matprod"},
		Runs: []StageRun{
			{"cpu", []StageBar{{"t0", []float64{1, 2, 3, 4}}, {"t1", []float64{1, 2, 3, 5}}}},
			{"gpu", []StageBar{{"t0", []float64{0.1, 0.2, 0.3, 0.4}}}},
		},
	}
	f, err := StageBreakdown(d)
	if err != nil {
		t.Fatal(err)
	}
	checkFigure(t, f, "stages", "integration", "time (ms)", map[string]int{"bars": 4})
	for _, s := range f.Series {
		if s.Points != 3 {
			t.Errorf("stage %s: %d bars, want 3", s.Name, s.Points)
		}
	}
	// Stacked in ms (the input is in seconds): bar i of stage k spans the
	// sum of stages < k to the sum of stages ≤ k.
	var all [][]float64
	for _, r := range d.Runs {
		for _, b := range r.Bars {
			all = append(all, b.Seconds)
		}
	}
	for k, st := range d.Stages {
		var sh *shape
		for i := range f.shapes {
			if f.shapes[i].series == st && f.shapes[i].kind == bars {
				sh = &f.shapes[i]
			}
		}
		if sh == nil || len(sh.xy) != len(all) {
			t.Fatalf("stage %s: bars %+v", st, sh)
		}
		for i, b := range all {
			var lo float64
			for _, v := range b[:k] {
				lo += v * 1e3
			}
			hi := lo + b[k]*1e3
			if math.Abs(sh.y0[i]-lo) > 1e-9*hi || math.Abs(sh.xy[i].Y-hi) > 1e-9*hi || sh.xy[i].X != float64(i) {
				t.Errorf("stage %s bar %d spans %g … %g ms at x = %g, want %g … %g at %d", st, i, sh.y0[i], sh.xy[i].Y, sh.xy[i].X, lo, hi, i)
			}
		}
	}
	d.Runs[0].Bars[0].Seconds = []float64{1}
	if _, err := StageBreakdown(d); err == nil {
		t.Error("a bar with the wrong number of stages was accepted")
	}
}

func TestMemoryVsChunk(t *testing.T) {
	var pts []MemoryPoint
	for _, spc := range []float64{1e6, 3e5, 1e5, 3e4, 1e4} {
		pts = append(pts, MemoryPoint{spc, []MemoryTerm{
			{"beam_grid", 0.7e9}, {"flux", 4e6}, {"zmat", spc * 5600}, {"vis", 1e6 / spc * 4e6}, {"eq2top", 36},
		}})
	}
	f, err := MemoryVsChunk(MemoryData{Title: "memory", Points: pts, Limit: 2e9, LimitLabel: "device", Floor: "beam_grid"})
	if err != nil {
		t.Fatal(err)
	}
	// beam_grid, zmat, vis, other (flux + eq2top) as areas; limit line; one
	// crossing marker (1e6 and 3e5 sources do not fit, smaller chunks do).
	checkFigure(t, f, "memory", "sources per chunk", "memory (GB)", map[string]int{"area": 4, "line": 1, "marker": 1})
	if !strings.HasPrefix(f.Series[0].Name, "beam_grid") {
		t.Errorf("floor band is %q, want beam_grid first", f.Series[0].Name)
	}
	if f.Y.Max != 6 {
		t.Errorf("y max %g GB, want the 3× limit clip (6)", f.Y.Max)
	}
	// The bands are cumulative, in GB: beam_grid, + zmat, + vis, + the rest.
	bands := map[string]func(spc float64) float64{
		"beam_grid": func(float64) float64 { return 0.7 },
		"zmat":      func(spc float64) float64 { return 0.7 + spc*5600/1e9 },
		"vis":       func(spc float64) float64 { return 0.7 + spc*5600/1e9 + 1e6/spc*4e6/1e9 },
		"other":     func(spc float64) float64 { return 0.7 + spc*5600/1e9 + 1e6/spc*4e6/1e9 + (4e6+36)/1e9 },
	}
	seen := 0
	for _, sh := range f.shapes {
		if sh.kind != area {
			continue
		}
		name := strings.Fields(sh.series)[0]
		fn, ok := bands[name]
		if !ok {
			t.Errorf("unexpected band %q", sh.series)
			continue
		}
		seen++
		for i, p := range sh.xy {
			if want := fn(pts[i].SourcesPerChunk); p.X != pts[i].SourcesPerChunk || math.Abs(p.Y-want) > 1e-12 {
				t.Errorf("band %q point %d at (%g, %g GB), want (%g, %g GB)", sh.series, i, p.X, p.Y, pts[i].SourcesPerChunk, want)
			}
		}
	}
	if seen != len(bands) {
		t.Errorf("%d bands, want %d", seen, len(bands))
	}
}

func TestScaling(t *testing.T) {
	run := []ScalingPoint{{1000, 16, 0.01}, {4000, 16, 0.04}, {16000, 16, 0.17}}
	f, err := Scaling(ScalingData{Title: "scaling", Vary: "nsrc", Runs: map[string][]ScalingPoint{"cpu": run}})
	if err != nil {
		t.Fatal(err)
	}
	checkFigure(t, f, "scaling", "sources N_src", "time per integration (s)", map[string]int{"scatter": 1, "line": 1})
	c := ModelCoefficient(run)
	if want := 0.01 / (1000 * 256.0); math.Abs(c/want-1) > 0.1 {
		t.Errorf("model coefficient %g, want ≈ %g", c, want)
	}
	if _, err := Scaling(ScalingData{Vary: "nfreq"}); err == nil {
		t.Error("vary = nfreq accepted")
	}
}

func TestVisViews(t *testing.T) {
	freqs := []float64{100, 110, 120}
	d := VisData{Title: "vis", X: freqs, XLabel: "frequency (MHz)", Series: []VisSeries{
		{"(0,0)", []complex128{1, 1.1, 1.2}}, {"(0,1)", []complex128{1i, -1, cmplx.Rect(0.5, 2)}},
	}}
	for _, part := range []Part{Amplitude, Phase} {
		f, err := VisLines(d, part)
		if err != nil {
			t.Fatal(err)
		}
		checkFigure(t, f, "vis", "frequency (MHz)", part.label(), map[string]int{"line": 2})
		// The plotted points: amplitude √(re² + im²), phase atan2(im, re)
		// (angle from +re towards +im, in (−π, π]).
		for _, sr := range d.Series {
			want := make([][2]float64, len(sr.V))
			for k, v := range sr.V {
				y := math.Sqrt(real(v)*real(v) + imag(v)*imag(v))
				if part == Phase {
					y = math.Atan2(imag(v), real(v))
				}
				want[k] = [2]float64{freqs[k], y}
			}
			checkPoints(t, f, sr.Name, want)
		}
	}
	w := WaterfallData{Title: "waterfall", X: freqs, Y: []float64{0, 1}, XLabel: "frequency (MHz)", YLabel: "time index",
		V: [][]complex128{{1, 2, 3}, {2, 3, 4i}}}
	f, err := Waterfall(w, Amplitude)
	if err != nil {
		t.Fatal(err)
	}
	checkFigure(t, f, "waterfall", "frequency (MHz)", "time index", map[string]int{"heatmap": 1})
	if f.Series[0].Points != 6 {
		t.Errorf("waterfall cells %d, want 6", f.Series[0].Points)
	}
	// The colour bar spans the values: amplitudes 1 … 4, phases 0 … π/2
	// (of 1, 2, 3 and 4i; a phase drawn negated would span −π/2 … 0).
	for _, tc := range []struct {
		part   Part
		lo, hi float64
	}{{Amplitude, 1, 4}, {Phase, 0, math.Pi / 2}} {
		f, err := Waterfall(w, tc.part)
		if err != nil {
			t.Fatal(err)
		}
		if cb := f.ColorBar; math.Abs(cb.Y.Min-tc.lo) > 1e-12 || math.Abs(cb.Y.Max-tc.hi) > 1e-12 {
			t.Errorf("%s waterfall: colour bar %g … %g, want %g … %g", tc.part.label(), cb.Y.Min, cb.Y.Max, tc.lo, tc.hi)
		}
	}
}

// checkPoints checks the points drawn for a series, in order, against
// (x, y) pairs computed by the test.
func checkPoints(t *testing.T, f *Figure, series string, want [][2]float64) {
	t.Helper()
	for _, sh := range f.shapes {
		if sh.series != series || sh.kind != points {
			continue
		}
		if len(sh.xy) != len(want) {
			t.Fatalf("series %q: %d points drawn, want %d", series, len(sh.xy), len(want))
		}
		for k, w := range want {
			if p := sh.xy[k]; math.Abs(p.X-w[0]) > 1e-12 || math.Abs(p.Y-w[1]) > 1e-12*math.Max(1, math.Abs(w[1])) {
				t.Errorf("series %q point %d drawn at (%g, %g), want (%g, %g)", series, k, p.X, p.Y, w[0], w[1])
			}
		}
		return
	}
	t.Fatalf("series %q: no points drawn", series)
}

func TestSave(t *testing.T) {
	f, err := VisLines(VisData{Title: "t", X: []float64{1, 2}, XLabel: "x", Series: []VisSeries{{"a", []complex128{1, 2}}}}, Amplitude)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	paths, err := Save(f, dir, "fig")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"fig.png", "fig.svg"} {
		st, err := os.Stat(filepath.Join(dir, want))
		if err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", want, err)
		}
	}
	if len(paths) != 2 {
		t.Errorf("paths %v", paths)
	}
}
