package plots

import (
	"math"
	"math/cmplx"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// memoryCurve is a prodslice-like memory model: a flat beam floor, terms
// growing with the chunk and one shrinking with it (the sum over chunks).
func memoryCurve() []MemoryPoint {
	var pts []MemoryPoint
	for spc := 1e3; spc <= 1.01e6; spc *= 1.5 {
		pts = append(pts, MemoryPoint{spc, []MemoryTerm{
			{"beam_grid", 0.7e9}, {"exptau", spc * 2800}, {"beam_interp", spc * 11200},
			{"zmat", spc * 11200}, {"vis", 1e6 / spc * 4e6}, {"flux", 4e6}, {"eq2top", 36},
		}})
	}
	return pts
}

// figureCases builds every figure function of the package with
// representative data.
func figureCases(t *testing.T) map[string]*Figure {
	t.Helper()
	figs := map[string]*Figure{}
	add := func(f *Figure, err error) {
		if err != nil {
			t.Fatal(err)
		}
		figs[f.Title.Text+" / "+f.Y.Label.Text] = f
	}
	heap := []MeasuredMemory{{"measured peak Go heap", 33334, 1.1e9}}
	add(MemoryVsChunk(MemoryData{Title: "memory, limit inside", Points: memoryCurve(), Limit: 23.6e9, LimitLabel: "host memory available", Floor: "beam_grid", Measured: heap}))
	add(MemoryVsChunk(MemoryData{Title: "memory, limit off the scale", Points: memoryCurve(), Limit: 149e9, LimitLabel: "device memory free", Floor: "beam_grid",
		Measured: []MeasuredMemory{{"device used", 200000, 1.1e9}, {"allocated", 200000, 0.3e9}}}))
	add(MemoryVsChunk(MemoryData{Title: "memory, clipped", Points: memoryCurve(), Limit: 4e9, Floor: "beam_grid"}))
	add(Roofline(RooflineData{Title: "roofline cpu", Bandwidth: []Ceiling{{"memory copy", 2.3e10, true}}, Compute: []Ceiling{{"cherk M=700 K=33368", 2.5e11, true}},
		Points: []RooflinePoint{{"coords", 0.57, 3.7e8}, {"beam", 3.35, 8.6e9}, {"tau_z", 0.35, 1.8e9}, {"matprod", 336, 1.7e11}}}))
	add(Roofline(RooflineData{Title: "roofline gpu", Bandwidth: []Ceiling{{"device copy", 4.1e12, true}, {"H200 HBM3e (datasheet)", 4.8e12, false}},
		Compute: []Ceiling{{"zherk M=700 K=33358", 4.9e13, true}, {"H200 (datasheet)", 6.7e13, false}},
		Points:  []RooflinePoint{{"coords", 0.52, 4.2e10}, {"beam+tau_z", 3.8, 7.9e12}, {"matprod", 168, 5.4e13}}, AboveRoof: "why"}))
	stages := []string{"coords", "beam", "tau_z", "matprod"}
	add(StageBreakdown(StageData{Title: "stages, one run", Unit: "ms", Stages: stages, Runs: []StageRun{{"cpu", []StageBar{
		{"t0", []float64{1e-3, 0.18, 0.11, 0.39}}, {"t1", []float64{1e-3, 0.18, 0.11, 0.40}}}}}}))
	add(StageBreakdown(StageData{Title: "stages, many bars", Stages: stages, Runs: []StageRun{
		{"a", manyBars(10, 1)}, {"b", manyBars(10, 0.5)}}}))
	add(Comparison(CompareData{Title: "comparison", Unit: "ms", Stages: []string{"beam", "tau_z", "matprod", "beam+tau_z+matprod (fused)", "coords"},
		Bars: []StageBar{{"matvis", []float64{1.6e-3, 0.46e-3, 18.3e-3, 0, 0}}, {"gomatvis", []float64{0, 0, 0, 0.469e-3, 0.093e-3}}}}))
	run := []ScalingPoint{{1000, 64, 0.001}, {4000, 64, 0.004}, {16000, 64, 0.017}, {64000, 64, 0.07}}
	add(Scaling(ScalingData{Title: "scaling", Vary: "nsrc", Runs: map[string][]ScalingPoint{"cpu": run}}))
	ants := []ScalingPoint{{20000, 16, 0.001}, {20000, 32, 0.004}, {20000, 64, 0.015}, {20000, 128, 0.07}}
	add(Scaling(ScalingData{Title: "scaling nant", Vary: "nant", Runs: map[string][]ScalingPoint{"cpu": ants, "gpu": ants[:2]}}))
	add(Lines(LinesData{Title: "beam cuts", XLabel: "zenith angle (degrees)", YLabel: "power (dB)", YMin: -60, YMax: 0, Series: []LineSeries{
		{"east", []float64{0, 10, 20, 45, 90}, []float64{0, -3, -12, -30, -60}, false},
		{"north", []float64{0, 10, 20, 45, 90}, []float64{0, -3.5, -14, -35, -60}, true}}}))
	add(Lines(LinesData{Title: "chunks", XLabel: "memory budget (GB)", YLabel: "chunks", LogX: true, Series: []LineSeries{
		{"source_buffer = 1", []float64{4, 16, 64, 256}, []float64{120, 30, 8, 2}, false}}}))
	x, vis := sweep()
	add(VisLines(vis, Amplitude))
	add(VisLines(vis, Phase))
	w := WaterfallData{Title: "waterfall", X: x[:5], Y: []float64{0, 1, 2}, XLabel: "antenna j", YLabel: "time index",
		V: [][]complex128{vis.Series[0].V[:5], vis.Series[1].V[:5], vis.Series[2].V[:5]}}
	add(Waterfall(w, Amplitude))
	return figs
}

func manyBars(n int, s float64) []StageBar {
	var out []StageBar
	for i := range n {
		out = append(out, StageBar{string(rune('a' + i)), []float64{s * 0.01, s * 0.2, s * 0.1, s * (0.4 + 0.01*float64(i))}})
	}
	return out
}

// sweep is three baselines' visibilities over 40 times: fringes that wrap
// in phase several times.
func sweep() ([]float64, VisData) {
	d := VisData{Title: "fringes", XLabel: "time (s)"}
	for k := range 40 {
		d.X = append(d.X, float64(k)*30)
	}
	for b := 1; b <= 3; b++ {
		s := VisSeries{Name: "(0," + string(rune('0'+b)) + ") xx"}
		for k := range d.X {
			s.V = append(s.V, cmplx.Rect(1+0.3*math.Sin(float64(k)/7)*float64(b), 0.4*float64(b*k)))
		}
		d.Series = append(d.Series, s)
	}
	return d.X, d
}

// TestLegendsClearOfData draws every figure function's output and fails
// when a legend box meets a series, a line, a bar, a label or a heat map,
// or leaves the canvas.
func TestLegendsClearOfData(t *testing.T) {
	for name, f := range figureCases(t) {
		t.Run(name, func(t *testing.T) {
			pl := f.LegendPlacement()
			if len(pl.Covers) > 0 {
				t.Errorf("legend %v covers %v", pl.Rect, pl.Covers)
			}
			if len(f.entries) == 0 {
				return
			}
			r := pl.Rect
			if r.Min.X < 0 || r.Min.Y < 0 || r.Max.X > pl.W || r.Max.Y > pl.H {
				t.Errorf("legend %v outside the %v × %v canvas", r, pl.W, pl.H)
			}
			if !pl.Outside && (r.Min.X < pl.Data.Min.X || r.Max.X > pl.Data.Max.X || r.Min.Y < pl.Data.Min.Y || r.Max.Y > pl.Data.Max.Y) {
				t.Errorf("inside legend %v leaves the data area %v", r, pl.Data)
			}
			if pl.Outside && r.Min.X < pl.Data.Max.X {
				t.Errorf("outside legend %v starts left of the data area's edge %v", r, pl.Data.Max.X)
			}
			checkFigure(t, f, f.Title.Text, f.X.Label.Text, f.Y.Label.Text, nil)
		})
	}
}

// TestOverlapDetected checks that the overlap test sees what it must: a
// diagonal line through the data area meets the top-right and bottom-left
// corners, so the legend goes top left; with lines along all four edges
// it goes outside.
func TestOverlapDetected(t *testing.T) {
	diag := plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}}
	f, err := VisLines(VisData{Title: "diagonal", X: []float64{0, 1}, XLabel: "x",
		Series: []VisSeries{{"a", []complex128{0, 1}}}}, Amplitude)
	if err != nil {
		t.Fatal(err)
	}
	f.X.Min, f.X.Max, f.Y.Min, f.Y.Max = 0, 1, 0, 1
	pl := f.LegendPlacement()
	if pl.Outside || !pl.Top || !pl.Left {
		t.Errorf("diagonal: placement %+v, want top left", pl)
	}
	dc := f.Plot.DataCanvas(f.mainCanvas())
	w, h := legendSize(&f.Plot.Legend, f.entries)
	for _, k := range []corner{{true, false}, {false, true}} {
		if cov := f.overlaps(dc, legendRect(dc, w, h, k)); len(cov) == 0 {
			t.Errorf("corner %+v: the diagonal %v was not detected", k, diag)
		}
	}
	for _, edge := range []plotter.XYs{{{X: 0, Y: 0.98}, {X: 1, Y: 0.98}}, {{X: 0, Y: 0.02}, {X: 1, Y: 0.02}}} {
		f.lineShape("edge", edge)
	}
	if pl := f.LegendPlacement(); !pl.Outside || len(pl.Covers) > 0 {
		t.Errorf("lines along the top and bottom: placement %+v, want outside and clear", pl)
	}
	// Areas: everything under the curve is covered.
	f.addShape(shape{series: "area", kind: area, xy: plotter.XYs{{X: 0, Y: 0.5}, {X: 1, Y: 0.5}}})
	r := legendRect(dc, vg.Points(10), vg.Points(10), corner{false, true})
	if cov := f.overlaps(dc, r); !strings.Contains(strings.Join(cov, ","), "area") {
		t.Errorf("bottom-left box under an area: covers %v, want the area", cov)
	}
}

func TestTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi  float64
		integer bool
		want    []string
	}{
		{0, 15, false, []string{"0", "5", "10", "15"}},
		{0, 25000, false, []string{"0", "5000", "10\u2009000", "15\u2009000", "20\u2009000", "25\u2009000"}},
		{2, 13, false, []string{"2.5", "5", "7.5", "10", "12.5"}},
		{-0.5, 2.5, true, []string{"0", "1", "2"}},
		{0, 0.012, false, []string{"0", "0.0025", "0.005", "0.0075", "0.01"}},
	} {
		var got []string
		for _, tk := range (linearTicks{Integer: tc.integer}).Ticks(tc.lo, tc.hi) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("ticks [%g, %g] integer %v: %q, want %q", tc.lo, tc.hi, tc.integer, got, tc.want)
		}
	}
	for v, want := range map[float64]string{1e3: "1k", 2e6: "2M", 5e13: "50T", 0.5: "0.5", 1e-3: "1m", 100: "100"} {
		if got := siLabel(v); got != want {
			t.Errorf("siLabel(%g) = %q, want %q", v, got, want)
		}
	}
}

func TestPhaseWraps(t *testing.T) {
	x, d := sweep()
	f, err := VisLines(d, Phase)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range f.shapes {
		if s.kind != polyline {
			continue
		}
		for i := 1; i < len(s.xy); i++ {
			if math.Abs(s.xy[i].Y-s.xy[i-1].Y) > math.Pi {
				t.Fatalf("%s: a line crosses the wrap between x = %g and %g", s.series, s.xy[i-1].X, s.xy[i].X)
			}
		}
	}
	if n := len(f.shapes); n <= 2*len(d.Series) {
		t.Errorf("%d shapes for %d series over %d points: the wraps were not broken", n, len(d.Series), len(x))
	}
}

func TestWaterfallColorBar(t *testing.T) {
	f := byTitle(t, "waterfall")
	if f.ColorBar == nil {
		t.Fatal("no colour bar")
	}
	if f.ColorBar.Y.Min >= f.ColorBar.Y.Max {
		t.Errorf("colour bar range [%g, %g]", f.ColorBar.Y.Min, f.ColorBar.Y.Max)
	}
	for _, tk := range f.Y.Tick.Marker.Ticks(-0.5, 2.5) {
		if tk.Value != math.Trunc(tk.Value) {
			t.Errorf("time tick at %g: not an integer", tk.Value)
		}
	}
	if pl := f.LegendPlacement(); pl.W <= Width {
		t.Errorf("canvas width %v leaves no room for the colour bar", pl.W)
	}
}

func TestComparison(t *testing.T) {
	f := byTitle(t, "comparison")
	if f.Count("labels") != 1 || f.Count("bars") != 5 {
		t.Errorf("series %+v", f.Series)
	}
	var text string
	for _, s := range f.shapes {
		if s.kind == labels {
			text = strings.Join(s.labels, "|")
		}
	}
	// 20.36 ms against 0.562 ms.
	if !strings.Contains(text, "36.2× faster") {
		t.Errorf("labels %q lack the ratio", text)
	}
	if _, err := Comparison(CompareData{Bars: []StageBar{{"one", []float64{1}}}, Stages: []string{"a"}}); err == nil {
		t.Error("one bar accepted")
	}
}

// byTitle is the figure of figureCases whose title starts with title.
func byTitle(t *testing.T, title string) *Figure {
	t.Helper()
	for _, f := range figureCases(t) {
		if strings.HasPrefix(f.Title.Text, title) {
			return f
		}
	}
	t.Fatalf("no figure %q", title)
	return nil
}

func TestLinesErrors(t *testing.T) {
	for _, d := range []LinesData{
		{Series: []LineSeries{{"a", []float64{1, 2}, []float64{1}, false}}},
		{LogX: true, Series: []LineSeries{{"a", []float64{0, 1}, []float64{1, 2}, false}}},
	} {
		if _, err := Lines(d); err == nil {
			t.Errorf("%+v accepted", d)
		}
	}
}
