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

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/cblas"
	"github.com/gomatvis/gomatvis/matvis/cpu"
	"github.com/gomatvis/gomatvis/matvis/nufftcpu"
)

// small is a quick profile: 8 antennas, gridded beams, 3 times.
func small(t *testing.T, o Options) *Report {
	t.Helper()
	c, err := Preset("custom")
	if err != nil {
		t.Fatal(err)
	}
	c.NAnt, c.NBeam, c.NSrc, c.NTimes = 8, 8, 3000, 3
	o.Backend = cpu.NewWith(cblas.Best(), 2)
	rep, err := Run(context.Background(), c, o)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// writtenSummary writes rep's directory (WriteDir, figures included)
// into a temporary directory and returns it and its summary.json.
func writtenSummary(t *testing.T, rep *Report) (dir string, doc []byte) {
	t.Helper()
	dir = t.TempDir()
	if err := WriteDir(rep, dir); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	return dir, doc
}

func TestSummaryMatchesSchemaAndFigures(t *testing.T) {
	rep := small(t, Options{Roofline: true, Scaling: true})
	dir, doc := writtenSummary(t, rep)
	if err := ValidateSummary(doc); err != nil {
		t.Fatalf("summary.json does not match the schema: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		t.Fatal(err)
	}
	if g := m["derived"].(map[string]any)["gpu_time_per_integration"]; g != nil {
		t.Errorf("gpu_time_per_integration = %v on the CPU, want null", g)
	}
	// The roofline gives the CPU a floor at its measured roofs, none at a
	// datasheet's (a CPU has none in the table).
	derived := m["derived"].(map[string]any)
	if fl, ok := derived["floor_measured"].(map[string]any); !ok || !(fl["per_integration_s"].(float64) > 0) {
		t.Errorf("derived.floor_measured = %v, want a positive floor", derived["floor_measured"])
	}
	if _, ok := derived["floor_datasheet"]; ok {
		t.Errorf("derived.floor_datasheet on a CPU: %v", derived["floor_datasheet"])
	}
	want := []string{"stages", "memory", "roofline", "scaling_nsrc", "scaling_nant", "vis_amplitude", "vis_phase", "waterfall"}
	for _, name := range want {
		for _, ext := range []string{".png", ".svg"} {
			st, err := os.Stat(filepath.Join(dir, name+ext))
			if err != nil || st.Size() < 1000 {
				t.Errorf("figure %s%s: %v (size %d)", name, ext, err, sizeOf(st))
			}
		}
	}
	if len(rep.Figures) != 2*len(want) {
		t.Errorf("summary lists %d figure files, want %d", len(rep.Figures), 2*len(want))
	}
	// A broken document fails.
	if err := ValidateSummary([]byte(strings.Replace(string(doc), `"schema": "gomatvis-profile/1"`, `"schema": 3`, 1))); err == nil {
		t.Error("a summary with a numeric schema passed")
	}
}

func sizeOf(st os.FileInfo) int64 {
	if st == nil {
		return 0
	}
	return st.Size()
}

func TestFiguresHaveAxesLabelsAndSeries(t *testing.T) {
	rep := small(t, Options{Roofline: true, Scaling: true})
	figs, names, err := Figures(rep)
	if err != nil {
		t.Fatal(err)
	}
	// kind → count expected for each figure.
	want := map[string]map[string]int{
		"stages":        {"bars": 4},                            // coords, beam, tau_z, matprod
		"memory":        {"scatter": 1},                         // measured peak (areas checked below)
		"roofline":      {"line": 2, "scatter": 1, "labels": 1}, // copy bandwidth, herk; stages
		"scaling_nsrc":  {"scatter": 1, "line": 1},
		"scaling_nant":  {"scatter": 1, "line": 1},
		"vis_amplitude": {"line": 3},
		"vis_phase":     {"line": 3},
		"waterfall":     {"heatmap": 1},
	}
	if len(figs) != len(want) {
		t.Fatalf("figures %v, want %d", names, len(want))
	}
	for i, f := range figs {
		if f.Title.Text == "" || f.X.Label.Text == "" || f.Y.Label.Text == "" {
			t.Errorf("%s: title %q, axes %q / %q: all must be set", names[i], f.Title.Text, f.X.Label.Text, f.Y.Label.Text)
		}
		for kind, n := range want[names[i]] {
			if got := f.Count(kind); got != n {
				t.Errorf("%s: %d %s series, want %d: %+v", names[i], got, kind, n, f.Series)
			}
		}
	}
	mem := figs[1]
	if mem.Count("area") < 3 || !strings.HasPrefix(mem.Series[0].Name, "beam_grid") {
		t.Errorf("memory figure series %+v: want ≥ 3 areas, the beam grid first", mem.Series)
	}
	for _, s := range figs[2].Series {
		if s.Kind == "scatter" && s.Points != 4 {
			t.Errorf("roofline: %d stage points, want 4", s.Points)
		}
	}
}

func TestDerivedAndStages(t *testing.T) {
	rep := small(t, Options{})
	d := rep.Derived
	if d.ChunksPerIntegration != 1 || rep.Integrations.N != 3 {
		t.Fatalf("chunks %d, integrations %d; want 1 and 3", d.ChunksPerIntegration, rep.Integrations.N)
	}
	if d.SteadyWallPerIntegration <= 0 || d.GPUTimePerIntegration != nil {
		t.Errorf("derived %+v", d)
	}
	// On the CPU nearly everything of an integration is inside the timed
	// chunk stages.
	if d.HostOverheadPerIntegration > 0.5*d.SteadyWallPerIntegration {
		t.Errorf("host overhead %.4f s of %.4f s", d.HostOverheadPerIntegration, d.SteadyWallPerIntegration)
	}
	for _, s := range []string{"coords", "beam", "tau_z", "matprod", "total"} {
		if rep.Stages[s].N != 3 {
			t.Errorf("stage %s has %d samples, want 3 (one chunk per integration)", s, rep.Stages[s].N)
		}
	}
	if rep.Memory.MeasuredPeakHeapBytes <= 0 || rep.Memory.Plan.Term("beam_grid") != 8*181*360*2*2*8 {
		t.Errorf("memory %+v", rep.Memory.Plan)
	}
}

func TestSummarize(t *testing.T) {
	s := Summarize([]float64{3, 1, 2, 4})
	if s.Median != 2.5 || s.Mean != 2.5 || s.N != 4 || s.Std < 1.29 || s.Std > 1.30 {
		t.Errorf("%+v", s)
	}
	if (Summarize(nil) != Summary{}) {
		t.Error("empty sample")
	}
}

func TestCountWork(t *testing.T) {
	w := CountWork(WorkShape{NAnt: 350, NBeamUsed: 350, NFeed: 2, Precision: 1, Sources: 33334, Visible: 16667, ENUFlops: 15})
	mp := w[3]
	// prodslice chunk: M = 700, K = 33334: 4·M²·K herk FLOPs.
	if mp.Stage != "matprod" || mp.FLOPs != 4*700*700*33334.0 {
		t.Errorf("matprod %+v", mp)
	}
	if mp.Intensity() < 50 || w[2].Intensity() > 1 {
		t.Errorf("matprod intensity %.3g, tau_z %.3g: want compute-bound and memory-bound", mp.Intensity(), w[2].Intensity())
	}
}

func TestPresets(t *testing.T) {
	p, err := Preset("prodslice")
	if err != nil || p.NAnt != 350 || p.NSrc != 1_000_000 || p.NChunks != 30 || !p.Gridded || p.Precision != 1 {
		t.Errorf("prodslice %+v, %v", p, err)
	}
	if _, err := Preset("nope"); err == nil {
		t.Error("unknown preset accepted")
	}
	p.Precision = 3
	if err := p.Validate(); err == nil {
		t.Error("precision 3 accepted")
	}
}

func TestFuseBeamTauZ(t *testing.T) {
	ws := WorkShape{NAnt: 350, NBeamUsed: 350, NFeed: 2, Precision: 1, Sources: 33334, Visible: 16667, ENUFlops: 15, Gridded: true, ZBytes: 16}
	w := CountWork(ws)
	f := FuseBeamTauZ(w, ws)
	if len(f) != 3 || f[0].Stage != "coords" || f[1].Stage != StageBeamTauZ || f[2].Stage != "matprod" {
		t.Fatalf("fused stages %+v", f)
	}
	if f[1].FLOPs != w[1].FLOPs+w[2].FLOPs {
		t.Errorf("fused FLOPs %g, want %g", f[1].FLOPs, w[1].FLOPs+w[2].FLOPs)
	}
	// The interpolated beams are neither written nor read: B·V·16F² each way.
	if want := w[1].Bytes + w[2].Bytes - 2*350*16667*16*4; f[1].Bytes != want {
		t.Errorf("fused bytes %g, want %g", f[1].Bytes, want)
	}
	// Z in complex128: 16 bytes per element in the Gram product's read.
	if w[3].Bytes != 700*2*16667*16+2*700*700*16 {
		t.Errorf("matprod bytes %g with ZBytes 16", w[3].Bytes)
	}
}

// TestFuseGram: beam, τ/Z and the product as one stage for a kernel that
// keeps Z in shared memory: FLOPs add up, Z is neither written nor read.
func TestFuseGram(t *testing.T) {
	ws := WorkShape{NAnt: 64, NBeamUsed: 64, NFeed: 2, Precision: 1, Sources: 200000, Visible: 99617, ENUFlops: 15, Gridded: true, ZBytes: 8}
	w := CountWork(ws)
	for _, in := range [][]StageWork{w, FuseBeamTauZ(w, ws)} {
		f := FuseGram(in, ws)
		if len(f) != 2 || f[0].Stage != "coords" || f[1].Stage != StageGramFused {
			t.Fatalf("fused stages %+v", f)
		}
		if want := w[1].FLOPs + w[2].FLOPs + w[3].FLOPs; f[1].FLOPs != want {
			t.Errorf("fused FLOPs %g, want %g", f[1].FLOPs, want)
		}
		var sum float64
		for _, x := range in[1:] {
			sum += x.Bytes
		}
		if want := sum - 2*128*2*99617*8; f[1].Bytes != want {
			t.Errorf("fused bytes %g, want %g (Z of 128 rows × 2·99617 columns × 8 B neither written nor read)", f[1].Bytes, want)
		}
	}
	rep := small(t, Options{})
	rep.BeamInTauZ, rep.GramFused = true, true
	fig, err := StageFigure("fused", []*Report{rep}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range fig.Series {
		names = append(names, s.Name)
	}
	if !slices.Contains(names, "beam+tau_z+matprod (fused)") || slices.Contains(names, "matprod") || slices.Contains(names, "beam+tau_z (fused)") {
		t.Errorf("stage series %v: want coords, beam+tau_z+matprod (fused), …", names)
	}
}

// TestFusedAndDeviceFigures: a report of a backend with a fused beam+τ/Z
// kernel and device memory draws one stage for the two and the device's
// measured memory instead of the host heap.
func TestFusedAndDeviceFigures(t *testing.T) {
	rep := small(t, Options{})
	rep.BeamInTauZ = true
	rep.Memory.Device = &matvis.DeviceMemory{UsedPeakBytes: 3e8, AllocatedPeakBytes: 2.5e8}
	f, err := StageFigure("fused", []*Report{rep}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range f.Series {
		names = append(names, s.Name)
	}
	if f.Count("bars") != 3 || !slices.Contains(names, "beam+tau_z (fused)") || slices.Contains(names, "beam") {
		t.Errorf("stage series %v: want coords, beam+tau_z (fused), matprod", names)
	}
	m, err := MemoryFigure(rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range m.Series {
		if s.Kind == "scatter" && s.Points != 2 {
			t.Errorf("memory figure: %d measured points, want 2 (device used, backend allocations)", s.Points)
		}
	}
}

// TestCommittedSummaries: the summaries kept in bench/profiles (the
// figures of the docs and notebooks are regenerated from them) match the
// schema and read back.
func TestCommittedSummaries(t *testing.T) {
	files, _ := filepath.Glob("../../bench/profiles/*.json")
	if len(files) == 0 {
		t.Skip("no bench/profiles/*.json here")
	}
	for _, f := range files {
		doc, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := ValidateSummary(doc); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		if _, err := ReadJSON(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestStokesProfile: a full-Stokes profile runs (ERFA coordinates with
// pyradiosky's basis, and precomputed ones with random angles), warm-up
// included, and its config says so.
func TestStokesProfile(t *testing.T) {
	for _, crd := range []string{"erfa", "precomputed"} {
		c, err := Preset("custom")
		if err != nil {
			t.Fatal(err)
		}
		c.NAnt, c.NBeam, c.NSrc, c.NTimes, c.Stokes, c.Coords = 6, 6, 2000, 2, true, crd
		rep, err := Run(context.Background(), c, Options{Backend: cpu.NewWith(cblas.Best(), 2)})
		if err != nil {
			t.Fatalf("%s: %v", crd, err)
		}
		if !rep.Sim.SkyPolarized() || !rep.Config.Stokes {
			t.Errorf("%s: the run's sky is not full-Stokes", crd)
		}
	}
}

// TestTransformProfile: a profile of the NUFFT CPU backend (forced, one
// shared beam) places the transform's stages on the roofline — strengths
// with the spread, timed as tau_z, and the FFT with the interpolation,
// timed as matprod — with their counted work, and no Gram product; its
// summary still matches the schema.
func TestTransformProfile(t *testing.T) {
	c, err := Preset("custom")
	if err != nil {
		t.Fatal(err)
	}
	c.NAnt, c.NBeam, c.NSrc, c.NTimes = 40, 1, 20000, 2
	be, err := nufftcpu.New(1e-9, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	be.Force = true
	rep, err := Run(context.Background(), c, Options{Backend: be, Roofline: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rep.MatProd, "nufft type 3") {
		t.Fatalf("the profile's run was not a transform: %s", rep.MatProd)
	}
	got := map[string]StagePoint{}
	for _, p := range rep.Roofline.Points {
		got[p.Stage] = p
	}
	for _, st := range []string{"coords", "beam", StageSpread, StageFFT} {
		p, ok := got[st]
		if !ok || !(p.FLOPs > 0) || !(p.Bytes > 0) || !(p.Seconds > 0) {
			t.Errorf("roofline stage %s: %+v (present %v), want counted work and a time", st, p, ok)
		}
	}
	if _, ok := got["matprod"]; ok {
		t.Errorf("a Gram product on the roofline of a transform's run")
	}
	if want := rep.Stages["matprod"].Median; got[StageFFT].Seconds != want && rep.Stages["matprod"].Median > 0 {
		t.Errorf("fft+interp placed at %g s, the matprod stage's median is %g s", got[StageFFT].Seconds, want)
	}
	_, doc := writtenSummary(t, rep)
	if err := ValidateSummary(doc); err != nil {
		t.Errorf("summary.json does not match the schema: %v", err)
	}
}

// TestCountTransformWork: the transform's counts follow their terms —
// the FFT's 5·G·log₂G at least, halved for real strengths; every term
// once per transform of the integration; coords and beam as CountWork's.
func TestCountTransformWork(t *testing.T) {
	ws := WorkShape{NAnt: 350, NBeamUsed: 1, NFeed: 2, Precision: 2, Sources: 200000, Visible: 100000, ENUFlops: 15}
	tr := matvis.TransformShape{Dim: 2, Width: 13, Outer: 1216 * 1216, Padded: 2432 * 2432, Targets: 122500, PerTime: 2}
	w := CountTransformWork(ws, tr)
	base := CountWork(ws)
	if w[0] != base[0] || w[1] != base[1] {
		t.Errorf("coords/beam %v %v, CountWork's %v %v", w[0], w[1], base[0], base[1])
	}
	g := float64(tr.Padded)
	if fft := w[3].FLOPs; !(fft > 2*5*g*math.Log2(g)) {
		t.Errorf("fft+interp %.3g FLOPs, under the two FFTs' %.3g", fft, 2*5*g*math.Log2(g))
	}
	tr2 := tr
	tr2.PerTime = 4
	if w2 := CountTransformWork(ws, tr2); math.Abs(w2[3].FLOPs/w[3].FLOPs-2) > 1e-12 || math.Abs(w2[3].Bytes/w[3].Bytes-2) > 1e-12 {
		t.Errorf("twice the transforms: fft+interp ×%.4g FLOPs, ×%.4g bytes, want ×2", w2[3].FLOPs/w[3].FLOPs, w2[3].Bytes/w[3].Bytes)
	}
	trR := tr
	trR.RealStrengths = true
	if d := w[3].FLOPs - CountTransformWork(ws, trR)[3].FLOPs; math.Abs(d-2*2.5*g*math.Log2(g)) > 1e-6*d {
		t.Errorf("real strengths save %.4g FLOPs, want half the FFTs' (%.4g)", d, 2*2.5*g*math.Log2(g))
	}
}
