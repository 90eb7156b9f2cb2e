package profile

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/gomatvis/gomatvis/internal/memwatch"
	"github.com/gomatvis/gomatvis/internal/runclock"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backends"
	"github.com/gomatvis/gomatvis/matvis/beam"
	"github.com/gomatvis/gomatvis/matvis/cblas"
	"github.com/gomatvis/gomatvis/matvis/gpu"
	"github.com/gomatvis/gomatvis/matvis/multi"
)

// SchemaVersion names the layout of summary.json.
const SchemaVersion = "gomatvis-profile/1"

// Options steer Run.
type Options struct {
	// Backend runs the simulation (nil: backends.OpenDevices(cfg.Backend,
	// cfg.Devices, gpu.Options{}), as simulate opens it).
	Backend matvis.Backend
	// Roofline measures the machine's ceilings and places the stages.
	Roofline bool
	// Scaling adds two small sweeps (N_src and N_ant at ¼, ½ and 1 of the
	// configuration, 2 times each) for the scaling figures.
	Scaling bool
	// Log, when set, receives progress lines.
	Log func(string)
	// Command is recorded in the report (e.g. the command line).
	Command string
	// GCPercent, when not 0, is the garbage collector's GOGC during the
	// measured run: a low value (e.g. 10) makes the measured peak heap
	// close to the live peak, at some cost in time; 0 leaves the process's
	// setting (default 100, so the peak includes uncollected garbage).
	GCPercent int
}

// Report is the result of a profile; it is what summary.json holds.
type Report struct {
	Schema      string    `json:"schema"`
	Created     time.Time `json:"created"`
	Command     string    `json:"command,omitempty"`
	Config      Config    `json:"config"`
	Backend     string    `json:"backend"`
	BackendNote string    `json:"backend_note,omitempty"`
	MatProd     string    `json:"matprod"`
	// BeamInTauZ says the backend interpolates beams inside the tau_z
	// stage (one fused kernel): the beam stage is only the gap before it,
	// and the figures and the roofline show the two as one stage.
	BeamInTauZ bool `json:"beam_in_tau_z,omitempty"`
	// GramFused says the Gram product ran in the kernel that makes Z
	// (Stats.MatProdImpl.Fused): the matprod stage holds beam, τ and Z too.
	GramFused bool               `json:"gram_fused,omitempty"`
	Notes     []string           `json:"notes"`
	Timing    Timing             `json:"timing"`
	Stages    map[string]Summary `json:"stages"`
	// Integrations summarises the wall time of every measured integration.
	Integrations Summary `json:"integrations"`
	// PerIntegration holds each integration's wall and stage sums.
	PerIntegration []IntegrationSample `json:"per_integration"`
	Derived        Derived             `json:"derived"`
	Memory         Memory              `json:"memory"`
	Machine        Machine             `json:"machine"`
	Roofline       *Roofline           `json:"roofline,omitempty"`
	Scaling        []ScalePoint        `json:"scaling,omitempty"`
	// ChannelPrep is how a GPU run prepared its channels (nil on the CPU).
	ChannelPrep *ChannelPrep `json:"channel_prep,omitempty"`
	// Devices is each backend's share of a run over several (nil for one).
	Devices []DeviceShare `json:"devices,omitempty"`
	// Phases are a real run's phases from the process's start (FromRun;
	// nil for a synthetic profile, which has no input or output).
	Phases  *runclock.Phases `json:"phases,omitempty"`
	Figures []string         `json:"figures"`

	// Result is the measured run's output, for the visibility figures.
	Result *matvis.Result `json:"-"`
	// Sim is the simulation that was run.
	Sim *matvis.Simulation `json:"-"`
}

// SetupStep is one timed part of a run's set-up.
type SetupStep struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"s"`
}

// ChannelPrep is where and at what cost a GPU run prepared each
// channel's beam tables (matvis.Stats.ChannelPrep and its times).
type ChannelPrep struct {
	// Where is "device" or "host: " and why.
	Where string `json:"where"`
	// GPUSeconds is the device time of the Count preparations (CUDA
	// events on the preparation's stream), PerChannelGPUSeconds their mean.
	GPUSeconds           float64 `json:"gpu_s"`
	Count                int     `json:"count"`
	PerChannelGPUSeconds float64 `json:"per_channel_gpu_s"`
	// BasesSeconds is the set-up's preparation of every used beam channel
	// (part of Timing.Setup); HostSeconds the host time spent on channel
	// changes during the run (Stats.Prepare).
	BasesSeconds float64 `json:"bases_s"`
	HostSeconds  float64 `json:"host_s"`
}

// channelPrep summarises a run's channel preparation, nil when the
// backend does not report one.
func channelPrep(st matvis.Stats) *ChannelPrep {
	if st.ChannelPrep == "" {
		return nil
	}
	c := &ChannelPrep{Where: st.ChannelPrep, GPUSeconds: st.ChannelPrepGPU.Seconds(), Count: st.ChannelPreps,
		BasesSeconds: st.BeamBases.Seconds(), HostSeconds: st.Prepare.Seconds()}
	if c.Count > 0 {
		c.PerChannelGPUSeconds = c.GPUSeconds / float64(c.Count)
	}
	return c
}

// Timing holds whole-run times in seconds.
type Timing struct {
	// Build is building the synthetic simulation; Warmup the untimed
	// warm-up run of its first integration: neither is in Run.
	Build  float64 `json:"build_s"`
	Warmup float64 `json:"warmup_s"`
	// Setup is the measured run's set-up (Stats.Setup: beam preparation,
	// coordinate caches, device buffers), part of Run.
	Setup float64 `json:"setup_s"`
	// SetupSteps are Setup's parts where the backend times them (GPU):
	// step name → seconds, in order.
	SetupSteps []SetupStep `json:"setup_steps,omitempty"`
	// Run is the measured run's wall: the backend's Run from call to
	// return, Setup included.
	Run float64 `json:"run_s"`
}

// IntegrationSample is one integration's wall time and stage sums (s).
type IntegrationSample struct {
	Freq   int                `json:"freq"`
	Time   int                `json:"time"`
	Wall   float64            `json:"wall_s"`
	Stages map[string]float64 `json:"stages_s"`
}

// Derived are the per-integration numbers a reader wants first.
// RunWallPerIntegration is THE number (the console's headline, with
// ChunkTimePerIntegration and GPUBusyFraction beside it: Report.Headline);
// the others break it down.
type Derived struct {
	// SteadyWallPerIntegration is the median wall time per integration
	// excluding the run's first (which pays one-off costs); with one
	// integration, that one. Being a median, it hides what only some
	// integrations pay: a channel change (the channel's preparation on
	// the host, Stats.Prepare) falls in one integration per channel, and
	// the run's set-up in none; RunWallPerIntegration includes both.
	SteadyWallPerIntegration float64 `json:"steady_wall_per_integration"`
	// GPUTimePerIntegration is the median chunk total × chunks (chunks of
	// the integrations after the first); null on the CPU, whose chunk
	// stages are host time.
	GPUTimePerIntegration *float64 `json:"gpu_time_per_integration"`
	// HostOverheadPerIntegration is the steady wall time minus the median
	// chunk total × chunks: the time outside the timed chunk stages.
	HostOverheadPerIntegration float64 `json:"host_overhead_per_integration"`
	// GPUStageSumPerIntegration is the median, over the integrations
	// after the first, of the sum of every stage's CUDA-event time in the
	// integration: unlike GPUTimePerIntegration it includes the stages
	// timed once per integration in its first chunk (coordinates, their
	// upload, the output copy); null on the CPU.
	GPUStageSumPerIntegration *float64 `json:"gpu_stage_sum_per_integration,omitempty"`
	ChunkTotalMedian          float64  `json:"chunk_total_median_s"`
	ChunksPerIntegration      int      `json:"chunks_per_integration"`
	// Devices is the number of backends the run used (1 unless
	// Config.Devices ran it over several). With more than one, the
	// integrations run concurrently: the steady wall, the GPU time and the
	// host overhead above are per device and per integration, not the
	// run's wall per integration; RunWallPerIntegration is.
	Devices int `json:"devices"`
	// RunWallPerIntegration, THE number, is the measured run's wall
	// (Timing.Run) over its integrations: set-up (Timing.Setup), the
	// first integration, channel changes and all host time between
	// integrations included; build and warm-up not. What one integration
	// costs the run, comparable between device counts; a short run pays
	// its set-up over few integrations (Timing.Setup says how much).
	RunWallPerIntegration float64 `json:"run_wall_per_integration"`
	// ChunkTimePerIntegration is the sum of every chunk's stage times,
	// over all the run's integrations and devices, per integration: GPU
	// seconds per integration summed over the devices (CUDA events; the
	// console's "GPU time"), host seconds on the CPU. Unlike
	// GPUTimePerIntegration it is a mean over every integration and holds
	// the stages timed once per integration.
	ChunkTimePerIntegration float64 `json:"chunk_time_per_integration"`
	// Concurrency is the sum of every chunk's stage times over the run's
	// wall: about the number of devices kept busy in the timed stages
	// (at most Devices; lower by the host overhead and idle devices).
	Concurrency float64 `json:"concurrency"`
	// GPUBusyFraction is the GPU time summed over the run's chunks (every
	// integration, every device) over the run's wall × Devices: on one
	// device ChunkTimePerIntegration / RunWallPerIntegration, on several
	// Concurrency / Devices. 1 − it is the share of the wall the devices
	// waited on the host (set-up, channel changes, launches). Null on the
	// CPU, whose stage times are host time.
	GPUBusyFraction *float64 `json:"gpu_busy_fraction"`
	// FloorMeasured is the least time per integration at the roofs
	// measured on this machine, per stage and in total, with the fraction
	// of it the run achieved (ComputeFloor); FloorDatasheet the same at
	// the device's published roofs (absent for a device with none, e.g.
	// a CPU). Both need the roofline (absent with --roofline=false).
	FloorMeasured  *Floor `json:"floor_measured,omitempty"`
	FloorDatasheet *Floor `json:"floor_datasheet,omitempty"`
}

// DeviceShare is one device's share of a run over several devices.
type DeviceShare struct {
	Name         string  `json:"name"`
	Blocks       int     `json:"blocks"`
	Integrations int     `json:"integrations"`
	BusySeconds  float64 `json:"busy_s"`
	ChunkSeconds float64 `json:"chunk_s"`
	// SetupSeconds and PrepareSeconds are the parts of BusySeconds its
	// blocks spent setting up and preparing channels on the host (GPU);
	// StartSeconds and EndSeconds when its first block started and its
	// last ended, from the start of the measured run.
	SetupSeconds   float64 `json:"setup_s"`
	PrepareSeconds float64 `json:"prepare_s"`
	StartSeconds   float64 `json:"start_s"`
	EndSeconds     float64 `json:"end_s"`
	// BusyFraction is BusySeconds over the measured run's wall.
	BusyFraction float64 `json:"busy_fraction"`
	// DeviceUsedBytes is the device memory of its largest block (GPU).
	DeviceUsedBytes *int64 `json:"device_used_bytes,omitempty"`
}

// Memory is the memory model and what was measured.
type Memory struct {
	Plan matvis.MemoryPlan `json:"plan"`
	// HostTerms is the CPU backend's accounting of its allocations.
	HostTerms      []matvis.MemoryTerm `json:"host_terms"`
	HostTotalBytes int64               `json:"host_total_bytes"`
	// MeasuredPeakHeapBytes is the Go heap's peak growth during the
	// measured run (sampled every 200 µs), over its level before, at the
	// GOGC in GCPercent (garbage not yet collected included).
	MeasuredPeakHeapBytes int64 `json:"measured_peak_heap_bytes"`
	GCPercent             int   `json:"gc_percent"`
	// DeviceUsedBytes is the device memory the measured run held at its
	// peak (Device.UsedPeakBytes; GPU only).
	DeviceUsedBytes *int64 `json:"device_used_bytes,omitempty"`
	// Device is the backend's account of the measured run's device
	// memory: free memory before and at its lowest, the backend's own
	// allocations by term (GPU only).
	Device *matvis.DeviceMemory `json:"device,omitempty"`
	// Curve is the model against sources per chunk, for the figure.
	Curve []matvis.MemoryPoint `json:"curve"`
}

// Roofline places the stages on the machine's ceilings.
type Roofline struct {
	Ceilings Ceilings     `json:"ceilings"`
	Shape    GramShape    `json:"gram_shape"`
	Points   []StagePoint `json:"points"`
}

// StagePoint is a stage's counted work per chunk and its median time.
type StagePoint struct {
	StageWork
	Seconds   float64 `json:"seconds"`
	Intensity float64 `json:"intensity"`
	FLOPRate  float64 `json:"flops_per_s"`
}

// ScalePoint is one run of a scaling sweep.
type ScalePoint struct {
	Vary    string  `json:"vary"`
	NSrc    int     `json:"nsrc"`
	NAnt    int     `json:"nant"`
	Seconds float64 `json:"seconds_per_integration"`
}

// firstTimes shows only the first n times of a coordinate provider, for
// the warm-up run.
type firstTimes struct {
	matvis.Coordinates
	n int
}

func (f firstTimes) NTimes() int { return f.n }

// Run builds the synthetic simulation, runs it once on its first
// integration to warm up (thread pools, caches, device contexts), then runs
// it measured, and summarises.
func Run(ctx context.Context, cfg Config, o Options) (*Report, error) {
	logf := func(format string, a ...any) {
		if o.Log != nil {
			o.Log(fmt.Sprintf(format, a...))
		}
	}
	rep := &Report{Schema: SchemaVersion, Created: time.Now().UTC(), Command: o.Command, Config: cfg, Notes: []string{}}
	be := o.Backend
	if be == nil {
		b, err := openBackend(rep, cfg)
		if err != nil {
			return nil, err
		}
		// A backend opened here is closed here (a GPU backend holds a
		// device context).
		defer b.Close()
		be = b
	}
	// The backend's kind ("cpu", "gpu"), also for a run over several
	// devices (derived.devices and devices say how many).
	rep.Backend = primary(be).Name()
	t0 := time.Now()
	sim, err := Build(cfg)
	if err != nil {
		return nil, err
	}
	rep.Timing.Build = time.Since(t0).Seconds()
	rep.Sim = sim
	logf("built %d antennas, %d beams, %d sources, %d times, %d channels in %.2f s", sim.NAnt(), len(sim.Beams), sim.NSrc(), sim.NTime(), sim.NFreq(), rep.Timing.Build)
	if cfg.Warmup {
		if rep.Timing.Warmup, err = warmUp(ctx, be, sim); err != nil {
			return nil, err
		}
		logf("warm-up (first integration) %.2f s", rep.Timing.Warmup)
	}
	res, err := measuredRun(ctx, rep, o, be, sim)
	if err != nil {
		return nil, err
	}
	logf("measured run %.2f s (%d chunks per integration)", rep.Timing.Run, res.Plan.NChunks)
	summarizeStats(rep, res)
	summarizeDevices(rep, res)
	if dm := res.Stats.Device; dm != nil {
		logf("device memory: %.3f GB used at peak (backend allocations %.3f GB), model %.3f GB",
			float64(dm.UsedPeakBytes)/1e9, float64(dm.AllocatedPeakBytes)/1e9, float64(rep.Memory.Plan.Total)/1e9)
	}
	blas := cblas.Choose()
	rep.Machine = DescribeMachine(blas, primary(be))
	if rep.Backend == "cpu" {
		for _, w := range blas.Warnings {
			logf("warning: %s", w)
			rep.Notes = append(rep.Notes, w)
		}
	}
	if err := rep.extras(ctx, cfg, o, be, sim, res, blas.Herk, logf); err != nil {
		return nil, err
	}
	return rep, nil
}

// openBackend opens the configuration's backend (several devices as one
// matvis/multi backend), noting in rep what it says about itself.
func openBackend(rep *Report, cfg Config) (matvis.Backend, error) {
	b, note, err := backends.OpenDevices(cfg.Backend, cfg.Devices, gpu.Options{})
	if err != nil {
		return nil, fmt.Errorf("profile: %w", err)
	}
	rep.BackendNote = note
	if m, ok := b.(*multi.Backend); ok {
		m.Blocks = cfg.Blocks
	}
	if note != "" {
		rep.Notes = append(rep.Notes, note)
	}
	return b, nil
}

// measuredRun runs sim once, watching the heap, and records the run's
// times, set-up steps, channel preparation and memory in rep.
func measuredRun(ctx context.Context, rep *Report, o Options, be matvis.Backend, sim *matvis.Simulation) (*matvis.Result, error) {
	// The build's and the warm-up's garbage go back to the system before
	// the measured run, as a fresh process starts. (A large result's
	// allocation no longer depends on it: a GPU run allocates it beside
	// its set-up, matvis.LateResult.)
	debug.FreeOSMemory()
	gc := debug.SetGCPercent(100)
	debug.SetGCPercent(gc)
	if o.GCPercent != 0 {
		old := debug.SetGCPercent(o.GCPercent)
		defer debug.SetGCPercent(old)
		gc = o.GCPercent
	}
	watch := memwatch.Start(0)
	t := time.Now()
	res, err := be.Run(ctx, sim)
	base, peak := watch.Stop()
	if err != nil {
		return nil, fmt.Errorf("profile: run: %w", err)
	}
	rep.Timing.Run = time.Since(t).Seconds()
	rep.Result = res
	rep.MatProd = res.Stats.MatProdImpl.String()
	rep.BeamInTauZ = res.Stats.BeamInTauZ
	rep.GramFused = res.Stats.MatProdImpl.Fused
	rep.Timing.Setup = res.Stats.Setup.Seconds()
	rep.ChannelPrep = channelPrep(res.Stats)
	for _, st := range res.Stats.SetupSteps {
		rep.Timing.SetupSteps = append(rep.Timing.SetupSteps, SetupStep{Name: st.Name, Seconds: st.Time.Seconds()})
	}
	rep.Memory = memory(sim, res, int64(peak-base))
	rep.Memory.GCPercent = gc
	if dm := res.Stats.Device; dm != nil {
		used := dm.UsedPeakBytes
		rep.Memory.Device, rep.Memory.DeviceUsedBytes = dm, &used
	}
	return res, nil
}

// warmUp runs sim's first integration once, untimed but for the returned
// seconds, so that the measured run starts with compiled kernels, a chosen
// strategy and warm caches.
func warmUp(ctx context.Context, be matvis.Backend, sim *matvis.Simulation) (float64, error) {
	w := *sim
	w.Coords = firstTimes{sim.Coords, 1}
	w.Times = nil
	w.Freqs = sim.Freqs[:1]
	w.Flux = nil // only the first channel: rebuild source-major fluxes
	if sim.Sky == nil {
		for s := range sim.NSrc() {
			w.Flux = append(w.Flux, sim.Flux[s*sim.NFreq()])
		}
	}
	w.Options.Progress = nil
	t := time.Now()
	if err := runEach(ctx, be, &w); err != nil {
		return 0, fmt.Errorf("profile: warm-up run: %w", err)
	}
	return time.Since(t).Seconds(), nil
}

// extras adds what Options ask beyond the measured run: the roofline
// (the backend's CeilingMeter, else the CPU's through herk) and the
// scaling sweeps.
func (rep *Report) extras(ctx context.Context, cfg Config, o Options, be matvis.Backend, sim *matvis.Simulation, res *matvis.Result,
	herk cblas.Herk, logf func(string, ...any)) error {
	if o.Roofline {
		meter, ok := primary(be).(CeilingMeter)
		if !ok {
			meter = CPUMeter{Herk: herk}
		}
		rl, err := roofline(ctx, meter, rep, sim, res)
		if err != nil {
			return err
		}
		rep.Roofline = rl
		SetFloors(rep)
		logf("roofline: %d ceilings measured", len(rl.Ceilings.Bandwidth)+len(rl.Ceilings.Compute))
	}
	if o.Scaling {
		pts, err := Sweep(ctx, cfg, be)
		if err != nil {
			return err
		}
		rep.Scaling = pts
		logf("scaling sweeps: %d runs", len(pts))
	}
	return nil
}

func summarizeStats(rep *Report, res *matvis.Result) {
	st := res.Stats
	per := make(map[string][]float64)
	var totals []float64
	for _, c := range st.Chunks {
		for i, d := range c.Stages {
			per[matvis.Stage(i).String()] = append(per[matvis.Stage(i).String()], d.Seconds())
		}
		totals = append(totals, c.Stages.Total().Seconds())
	}
	rep.Stages = make(map[string]Summary)
	for k, v := range per {
		rep.Stages[k] = Summarize(v)
	}
	rep.Stages["total"] = Summarize(totals)
	walls := make([]float64, len(st.Integrations))
	for i, d := range st.Integrations {
		walls[i] = d.Seconds()
	}
	rep.Integrations = Summarize(walls)
	// Per integration: the integrations in grid order, frequency-major
	// (every Sampled.Stride-th of a long streamed run), the chunks
	// labelled with their frequency and time.
	nt := len(res.Done) / max(1, res.Shape[0])
	stride := 1
	if st.Sampled != nil {
		stride = st.Sampled.Stride
	}
	idx := map[[2]int]int{}
	for i, w := range walls {
		g := i * stride
		f, ti := g/max(nt, 1), g%max(nt, 1)
		idx[[2]int{f, ti}] = i
		rep.PerIntegration = append(rep.PerIntegration, IntegrationSample{Freq: f, Time: ti, Wall: w, Stages: map[string]float64{}})
	}
	for _, c := range st.Chunks {
		if i, ok := idx[[2]int{c.Freq, c.Time}]; ok {
			for s, d := range c.Stages {
				rep.PerIntegration[i].Stages[matvis.Stage(s).String()] += d.Seconds()
			}
		}
	}
	steady := walls
	if len(walls) > 1 {
		steady = walls[1:]
	} else {
		rep.Notes = append(rep.Notes, "one integration only: steady_wall_per_integration includes first-integration costs")
	}
	d := &rep.Derived
	d.SteadyWallPerIntegration = Summarize(steady).Median
	// The chunk median over the same integrations as the steady wall, so
	// that the overhead compares like with like.
	var steadyChunks []float64
	for _, c := range st.Chunks {
		if len(walls) == 1 || c.Freq*max(nt, 1)+c.Time >= 1 {
			steadyChunks = append(steadyChunks, c.Stages.Total().Seconds())
		}
	}
	d.ChunkTotalMedian = Summarize(steadyChunks).Median
	d.ChunksPerIntegration = res.Plan.NChunks
	chunkTime := d.ChunkTotalMedian * float64(d.ChunksPerIntegration)
	if strings.HasPrefix(st.Backend, "gpu") {
		g := chunkTime
		d.GPUTimePerIntegration = &g
		d.GPUStageSumPerIntegration = stageSum(rep.PerIntegration)
	}
	d.HostOverheadPerIntegration = d.SteadyWallPerIntegration - chunkTime
	f := FiguresOf(&st, rep.Timing.Run, len(walls))
	d.Devices = f.Devices
	d.RunWallPerIntegration = f.WallPerIntegration()
	d.ChunkTimePerIntegration = f.ChunkTimePerIntegration()
	if rep.Timing.Run > 0 {
		d.Concurrency = f.ChunkTime / rep.Timing.Run
	}
	if b, ok := f.BusyFraction(); ok {
		d.GPUBusyFraction = &b
	}
}

// Headline is the report's per-integration figures: the run's wall per
// integration (Derived.RunWallPerIntegration), the GPU (or host) stage
// time per integration (Derived.ChunkTimePerIntegration) and on a GPU the
// busy fraction (Derived.GPUBusyFraction); its String is the console's
// first result line.
func (rep *Report) Headline() RunFigures {
	n := len(rep.PerIntegration)
	return RunFigures{
		Backend: rep.Backend, Integrations: n, Devices: max(1, rep.Derived.Devices),
		Wall: rep.Timing.Run, ChunkTime: rep.Derived.ChunkTimePerIntegration * float64(n),
	}
}

// summarizeDevices records each device's share of a run over several and
// says, in a note, how to read the derived numbers.
func summarizeDevices(rep *Report, res *matvis.Result) {
	if len(res.Stats.Backends) == 0 {
		return
	}
	for _, b := range res.Stats.Backends {
		s := DeviceShare{
			Name: b.Name, Blocks: b.Blocks, Integrations: b.Integrations,
			BusySeconds: b.Busy.Seconds(), ChunkSeconds: b.ChunkTime.Seconds(),
			SetupSeconds: b.Setup.Seconds(), PrepareSeconds: b.Prepare.Seconds(),
			StartSeconds: b.Start.Seconds(), EndSeconds: b.End.Seconds(),
		}
		if rep.Timing.Run > 0 {
			s.BusyFraction = s.BusySeconds / rep.Timing.Run
		}
		if b.Device != nil {
			used := b.Device.UsedPeakBytes
			s.DeviceUsedBytes = &used
		}
		rep.Devices = append(rep.Devices, s)
	}
	rep.Notes = append(rep.Notes, fmt.Sprintf("%d devices ran the integrations concurrently: steady_wall_per_integration, gpu_time_per_integration and host_overhead_per_integration are per device; run_wall_per_integration is the run's wall per integration, chunk_time_per_integration the stage time summed over the devices", len(res.Stats.Backends)))
}

// eachRunner runs a simulation once on each of its backends (multi.Backend).
type eachRunner interface {
	RunEach(ctx context.Context, sim *matvis.Simulation) error
}

// runEach runs sim on be, once on each device when be runs over several
// (so that every device compiles its kernels and chooses its strategies).
func runEach(ctx context.Context, be matvis.Backend, sim *matvis.Simulation) error {
	if e, ok := be.(eachRunner); ok {
		return e.RunEach(ctx, sim)
	}
	_, err := be.Run(ctx, sim)
	return err
}

// primary is the backend that describes the machine and measures its
// ceilings: the first device of a run over several, else be.
func primary(be matvis.Backend) matvis.Backend {
	if p, ok := be.(interface{ Parts() []matvis.Backend }); ok {
		if parts := p.Parts(); len(parts) > 0 {
			return parts[0]
		}
	}
	return be
}

func memory(sim *matvis.Simulation, res *matvis.Result, peak int64) Memory {
	mc := sim.MemoryConfig()
	var grid int64
	seen := map[any]bool{}
	for _, b := range sim.Beams {
		// Beams sharing one object share its stored grid.
		if sb, ok := b.(interface{ StoredBytes() int64 }); ok && !seen[b] {
			seen[b] = true
			grid += sb.StoredBytes()
		}
	}
	host := mc.HostTerms(res.Plan.NChunks, grid, int64(mc.NBeamUsed)*preparedBytes(sim))
	minChunk := max(1, min(1000, sim.NSrc()/1000))
	return Memory{
		Plan: res.Plan, HostTerms: host, HostTotalBytes: matvis.Total(host),
		MeasuredPeakHeapBytes: peak, Curve: mc.Curve(res.Plan.Budget, minChunk, 40),
	}
}

// preparedBytes is the size of the interpolation planes one gridded beam
// prepares for a frequency (0 for analytic beams).
func preparedBytes(sim *matvis.Simulation) int64 {
	g, ok := sim.Beams[0].(*beam.Gridded)
	if !ok {
		return 0
	}
	r, err := g.Prepare(sim.Freqs[0], sim.Mode)
	if err != nil {
		return 0
	}
	var n int64
	for _, p := range r.Planes() {
		n += int64(len(p.Re)+len(p.Im))*8 + int64(len(p.Re32)+len(p.Im32))*4
	}
	return n
}

func roofline(ctx context.Context, meter CeilingMeter, rep *Report, sim *matvis.Simulation, res *matvis.Result) (*Roofline, error) {
	// The chunk the roofline describes: median source and visible counts.
	var srcs, vis []float64
	for _, c := range res.Stats.Chunks {
		srcs = append(srcs, float64(c.NSources))
		vis = append(vis, float64(c.NVisible))
	}
	mc := sim.MemoryConfig()
	nf := sim.NFeed()
	v := int(Summarize(vis).Median)
	shape := GramShape{M: sim.NAnt() * nf, K: nf * v, Precision: sim.Options.Precision}
	ceil, err := meter.MeasureCeilings(ctx, shape)
	if err != nil {
		return nil, fmt.Errorf("profile: ceilings: %w", err)
	}
	AddDatasheet(&ceil, rep.Machine.GPU)
	enu := 15.0
	if rep.Config.Coords == "precomputed" {
		enu = 0
	}
	ws := WorkShape{
		NAnt: sim.NAnt(), NBeamUsed: mc.NBeamUsed, NFeed: nf, Precision: sim.Options.Precision,
		Sources: int(Summarize(srcs).Median), Visible: v, Gridded: rep.Config.Gridded, ENUFlops: enu,
		ZBytes: res.Stats.ZBytes,
	}
	work := CountWork(ws)
	switch tr := res.Stats.MatProdImpl.Transform; {
	case tr != nil:
		work = CountTransformWork(ws, *tr)
		if res.Stats.BeamInTauZ {
			// The beam is evaluated in the strengths' kernel.
			work = mergeInto(work, "beam", StageSpread)
		}
	case res.Stats.MatProdImpl.Fused:
		work = FuseGram(maybeFuseBeam(work, ws, res), ws)
	default:
		work = maybeFuseBeam(work, ws, res)
	}
	rl := &Roofline{Ceilings: ceil, Shape: shape}
	for _, w := range work {
		rl.Points = append(rl.Points, StagePoint{StageWork: w})
	}
	rep.Roofline = rl
	placeStages(rep)
	return rl, nil
}

// stageSeconds is a stage's time per chunk for the roofline: its median
// over the chunks, or its mean when the median is 0 (a stage that runs
// once per integration, in its first chunk only, as the GPU's coordinate
// stage: the mean is then its time per integration shared over the
// chunks, which matches CountWork's per-chunk share of the work).
func stageSeconds(rep *Report, stage string) float64 {
	if stage == StageBeamTauZ {
		return stageSeconds(rep, "beam") + stageSeconds(rep, "tau_z")
	}
	if stage == StageGramFused {
		return stageSeconds(rep, "beam") + stageSeconds(rep, "tau_z") + stageSeconds(rep, "matprod")
	}
	if stage == StageSpread {
		return stageSeconds(rep, "tau_z")
	}
	if stage == StageFFT {
		return stageSeconds(rep, "matprod")
	}
	s := rep.Stages[stage]
	if s.Median > 0 {
		return s.Median
	}
	return s.Mean
}

// placeStages sets each roofline point's time and rate from the report's
// stage summaries.
func placeStages(rep *Report) {
	if rep.Roofline == nil {
		return
	}
	for i := range rep.Roofline.Points {
		p := &rep.Roofline.Points[i]
		p.Seconds = stageSeconds(rep, p.Stage)
		p.Intensity = p.StageWork.Intensity()
		p.FLOPRate = 0
		if p.Seconds > 0 {
			p.FLOPRate = p.FLOPs / p.Seconds
		}
	}
}

// Rederive recomputes what a report derives from its stored samples (for
// a summary.json written by an earlier version): the roofline points'
// times and rates from the stage summaries, its datasheet (unmeasured)
// ceilings from the current Datasheet table, and on a GPU the stage sum
// per integration from the per-integration samples, a GPU run's busy
// fraction where the report lacks it, and the floors (ComputeFloor).
func Rederive(rep *Report) {
	placeStages(rep)
	if rl := rep.Roofline; rl != nil && rep.Machine.GPU != "" {
		keep := func(cs []Ceiling) []Ceiling {
			var out []Ceiling
			for _, c := range cs {
				if c.Measured {
					out = append(out, c)
				}
			}
			return out
		}
		rl.Ceilings.Bandwidth, rl.Ceilings.Compute = keep(rl.Ceilings.Bandwidth), keep(rl.Ceilings.Compute)
		AddDatasheet(&rl.Ceilings, rep.Machine.GPU)
	}
	if rep.Derived.GPUTimePerIntegration != nil {
		rep.Derived.GPUStageSumPerIntegration = stageSum(rep.PerIntegration)
	}
	// A summary older than chunk_time_per_integration has no GPU time to
	// give a busy fraction from.
	if rep.Derived.GPUBusyFraction == nil && rep.Derived.ChunkTimePerIntegration > 0 {
		if b, ok := rep.Headline().BusyFraction(); ok {
			rep.Derived.GPUBusyFraction = &b
		}
	}
	SetFloors(rep)
}

// stageSum is the median, over the integrations after the first (all
// when there is one), of the sum of every stage's time in an integration.
func stageSum(per []IntegrationSample) *float64 {
	if len(per) > 1 {
		per = per[1:]
	}
	var sums []float64
	for _, in := range per {
		t := 0.0
		for _, v := range in.Stages {
			t += v
		}
		sums = append(sums, t)
	}
	v := Summarize(sums).Median
	return &v
}

// Sweep times small variants of cfg for the scaling figures: N_src and
// N_ant at ¼, ½ and 1 of cfg's, 2 times and 1 channel each, no warm-up
// (the main run warmed the backend up), seconds per integration = the
// second integration's wall time.
func Sweep(ctx context.Context, cfg Config, be matvis.Backend) ([]ScalePoint, error) {
	var out []ScalePoint
	for _, vary := range []string{"nsrc", "nant"} {
		for _, frac := range []int{4, 2, 1} {
			c := cfg
			c.NTimes, c.NFreq, c.Warmup = 2, 1, false
			if vary == "nsrc" {
				c.NSrc = max(1, cfg.NSrc/frac)
			} else {
				c.NAnt = max(2, cfg.NAnt/frac)
				if c.NBeam > c.NAnt {
					c.NBeam = c.NAnt
				}
			}
			c.NChunks = min(c.NChunks, c.NSrc)
			sim, err := Build(c)
			if err != nil {
				return nil, err
			}
			res, err := be.Run(ctx, sim)
			if err != nil {
				return nil, fmt.Errorf("profile: scaling run %s=%d/%d: %w", vary, 1, frac, err)
			}
			w := res.Stats.Integrations[len(res.Stats.Integrations)-1].Seconds()
			out = append(out, ScalePoint{Vary: vary, NSrc: c.NSrc, NAnt: c.NAnt, Seconds: w})
		}
	}
	return out, nil
}

// maybeFuseBeam is FuseBeamTauZ for a run whose beam is evaluated inside
// the τ/Z kernel (Stats.BeamInTauZ).
func maybeFuseBeam(work []StageWork, ws WorkShape, res *matvis.Result) []StageWork {
	if res.Stats.BeamInTauZ {
		return FuseBeamTauZ(work, ws)
	}
	return work
}

// mergeInto adds stage from's work to stage into's and drops from.
func mergeInto(work []StageWork, from, into string) []StageWork {
	var moved StageWork
	var out []StageWork
	for _, w := range work {
		if w.Stage == from {
			moved = w
			continue
		}
		out = append(out, w)
	}
	for i := range out {
		if out[i].Stage == into {
			out[i].FLOPs += moved.FLOPs
			out[i].Bytes += moved.Bytes
		}
	}
	return out
}
