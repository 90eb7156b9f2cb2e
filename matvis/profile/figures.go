package profile

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gomatvis/gomatvis/internal/atomicfile"
	"github.com/gomatvis/gomatvis/internal/inputfile"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/plots"
)

// stageOrder lists the stages drawn, in stacking order.
func stageOrder(rep *Report) []string {
	var out []string
	for s := range matvis.NumStages {
		name := s.String()
		// Stages a backend does not time (transfer on the CPU) stay out.
		if sum, ok := rep.Stages[name]; ok && sum.Mean > 0 {
			out = append(out, name)
		}
	}
	return out
}

// stageColumns are the stages a report's figures draw (stages, the
// report's names) and their labels: a fused beam + τ/Z kernel is one stage
// (the beam stage's time, the gap before the kernel, is drawn inside it),
// and a Gram product fused with Z production holds beam and τ/Z (their own
// times are the launch gap and 0).
func stageColumns(rep *Report) (stages, labels []string) {
	stages = stageOrder(rep)
	labels = slices.Clone(stages)
	if rep.BeamInTauZ {
		stages = slices.DeleteFunc(stages, func(s string) bool { return s == "beam" })
		labels = labels[:0]
		for _, s := range stages {
			if s == "tau_z" {
				s = "beam+tau_z (fused)"
			}
			labels = append(labels, s)
		}
	}
	if rep.GramFused {
		var st, lb []string
		for i, s := range stages {
			switch s {
			case "beam", "tau_z":
				continue
			case "matprod":
				lb = append(lb, "beam+tau_z+matprod (fused)")
			default:
				lb = append(lb, labels[i])
			}
			st = append(st, s)
		}
		stages, labels = st, lb
	}
	return stages, labels
}

// integrationSeconds is one integration's time in each of stages (the
// beam stage's added to a fused τ/Z's).
func integrationSeconds(rep *Report, in IntegrationSample, stages []string) []float64 {
	var out []float64
	for _, s := range stages {
		v := in.Stages[s]
		if rep.BeamInTauZ && s == "tau_z" {
			v += in.Stages["beam"]
		}
		out = append(out, v)
	}
	return out
}

// StageFigure is the per-integration stage breakdown of one or more
// reports, side by side (named by their backends, or by names when given).
func StageFigure(title string, reps []*Report, names []string) (*plots.Figure, error) {
	if len(reps) == 0 {
		return nil, fmt.Errorf("profile: stage figure: no reports")
	}
	stages, labels := stageColumns(reps[0])
	d := plots.StageData{Title: title, Stages: labels, Unit: "ms"}
	for ri, r := range reps {
		run := plots.StageRun{Name: r.Backend}
		if ri < len(names) {
			run.Name = names[ri]
		}
		for _, in := range r.PerIntegration {
			b := plots.StageBar{Label: fmt.Sprintf("t%d", in.Time), Seconds: integrationSeconds(r, in, stages)}
			if r.Sim != nil && r.Sim.NFreq() > 1 {
				b.Label = fmt.Sprintf("f%d t%d", in.Freq, in.Time)
			}
			run.Bars = append(run.Bars, b)
		}
		d.Runs = append(d.Runs, run)
	}
	if len(reps) == 1 {
		d.Levels = floorLevels(reps[0])
	}
	return plots.StageBreakdown(d)
}

// floorLevels are a report's floors as stage-figure levels (none without
// a roofline).
func floorLevels(rep *Report) []plots.Level {
	var out []plots.Level
	for _, f := range []*Floor{rep.Derived.FloorMeasured, rep.Derived.FloorDatasheet} {
		if f != nil && f.PerIntegration > 0 {
			out = append(out, plots.Level{Label: fmt.Sprintf("floor: least time at the %s roofs", f.Roofs), Seconds: f.PerIntegration})
		}
	}
	return out
}

// floorNotes are the roofline's caption lines for a report's floors.
func floorNotes(rep *Report) []string {
	var parts []string
	for _, f := range []*Floor{rep.Derived.FloorMeasured, rep.Derived.FloorDatasheet} {
		if f != nil {
			parts = append(parts, fmt.Sprintf("%s at the %s roofs (%.0f %% achieved)", seconds(f.PerIntegration), f.Roofs, 100*f.FractionAchieved))
		}
	}
	what := "Each point is a stage: the FLOPs it does per byte it moves (x) against the FLOP/s it ran at (y). " +
		"A roof is the most the machine can do at that intensity: the sloped ones are memory bandwidth, the flat ones arithmetic"
	if rl := rep.Roofline; rl != nil && slices.ContainsFunc(append(slices.Clone(rl.Ceilings.Bandwidth), rl.Ceilings.Compute...),
		func(c Ceiling) bool { return !c.Measured }) {
		what += "; solid ones are measured here, dashed ones the datasheet's"
	}
	out := []string{what + "."}
	if len(parts) > 0 {
		out = append(out, fmt.Sprintf("Floor per integration, every stage on its roof (max(FLOPs / roof, bytes / bandwidth), summed): %s; steady wall %s.",
			strings.Join(parts, ", "), seconds(rep.Derived.SteadyWallPerIntegration)))
	}
	return out
}

// MemoryFigure draws the memory model against chunk size with the budget
// and the measured peak heap.
func MemoryFigure(rep *Report) (*plots.Figure, error) {
	m := rep.Memory
	d := plots.MemoryData{
		Title: fmt.Sprintf("memory model: %d antennas, %d beams, %d sources (plan: %s of %d)",
			rep.Config.NAnt, rep.Config.nbeam(), rep.Config.NSrc, plural(m.Plan.NChunks, "chunk"), m.Plan.SourcesPerChunk),
		Limit: float64(m.Plan.Budget), Floor: matvis.TermBeamGrid,
	}
	d.LimitLabel = "host memory available"
	if rep.Backend == "gpu" {
		d.LimitLabel = "device memory free"
	}
	for _, p := range m.Curve {
		pt := plots.MemoryPoint{SourcesPerChunk: float64(p.SourcesPerChunk)}
		for _, t := range p.Terms {
			pt.Terms = append(pt.Terms, plots.MemoryTerm{Name: t.Name, Bytes: float64(t.Bytes)})
		}
		d.Points = append(d.Points, pt)
	}
	if dm := m.Device; dm != nil {
		x := float64(m.Plan.SourcesPerChunk)
		d.Measured = append(d.Measured,
			plots.MeasuredMemory{Label: "measured device memory used (cuMemGetInfo, peak)", SourcesPerChunk: x, Bytes: float64(dm.UsedPeakBytes)},
			plots.MeasuredMemory{Label: "backend's device allocations (peak)", SourcesPerChunk: x, Bytes: float64(dm.AllocatedPeakBytes)})
	}
	// On a device the model is of device memory: the host heap is not
	// drawn against it (it stays in summary.json).
	if m.MeasuredPeakHeapBytes > 0 && m.Device == nil {
		d.Measured = append(d.Measured, plots.MeasuredMemory{
			Label: "measured peak Go heap", SourcesPerChunk: float64(m.Plan.SourcesPerChunk), Bytes: float64(m.MeasuredPeakHeapBytes),
		})
	}
	// A real run's whole process: its peak resident memory.
	if p := rep.Phases; p != nil && p.PeakRSSBytes > 0 && m.Device == nil {
		d.Measured = append(d.Measured, plots.MeasuredMemory{
			Label: "measured peak RSS of the whole run", SourcesPerChunk: float64(m.Plan.SourcesPerChunk), Bytes: float64(p.PeakRSSBytes),
		})
	}
	return plots.MemoryVsChunk(d)
}

// RooflineFigure places the stages on the measured ceilings.
func RooflineFigure(rep *Report) (*plots.Figure, error) {
	rl := rep.Roofline
	if rl == nil {
		return nil, fmt.Errorf("profile: no roofline in this report")
	}
	d := plots.RooflineData{Title: fmt.Sprintf("roofline: %s (%s, %s)", rl.Ceilings.Device, rep.Backend, rep.Config.Name()),
		AboveRoof: aboveRoofReason(rep), Notes: floorNotes(rep)}
	for _, c := range rl.Ceilings.Bandwidth {
		d.Bandwidth = append(d.Bandwidth, plots.Ceiling{Name: c.Name, Value: c.Value, Measured: c.Measured})
	}
	for _, c := range rl.Ceilings.Compute {
		d.Compute = append(d.Compute, plots.Ceiling{Name: c.Name, Value: c.Value, Measured: c.Measured})
	}
	var key []string
	for _, p := range rl.Points {
		d.Points = append(d.Points, plots.RooflinePoint{Label: p.Stage, Intensity: p.Intensity, Perf: p.FLOPRate})
		key = append(key, p.Stage+": "+strings.TrimSuffix(plots.Words(p.Stage), " ("+p.Stage+")"))
	}
	// The points carry matvis's short names; the caption says what each is.
	d.Notes = append([]string{"Stages: " + strings.Join(key, "; ") + "."}, d.Notes...)
	return plots.Roofline(d)
}

// aboveRoofReason says why a stage can sit above the measured compute
// roof: the roof is the Gram product alone, one library call timed apart
// from the run, and only the datasheet's roof is a hard limit.
func aboveRoofReason(rep *Report) string {
	if rep.Backend != "gpu" {
		return "The roof is the BLAS herk alone at the chunk's shape (best of a few runs), timed apart from the run; " +
			"the stage is timed inside the run, so the two can differ by the machine's state."
	}
	return "Why: the measured roof is the run's Gram strategy (cuBLAS or the tensor-core kernel) alone at one chunk's shape, timed apart from the run on random Z; " +
		"the stage is timed by the run's own CUDA events, so clocks and timing separate the two. Only the datasheet's " +
		"tensor-core roof (dashed) is a hard limit, and every stage is under it."
}

// plural is "1 chunk", "30 chunks".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// ScalingFigures draws the sweeps against N_src and N_ant.
func ScalingFigures(rep *Report) (nsrc, nant *plots.Figure, err error) {
	runs := map[string]map[string][]plots.ScalingPoint{"nsrc": {}, "nant": {}}
	for _, p := range rep.Scaling {
		runs[p.Vary][rep.Backend] = append(runs[p.Vary][rep.Backend], plots.ScalingPoint{NSrc: p.NSrc, NAnt: p.NAnt, Seconds: p.Seconds})
	}
	nsrc, err = plots.Scaling(plots.ScalingData{Title: fmt.Sprintf("time per integration vs sources (%d antennas)", rep.Config.NAnt), Vary: "nsrc", Runs: runs["nsrc"]})
	if err != nil {
		return nil, nil, err
	}
	nant, err = plots.Scaling(plots.ScalingData{Title: fmt.Sprintf("time per integration vs antennas (%d sources)", rep.Config.NSrc), Vary: "nant", Runs: runs["nant"]})
	return nsrc, nant, err
}

// visPairs picks up to three baselines to show: crosses of antenna 0
// (autocorrelations are an order of magnitude larger and would flatten
// the crosses).
func visPairs(sim *matvis.Simulation) []int {
	var out []int
	for k, p := range sim.Pairs {
		if p[0] == 0 && p[1] >= 1 && p[1] <= 3 {
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		out = append(out, 0)
	}
	return out
}

// VisFigures draws amplitude and phase of a few baselines (feeds xx)
// against time (or frequency when there is one time), and a waterfall.
func VisFigures(rep *Report) ([]*plots.Figure, []string, error) {
	sim, res := rep.Sim, rep.Result
	if sim == nil || res == nil {
		return nil, nil, fmt.Errorf("profile: report holds no visibilities")
	}
	d := visLineData(sim, res)
	amp, err := plots.VisLines(d, plots.Amplitude)
	if err != nil {
		return nil, nil, err
	}
	ph, err := plots.VisLines(d, plots.Phase)
	if err != nil {
		return nil, nil, err
	}
	wf, err := plots.Waterfall(waterfallData(sim, res), plots.Amplitude)
	if err != nil {
		return nil, nil, err
	}
	return []*plots.Figure{amp, ph, wf}, []string{"vis_amplitude", "vis_phase", "waterfall"}, nil
}

// visLineData is the lines of a few baselines' xx visibilities: along
// time at channel 0 when there are several times (or one channel), else
// along frequency at time 0.
func visLineData(sim *matvis.Simulation, res *matvis.Result) plots.VisData {
	nt, nf := sim.NTime(), sim.NFreq()
	alongTime := nt > 1 || nf == 1
	var d plots.VisData
	if alongTime {
		d.XLabel = "time since start (s)"
		for ti := range nt {
			d.X = append(d.X, (sim.Times[ti]-sim.Times[0])*86400)
		}
	} else {
		d.XLabel = "frequency (MHz)"
		for _, f := range sim.Freqs {
			d.X = append(d.X, f/1e6)
		}
	}
	for _, k := range visPairs(sim) {
		s := plots.VisSeries{Name: fmt.Sprintf("(%d,%d) xx", sim.Pairs[k][0], sim.Pairs[k][1])}
		for i := range d.X {
			if alongTime {
				s.V = append(s.V, res.At(0, i, k, 0, 0))
			} else {
				s.V = append(s.V, res.At(i, 0, k, 0, 0))
			}
		}
		d.Series = append(d.Series, s)
	}
	d.Title = "visibilities (channel 0)"
	if !alongTime {
		d.Title = "visibilities (time 0)"
	}
	return d
}

// waterfallData is time × frequency of baseline (0,1) when there are
// several channels, else time × baseline (0, j).
func waterfallData(sim *matvis.Simulation, res *matvis.Result) plots.WaterfallData {
	nt, nf := sim.NTime(), sim.NFreq()
	w := plots.WaterfallData{YLabel: "time index"}
	for ti := range nt {
		w.Y = append(w.Y, float64(ti))
	}
	if nf > 1 {
		k := visPairs(sim)[0]
		w.Title = fmt.Sprintf("waterfall, baseline (%d,%d) xx", sim.Pairs[k][0], sim.Pairs[k][1])
		w.XLabel = "frequency (MHz)"
		for _, f := range sim.Freqs {
			w.X = append(w.X, f/1e6)
		}
		for ti := range nt {
			var row []complex128
			for fi := range nf {
				row = append(row, res.At(fi, ti, k, 0, 0))
			}
			w.V = append(w.V, row)
		}
		return w
	}
	w.Title = "waterfall, baselines (0, j ≥ 1) xx, channel 0"
	w.XLabel = "antenna j"
	var ks []int
	for k, p := range sim.Pairs {
		if p[0] == 0 && p[1] >= 1 && len(ks) < 64 {
			ks = append(ks, k)
			w.X = append(w.X, float64(p[1]))
		}
	}
	if len(ks) == 0 { // one antenna: its autocorrelation
		ks, w.X = []int{0}, []float64{0}
	}
	for ti := range nt {
		var row []complex128
		for _, k := range ks {
			row = append(row, res.At(0, ti, k, 0, 0))
		}
		w.V = append(w.V, row)
	}
	return w
}

// Figures builds every figure a report supports, by file name (no
// extension).
func Figures(rep *Report) ([]*plots.Figure, []string, error) {
	var figs []*plots.Figure
	var names []string
	add := func(f *plots.Figure, name string, err error) error {
		if err != nil {
			return fmt.Errorf("profile: figure %s: %w", name, err)
		}
		figs, names = append(figs, f), append(names, name)
		return nil
	}
	title := fmt.Sprintf("time per integration by stage (%s, %s)", rep.Backend, rep.Config.Name())
	if rep.Backend == "gpu" {
		title = fmt.Sprintf("GPU time per integration by stage (CUDA events; %s, %s)", rep.Machine.GPU, rep.Config.Name())
	}
	f, err := StageFigure(title, []*Report{rep}, nil)
	if err := add(f, "stages", err); err != nil {
		return nil, nil, err
	}
	f, err = MemoryFigure(rep)
	if err := add(f, "memory", err); err != nil {
		return nil, nil, err
	}
	if rep.Phases != nil {
		f, err = PhaseFigure(rep)
		if err := add(f, "phases", err); err != nil {
			return nil, nil, err
		}
	}
	if rep.Roofline != nil {
		f, err = RooflineFigure(rep)
		if err := add(f, "roofline", err); err != nil {
			return nil, nil, err
		}
	}
	if len(rep.Scaling) > 0 {
		a, b, err := ScalingFigures(rep)
		if err != nil {
			return nil, nil, fmt.Errorf("profile: scaling figures: %w", err)
		}
		figs, names = append(figs, a, b), append(names, "scaling_nsrc", "scaling_nant")
	}
	if rep.Result != nil {
		vf, vn, err := VisFigures(rep)
		if err != nil {
			return nil, nil, fmt.Errorf("profile: visibility figures: %w", err)
		}
		figs, names = append(figs, vf...), append(names, vn...)
	}
	return figs, names, nil
}

// WriteDir writes every figure as PNG and SVG into dir and then
// dir/summary.json (listing the figure files), creating dir.
func WriteDir(rep *Report, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	figs, names, err := Figures(rep)
	if err != nil {
		return err
	}
	rep.Figures = rep.Figures[:0]
	for i, f := range figs {
		paths, err := plots.Save(f, dir, names[i])
		if err != nil {
			return fmt.Errorf("profile: %w", err)
		}
		for _, p := range paths {
			rep.Figures = append(rep.Figures, filepath.Base(p))
		}
	}
	return WriteJSON(rep, filepath.Join(dir, "summary.json"))
}

// WriteJSON writes the report as indented JSON, through a temporary file
// renamed into place so a reader never sees half a file.
func WriteJSON(rep *Report, path string) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("profile: encoding %s: %w", path, err)
	}
	if err := atomicfile.WriteBytes(path, append(b, '\n')); err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	return nil
}

// maxSummaryBytes bounds the summary.json ReadJSON reads: a profile's
// runs its per-integration and per-chunk records, megabytes at most.
const maxSummaryBytes = 256 << 20

// ReadJSON reads a summary.json written by WriteJSON (a regular file of
// at most maxSummaryBytes).
func ReadJSON(path string) (*Report, error) {
	b, err := inputfile.ReadAll(path, maxSummaryBytes)
	if err != nil {
		return nil, fmt.Errorf("profile: %w", err)
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("profile: %s: %w", path, err)
	}
	if rep.Schema != SchemaVersion {
		return nil, fmt.Errorf("profile: %s: schema %q, want %q", path, rep.Schema, SchemaVersion)
	}
	return &rep, nil
}
