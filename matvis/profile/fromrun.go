package profile

import (
	"fmt"
	"time"

	"github.com/gomatvis/gomatvis/internal/runclock"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/cblas"
	"github.com/gomatvis/gomatvis/plots"
)

// RunInfo is what a real run (gomatvis simulate --profile) knows beyond
// its simulation and result.
type RunInfo struct {
	// Command is the command line, recorded in the report.
	Command string
	// Backend ran the simulation.
	Backend matvis.Backend
	// Coords names where the run's source directions came from.
	Coords string
	// Wall is the backend's run from call to return (its set-up
	// included): the report's timing.run_s.
	Wall time.Duration
	// Phases are the run's phases from the process's start; the report's
	// phases and its phases figure.
	Phases runclock.Phases
	// Blocks is the number of blocks the run's output was streamed in
	// (matvis/output.Summary.Blocks; 0 or 1: one).
	Blocks int
}

// FromRun is the profile of a real run: the summary.json a synthetic
// profile writes (schema gomatvis-profile/1, with its stage and memory
// figures), made from a simulation that was read from the user's input and
// run once, plus the run's phases — process start, input, set-up,
// compute, write and close — so that the figures show where a whole run's
// time went and not only the engine's. stats and plan are the run's (a
// streamed run's Summary: every block's integrations and chunks, the first
// block's plan); its visibilities are not held, so there are no visibility
// figures. There is no warm-up, roofline or scaling sweep; the Go heap was
// not watched (phases.peak_rss_bytes is the process's peak instead).
func FromRun(sim *matvis.Simulation, stats *matvis.Stats, plan matvis.MemoryPlan, info RunInfo) *Report {
	// The summaries index integrations through a Result's shape and
	// completion; a finished run completed every one.
	done := make([]bool, sim.NFreq()*sim.NTime())
	for i := range done {
		done[i] = true
	}
	res := &matvis.Result{Shape: sim.OutputShape(), Precision: sim.Options.Precision, Stats: *stats, Plan: plan, Done: done}
	be := primary(info.Backend)
	rep := &Report{
		Schema: SchemaVersion, Created: time.Now().UTC(), Command: info.Command,
		Config:  runConfig(sim, res, be.Name(), info.Coords),
		Backend: be.Name(), Notes: []string{},
		Timing: Timing{Build: info.Phases.Seconds(runclock.Input), Setup: res.Stats.Setup.Seconds(), Run: info.Wall.Seconds()},
		Sim:    sim,
	}
	rep.MatProd = res.Stats.MatProdImpl.String()
	rep.BeamInTauZ = res.Stats.BeamInTauZ
	rep.GramFused = res.Stats.MatProdImpl.Fused
	rep.ChannelPrep = channelPrep(res.Stats)
	for _, st := range res.Stats.SetupSteps {
		rep.Timing.SetupSteps = append(rep.Timing.SetupSteps, SetupStep{Name: st.Name, Seconds: st.Time.Seconds()})
	}
	rep.Memory = memory(sim, res, 0)
	if dm := res.Stats.Device; dm != nil {
		used := dm.UsedPeakBytes
		rep.Memory.Device, rep.Memory.DeviceUsedBytes = dm, &used
	}
	summarizeStats(rep, res)
	summarizeDevices(rep, res)
	rep.Machine = DescribeMachine(cblas.Choose(), be)
	phases := info.Phases
	rep.Phases = &phases
	if info.Blocks > 1 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("an output streamed in %d blocks: per_integration and the stages hold every block's integrations, in grid order", info.Blocks))
	}
	if sp := stats.Sampled; sp != nil {
		rep.Notes = append(rep.Notes, fmt.Sprintf("a run of %d integrations kept the times of every %d-th (grid order, frequency-major): per_integration and the stage summaries are of those; the chunk time per integration is of all",
			sim.NFreq()*sim.NTime(), sp.Stride))
	}
	rep.Notes = append(rep.Notes,
		"a gomatvis simulate run, profiled as it ran: no warm-up (the first integration holds the first-time costs), no roofline or scaling sweep",
		"timing.build_s is the input phase (reading and validating the input, building the simulation); phases holds the whole run from the process's start",
		"measured_peak_heap_bytes: the Go heap was not watched in this run (0); phases.peak_rss_bytes is the process's peak resident memory")
	return rep
}

// runConfig describes a real run's simulation in the profile's terms.
func runConfig(sim *matvis.Simulation, res *matvis.Result, backend, coords string) Config {
	c := Config{
		Preset: "custom", NAnt: sim.NAnt(), NBeam: len(sim.Beams), NSrc: sim.NSrc(), NTimes: sim.NTime(), NFreq: sim.NFreq(),
		NChunks: res.Plan.NChunks, Precision: sim.Options.Precision, Polarized: sim.Options.Polarized,
		Stokes: sim.SkyPolarized(), Backend: backend, Coords: coords, MaxMemory: sim.Options.MaxMemory,
	}
	for _, b := range sim.Beams {
		if g, ok := b.(*beam.Gridded); ok {
			c.Gridded = true
			c.NAz, c.NZa = len(g.Az()), len(g.Za())
		}
	}
	return c
}

// PhaseFigure draws a real run's phases as one stacked bar: where the
// whole run's time went, the engine's compute among the rest.
func PhaseFigure(rep *Report) (*plots.Figure, error) {
	p := rep.Phases
	if p == nil {
		return nil, fmt.Errorf("profile: phase figure: the report has no phases (a synthetic profile)")
	}
	d := plots.StageData{
		Title:  fmt.Sprintf("a whole run by phase: %.3g s from the process's start (%s backend)", p.WallS, rep.Backend),
		XLabel: "run", Unit: "s",
	}
	bar := plots.StageBar{Label: "simulate"}
	for q := runclock.Start; q <= runclock.Close; q++ {
		d.Stages = append(d.Stages, q.String())
		bar.Seconds = append(bar.Seconds, p.Seconds(q))
	}
	d.Runs = []plots.StageRun{{Name: rep.Backend, Bars: []plots.StageBar{bar}}}
	return plots.StageBreakdown(d)
}
