package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomatvis/gomatvis/matvis/input"

	"github.com/gomatvis/gomatvis/internal/atomicfile"
	"github.com/gomatvis/gomatvis/internal/runclock"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backends"
	"github.com/gomatvis/gomatvis/matvis/gpu"
	"github.com/gomatvis/gomatvis/matvis/output"
	"github.com/gomatvis/gomatvis/matvis/profile"
	"github.com/gomatvis/gomatvis/matvis/simspec"
	"github.com/gomatvis/gomatvis/npy"
)

// blockBudget is the streamed block of a run of sim on be: --block's
// size when given (asked > 0), else the backend's choice, within the
// run's memory budget either way.
func blockBudget(sim *matvis.Simulation, be matvis.Backend, asked int64) int64 {
	if asked > 0 {
		return output.BlockBudgetUpTo(sim, asked)
	}
	return output.BlockBudgetFor(sim, be)
}

// printOutputLine says how a streamed run's output went: its blocks, the
// compute, the waits on the writer, the close, and the writer's own time
// and rate (the format's on this disk).
func printOutputLine(w io.Writer, sum output.Summary) {
	rate := "—"
	if sum.Writing > 0 {
		rate = fmt.Sprintf("%.3g GB/s", float64(sum.Written)/1e9/sum.Writing.Seconds())
	}
	fmt.Fprintf(w, "output: %d block(s) of up to %d times × %d channels; compute %.3g s, waiting on the writer %.3g s, closing %.3g s; the writer wrote %.3g GB in %.3g s (%s)\n",
		sum.Blocks, sum.Largest.NTime(), sum.Largest.NFreq(), sum.Compute.Seconds(), sum.WriteWait.Seconds(), sum.Close.Seconds(),
		float64(sum.Written)/1e9, sum.Writing.Seconds(), rate)
}

func runSimulate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	clock := runclock.New()
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "output file: OUT.npy (matvis's array, with OUT.meta.json), OUT.uvh5 (pyuvdata's UVH5), OUT.uvfits (UVFITS as pyuvsim writes it, phased to the first time's zenith: docs/uvfits.md) or OUT.ms (a Measurement Set as pyuvdata writes it, phased alike: docs/ms.md); required for a spec, an obsparam's filing section by default")
	backend := fs.String("backend", "auto", "cpu, gpu, nufftcpu or auto")
	topo := fs.String("topo", "", "precomputed ENU vectors, float64 (ntimes, 3, nsrc) .npy (replaces the spec's coord_method)")
	coord := &coordFlag{}
	fs.Var(coord, "coord-method", coordHelp+"; overrides the spec's coord_method")
	eopPath := fs.String("eop", "", "Earth orientation (UT1−UTC, polar motion): an IERS finals2000A or eopc04_IAU2000.62-now file or a JSON {\"times\": [{\"jd_utc\", \"ut1_utc_s\", \"xp_arcsec\", \"yp_arcsec\"}]} (replaces the spec's eop; an obsparam without it takes the IERS table embedded in gomatvis, matvis/astro/iersdata)")
	rotation := fs.String("stokes-rotation", "", "a polarized sky's coherency rotation into the beams' basis: iau (the default: derived from the IAU convention, equal to a first-principles field projection; docs/stokes.md) or pyradiosky (pyuvsim 1.2's Rᵀ·C·R, which mirrors the polarization angle about the source's vertical)")
	beamInterp := fs.String("beam-interp", "", "spatial interpolation of beamfits beams: map_coordinates (matvis's prefiltered B-spline; the default for a spec) or az_za_simple (pyuvdata's bicubic RectBivariateSpline, s = 0, as pyuvsim; the default for an obsparam)")
	beamPole := fs.String("beam-pole", "", "beamfits beams at the zenith (za = 0): edge (matvis's and pyuvdata's exact splines, which treat za = 0 and the azimuth wrap as edges; the default for a spec, a Stokes-I sky and --stokes-rotation pyradiosky) or continued (the spline continued through the pole along great circles, periodic across the wrap and single-valued at za = 0: smooth for a source through zenith; the default for an obsparam's polarized sky under the IAU rotation)")
	quiet := fs.Bool("q", false, "no progress bar")
	fused := fs.String("gpu-fused", "auto", "GPU only: the fused beam+τ+Z+Gram kernel for small arrays in precision 1: auto (time both paths on the first chunk), on or off")
	nufftMode := fs.String("gpu-nufft", "auto", "GPU only: the transform path (type-3 NUFFTs instead of the Gram product) for arrays whose antennas share one beam: auto (measured against the direct path on the first integration, for runs estimated long enough to repay its set-up), off or on (every eligible run)")
	devices := fs.String("devices", "", "all or a list of device ordinals (0,1,…): run the (frequency, time) blocks over these GPUs from one queue, one backend each; with --backend cpu a list of k splits the cores into k backends")
	shardFlag := fs.String("shard", "", "I/N: compute shard I of N of the (frequency, time) grid into the part file -o PART"+partExt+" (gomatvis merge joins the parts); a complete part is not recomputed")
	format := fs.String("format", "", "with --shard: the merged output's format, uvh5 or npy (default: uvh5 for an obsparam, npy for a spec)")
	profileDir := fs.String("profile", "", "write DIR/summary.json (the profile's schema, with the run's phases: docs/performance.md), its figures and DIR/cpu.pprof (Go's CPU profile of the run, for go tool pprof) for this run; also puts the phases before the run in a UVH5's or UVFITS's history")
	blockFlag := byteSizeFlag(fs, "block", "the output block computed and written at a time, in `bytes` (default: the backend's choice, within the memory budget): smaller blocks overlap more of the writing with the compute, larger ones repay a GPU's per-block set-up")
	rf := addRunFlags(fs)
	pf := addPhaseFlags(fs)
	in, err := parseSimulateCommand(ctx, fs, args, out, shardFlag, topo, eopPath)
	if err != nil {
		return err
	}
	gpuOpts, err := checkSimulateFlags(fs, rf, *beamInterp, *beamPole, *fused, *nufftMode)
	if err != nil {
		return err
	}
	ph, err := pf.settle(*out)
	if err != nil {
		return err
	}
	precision := in.precisionOverride(*rf.precision)
	if *shardFlag != "" && *profileDir != "" {
		return fmt.Errorf("%w: --profile is for a whole run, not a --shard (profile the unsharded run)", errUsage)
	}
	if *shardFlag != "" {
		return runShard(ctx, shardJob{in: in, out: *out, shard: *shardFlag, format: *format, backend: *backend, devices: *devices,
			gpu: gpuOpts, topo: *topo, coord: coord.method, eop: *eopPath, rotation: matvis.CoherencyRotation(*rotation),
			precision: precision, run: rf.overrides(), beamInterp: *beamInterp, beamPole: *beamPole, quiet: *quiet, block: *blockFlag}, stdout, stderr)
	}
	if *format != "" {
		return fmt.Errorf("%w: --format is for --shard; the output's extension gives the format", errUsage)
	}
	stopCPU := func() {}
	if *profileDir != "" {
		if err := checkProfileDir(*profileDir); err != nil {
			return err
		}
		stopCPU = startCPUProfile(*profileDir, stderr)
		defer stopCPU()
	}
	run := rf.overrides()
	run.StreamOutput = true // output.Run holds two blocks, sized to the budget
	// The backend does not depend on the input: it opens (the CUDA
	// driver's search, OpenBLAS's load) while the simulation builds.
	opening := startBackend(*backend, *devices, gpuOpts)
	bo := buildOptions{uvh5: isUVH5(*out) || isUVFITS(*out) || isMS(*out), coordMethod: coord.method, eopPath: *eopPath, rotation: matvis.CoherencyRotation(*rotation),
		precision: precision, run: run, beamInterp: *beamInterp, beamPole: *beamPole, warn: warnTo(stderr), notice: lineTo(stderr)}
	if *topo != "" {
		if bo.topo, err = readTopoUntil(ctx, *topo); err != nil {
			opening.discard()
			return err
		}
		bo.topoPath = *topo
	}
	sim, obs, err := in.build(ctx, bo)
	if err != nil {
		opening.discard()
		return err
	}
	clock.Mark(runclock.Input)
	opening.prefetchWhileOpening(ctx, sim, *backend)
	be, blas, err := opening.wait(stderr)
	if err != nil {
		return err
	}
	blockBytes := blockBudget(sim, be, *blockFlag)
	defer setMemoryLimit(sim, 2*blockBytes)()
	closeBackend := sync.OnceValue(be.Close)
	defer closeBackend()
	// The run's wall is taken between the clock's own marks, so that the
	// phases of the run (compute, write and the output's close) hold it
	// exactly; closing the backend follows it, in close.
	t0 := clock.Mark(runclock.Setup)
	before := clock.Phases() // the phases before the run, for the outputs' metadata
	if *profileDir != "" && obs != nil {
		obs.History += " " + phasesHistory(before)
	}
	var meta *preparedMeta // an npy's sidecar, its array encoded during the compute
	if !bo.uvh5 {
		meta = prepareMeta(*out, metaBase(in.name(), sim, obs, sim.OutputShape(), sim.Options.Precision, be.Name(), coordsName(in, coord.method, *topo)))
	}
	// The output's file is created while the first block computes; an
	// error creating it stops the compute as a writer's error does.
	w := output.OpenAsync(func() (output.BlockWriter, error) {
		w, err := openOutput(*out, sim, obs, ph, stderr, func(s output.Summary) ([]byte, error) {
			return meta.finish(s.Stats.MatProdImpl.String(), s.Plan.NChunks, time.Since(t0), time.Now(), &before)
		})
		if err != nil {
			return nil, fmt.Errorf("writing %s: %w", *out, err)
		}
		return w, nil
	})
	clock.Mark(runclock.Write)
	bar := newProgressBar(stderr, *quiet)
	sum, err := output.Run(ctx, be, sim, w, output.Options{BlockBytes: blockBytes, Progress: bar.update, Notice: lineTo(stderr)})
	bar.finish()
	if sum.Kept != nil {
		fmt.Fprintf(stderr, "cancelled: %s\n", sum.Kept)
	}
	if err != nil {
		return err
	}
	// The writer overlaps the compute: the run's interval is shared as
	// output.Run measured it, its own bookkeeping counted as compute.
	wall := clock.MarkSplit(runclock.Compute, runclock.Part{Phase: runclock.Write, Duration: sum.WriteWait}, runclock.Part{Phase: runclock.Close, Duration: sum.Close}).Sub(t0)
	closeErr := closeBackend()
	clock.Mark(runclock.Close)
	reportSimulate(stdout, in, sim, obs, &sum.Stats, sum.Plan, be.Name(), wall, *out, blas, bo.uvh5)
	// Where the wall went: the writing overlaps the compute but for the
	// waits and the close.
	printOutputLine(stdout, sum)
	// The whole run from the process's start (docs/performance.md, "A whole run").
	phases := clock.Phases()
	fmt.Fprintln(stdout, phases)
	if *profileDir != "" {
		stopCPU()
		if err := writeRunProfile(*profileDir, args, sim, &sum, be, coordsName(in, coord.method, *topo), phases, stdout); err != nil {
			return err
		}
	}
	return closeErr
}

// checkSimulateFlags checks the run flags and the beam, fused-kernel and
// transform choices, returning the GPU options they make.
func checkSimulateFlags(fs *flag.FlagSet, rf *runFlags, beamInterp, beamPole, fused, nufftMode string) (gpu.Options, error) {
	if err := rf.check(fs); err != nil {
		return gpu.Options{}, err
	}
	if err := input.CheckBeamInterp(beamInterp); err != nil {
		return gpu.Options{}, fmt.Errorf("%w: --beam-interp: %w", errUsage, err)
	}
	if err := input.CheckBeamPole(beamPole); err != nil {
		return gpu.Options{}, fmt.Errorf("%w: --beam-pole: %w", errUsage, err)
	}
	mode, err := gpu.ParseFusedMode(fused)
	if err != nil {
		return gpu.Options{}, fmt.Errorf("--gpu-fused: %w", err)
	}
	nm, err := gpu.ParseNUFFTMode(nufftMode)
	if err != nil {
		return gpu.Options{}, fmt.Errorf("--gpu-nufft: %w", err)
	}
	return gpu.Options{Fused: mode, NUFFT: nm}, nil
}

// reportSimulate prints a finished run's line, its one per-integration
// figure, the CPU's BLAS and what the output's conventions are.
func reportSimulate(stdout io.Writer, in *simInput, sim *matvis.Simulation, obs *matvis.Observation, stats *matvis.Stats, plan matvis.MemoryPlan,
	backend string, wall time.Duration, out, blas string, uvh5 bool) {
	fmt.Fprintf(stdout, "%s: %d sources, %d antennas, %d baselines, %d chunk(s), %d freq × %d times, %s, %s backend (%s): %.3g s in all → %s %v\n",
		in.name(), sim.NSrc(), sim.NAnt(), len(sim.Pairs), plan.NChunks, sim.NFreq(), sim.NTime(),
		precisionName(sim.Options.Precision, sim.Options.Polarized), backend, stats.MatProdImpl,
		wall.Seconds(), out, sim.OutputShape())
	// The one per-integration figure, named, as profile prints it: the
	// run's wall (the backend's set-up and the output's writing, which
	// overlaps the compute, included; opening the device not) over its
	// integrations, with the GPU time and GPU busy fraction from the
	// chunks' stage times.
	fmt.Fprintln(stdout, profile.FiguresOf(stats, wall.Seconds(), sim.NFreq()*sim.NTime()))
	if blas != "" {
		fmt.Fprintln(stdout, blas)
	}
	switch {
	case !uvh5 && obs != nil:
		fmt.Fprintf(stdout, "npy in pyuvsim's conventions, the numbers of its UVH5 (baselines ant1 ≥ ant2 by default, [..., p, q]: ant1's feed p, ant2's q); axes, polarizations, antennas and run details: %s\n", metaPath(out))
	case !uvh5:
		fmt.Fprintf(stdout, "axes, frequencies, times, antpairs and run details: %s\n", metaPath(out))
	case isMS(out):
		fmt.Fprintf(stdout, "Measurement Set as pyuvdata's write_ms(force_phase=True) writes it (docs/ms.md): phased, UVW = ant2 − ant1, correlations in CASA order\n")
	case isUVFITS(out):
		fmt.Fprintf(stdout, "UVFITS as pyuvsim writes it (docs/uvfits.md): phased to the first time's zenith or --phase-center (unphased with --uvfits-drift), baselines ant1 ≥ ant2 by default, pols sorted by |code|, data conj(V) and uvw = −uvw/c\n")
	default:
		fmt.Fprintf(stdout, "UVH5 as pyuvsim writes it: baselines ant1 ≥ ant2 by default, pols %v, uvw = ENU(ant2) − ENU(ant1)\n", obs.Pols)
	}
}

// setMemoryLimit hands the run's memory budget (max_memory_bytes), when
// set, to the Go collector as its soft limit, so that garbage does not
// grow the heap to twice what is live — but only when the heap the run
// plans to hold (what is live now, its host terms and buffers, the
// output held whole unless streamed) stays well below it: a limit under
// the live heap makes the collector run without pause (1017 cycles of a
// 10⁶-channel UVH5 run, 20.6 s against 13.2 s). The returned function
// restores the limit before (the CLI's commands also run inside tests and
// notebooks).
func setMemoryLimit(sim *matvis.Simulation, buffers int64) (restore func()) {
	m := sim.Options.MaxMemory
	if m <= 0 || !limitFits(m, heapLive(), matvis.Total(sim.HostBytes())+buffers) {
		return func() {}
	}
	prev := debug.SetMemoryLimit(m)
	return func() { debug.SetMemoryLimit(prev) }
}

// limitFits says whether a soft limit leaves the collector room: the
// live heap and what the run will add to it take at most 3/4 of it.
func limitFits(limit, live, planned int64) bool {
	return live+planned <= limit/4*3
}

// heapLive is the heap the last collection found live, in bytes.
func heapLive() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// openBackend opens the backend (over several devices with devices set)
// and prints why auto chose the CPU.
func openBackend(backend, devices string, gpuOpts gpu.Options, stderr io.Writer) (matvis.Backend, error) {
	be, note, err := backends.OpenDevices(backend, devices, gpuOpts)
	if err != nil {
		return nil, gpuOpenError(err)
	}
	if note != "" {
		fmt.Fprintln(stderr, note)
	}
	return be, nil
}

// openingBackend is a backend being opened on a goroutine of its own,
// with the CPU Gram product's choice (cpuBLAS); what they print waits in
// msgs, so that it follows the input's messages as when they opened after
// it.
type openingBackend struct {
	done chan struct{}
	be   matvis.Backend
	blas string
	msgs bytes.Buffer
	err  error
	// opened is the backend once its open returned, before its warming
	// (read while done is still open).
	opened atomic.Pointer[matvis.Backend]
}

// warmer is a backend that can make its device's handles ahead of its
// first run (gpu.Backend.Warm).
type warmer interface{ Warm() error }

// startBackend starts opening the backend (openBackend, cpuBLAS), and
// warms it (its handles made while the input is read).
func startBackend(backend, devices string, gpuOpts gpu.Options) *openingBackend {
	o := &openingBackend{done: make(chan struct{})}
	go func() {
		defer close(o.done)
		if o.be, o.err = openBackend(backend, devices, gpuOpts, &o.msgs); o.err == nil {
			o.opened.Store(&o.be)
			o.blas = cpuBLAS(strings.SplitN(o.be.Name(), "×", 2)[0], &o.msgs)
			if w, ok := o.be.(warmer); ok {
				// A head start only: a failure is the first run's too,
				// which reports it in the run's words.
				_ = w.Warm()
			}
		}
	}()
	return o
}

// prefetchWhileOpening starts making the first two times' source
// coordinates (matvis.PrefetchENU: astropy's method) when a GPU backend
// is still opening once the input is read: the driver's start and Warm
// outlast a SkyH5 input of 10⁶ sources by 0.07–0.16 s on an H100 host,
// and the first block's coordinates take 32 ms of 16 host cores a time.
// A GPU is one asked for (--backend gpu) or, for auto, one whose open has
// returned; a backend already open, or a CPU, computes its coordinates in
// its run as before.
func (o *openingBackend) prefetchWhileOpening(ctx context.Context, sim *matvis.Simulation, backend string) {
	select {
	case <-o.done:
		return
	default:
	}
	if b := o.opened.Load(); backend != "gpu" && (b == nil || !output.WantsCoordinatesAhead(*b)) {
		return
	}
	for t := range min(2, sim.NTime()) {
		matvis.PrefetchENU(ctx, sim.Coords, t)
	}
}

// wait returns the opened backend and its CPU Gram product's line,
// printing their messages to stderr.
func (o *openingBackend) wait(stderr io.Writer) (matvis.Backend, string, error) {
	<-o.done
	stderr.Write(o.msgs.Bytes())
	return o.be, o.blas, o.err
}

// discard closes the backend of a run that stopped before it ran (its
// messages unprinted, as when it opened after the input).
func (o *openingBackend) discard() {
	<-o.done
	if o.be != nil {
		o.be.Close()
	}
}

// isUVH5 says whether an output path asks for UVH5.
func isUVH5(out string) bool { return strings.EqualFold(filepath.Ext(out), ".uvh5") }

// parseSimulateCommand parses simulate's flags and its one input (a
// spec, "example" or an obsparam YAML), settles the output (-o, or the
// obsparam's filing section) and checks before any work that it can be
// written and is none of the inputs (nor the --topo and --eop files).
func parseSimulateCommand(ctx context.Context, fs *flag.FlagSet, args []string, out, shardFlag, topo, eop *string) (*simInput, error) {
	pos, err := parseFlags(fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) != 1 {
		return nil, fmt.Errorf("%w: want one SPEC.json or OBSPARAM.yaml, got %d arguments", errUsage, len(pos))
	}
	in, err := loadInput(ctx, pos[0])
	if err != nil {
		return nil, err
	}
	formats := append(simulateFormats(), uvfitsFormat(), msFormat())
	// Where the output comes from, to say how to choose another.
	hint := "choose another -o"
	if *shardFlag != "" {
		formats = partFormats()
	} else if *out == "" {
		if *out, err = in.defaultOutput(); err != nil {
			return nil, err
		}
		if *out != "" {
			hint = fmt.Sprintf("it is the filing section's outdir/outfile_name of %s (with clobber: true): change filing.outfile_name or outdir, or give -o", in.path)
		}
	}
	if *out == "" {
		return nil, fmt.Errorf("%w: -o %s is required", errUsage, formatNames(formats))
	}
	// Before the name's extension: -o OBSPARAM.yaml is refused as the input it is.
	inputs := append(in.namedFiles(), flagFiles(namedInput{*topo, "--topo file"}, namedInput{*eop, "--eop file"})...)
	if err := checkOutputNotInput(*out, inputs, hint); err != nil {
		return nil, err
	}
	if err := checkOutputName(*out, formats); err != nil {
		return nil, err
	}
	return in, nil
}

// coordsName says where the run's ENU vectors came from.
func coordsName(in *simInput, override, topo string) string {
	switch {
	case topo != "":
		return "precomputed ENU vectors from " + topo
	case override != "":
		return override
	case in.spec != nil && in.spec.CoordMethod != "":
		return in.spec.CoordMethod
	}
	return simspec.CoordAstropy
}

// parseSpecCommand parses the flags and the one SPEC.json argument of a
// command that writes -o OUTPUT in one of formats, reads the spec, and
// checks before any work is done that the output can be written and is
// none of the inputs: the spec, its beam files and the files named by
// inputFlags (flags left empty are skipped).
func parseSpecCommand(fs *flag.FlagSet, args []string, out *string, outName string, formats []outputFormat, inputFlags ...*string) (*simspec.Spec, error) {
	pos, err := parseFlags(fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) != 1 {
		return nil, fmt.Errorf("%w: want one SPEC.json, got %d arguments", errUsage, len(pos))
	}
	if *out == "" {
		return nil, fmt.Errorf("%w: -o %s is required", errUsage, outName)
	}
	if err := checkOutputName(*out, formats); err != nil {
		return nil, err
	}
	spec, err := loadSpec(pos[0])
	if err != nil {
		return nil, err
	}
	inputs := specFiles(pos[0], spec)
	for _, f := range inputFlags {
		inputs = append(inputs, flagFiles(namedInput{*f, ""})...)
	}
	if err := checkOutputNotInput(*out, inputs, "choose another -o"); err != nil {
		return nil, err
	}
	return spec, nil
}

// warnTo prints warnings to w, one a line.
func warnTo(w io.Writer) func(string) {
	return func(m string) { fmt.Fprintf(w, "warning: %s\n", m) }
}

// lineTo prints each message on a line of its own to w.
func lineTo(w io.Writer) func(string) {
	return func(m string) { fmt.Fprintln(w, m) }
}

// loadSpec reads a spec file, or the embedded example for "example".
func loadSpec(path string) (*simspec.Spec, error) {
	if path == "example" {
		return simspec.Decode(strings.NewReader(exampleSpec), ".")
	}
	return simspec.ReadFile(path)
}

func specName(s *simspec.Spec) string {
	if s.Name != "" {
		return s.Name
	}
	return "simulation"
}

func precisionName(p int, pol bool) string {
	s := "fp64"
	if p == 1 {
		s = "fp32"
	}
	if pol {
		return s + " polarized"
	}
	return s + " unpolarized"
}

// readTopoUntil is readTopo returning at once when ctx is cancelled (a
// --topo file of every source at every time runs to gigabytes).
func readTopoUntil(ctx context.Context, path string) (matvis.Coordinates, error) {
	return untilCancelled(ctx, "reading --topo "+path, func() (matvis.Coordinates, error) { return readTopo(path) })
}

// readTopo reads a (ntimes, 3, nsrc) float64 .npy file.
func readTopo(path string) (matvis.Coordinates, error) {
	a, err := npy.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--topo: %w", err)
	}
	if len(a.Shape) != 3 || a.Shape[1] != 3 {
		return nil, fmt.Errorf("--topo %s: shape %v, want (ntimes, 3, nsrc)", path, a.Shape)
	}
	data, err := a.AsFloat64()
	if err != nil {
		return nil, fmt.Errorf("--topo %s: %w", path, err)
	}
	c, err := matvis.NewPrecomputed(a.Shape[0], a.Shape[2], data)
	if err != nil {
		return nil, fmt.Errorf("--topo %s: %w", path, err)
	}
	if err := checkUnitVectors(a.Shape[0], a.Shape[2], data); err != nil {
		return nil, fmt.Errorf("--topo %s: %w", path, err)
	}
	return c, nil
}

// topoUnitTol is how far from 1 the length of a --topo vector may be:
// float32 rounding stays far below it, a scaled or unnormalised vector not.
const topoUnitTol = 1e-6

// checkUnitVectors refuses (ntimes, 3, nsrc) ENU vectors that are not unit
// length, naming the first one by time and source index.
func checkUnitVectors(ntimes, nsrc int, data []float64) error {
	for ti := 0; ti < ntimes; ti++ {
		e, n, u := data[ti*3*nsrc:], data[(ti*3+1)*nsrc:], data[(ti*3+2)*nsrc:]
		for s := 0; s < nsrc; s++ {
			if l := math.Sqrt(e[s]*e[s] + n[s]*n[s] + u[s]*u[s]); !(math.Abs(l-1) <= topoUnitTol) {
				return fmt.Errorf("the vector of time %d, source %d: |v| = %v, want unit ENU direction vectors (|v| within %g of 1)", ti, s, l, topoUnitTol)
			}
		}
	}
	return nil
}

// checkWritable fails early, before any work, when the output's directory
// does not exist or cannot be written.
func checkWritable(path string) error {
	dir := filepath.Dir(path)
	// The output's own kind of temporary: a second interrupt or a kill
	// right now leaves nothing (RemoveLive, RemoveStale).
	f, err := atomicfile.CreateTemp(path)
	if err != nil {
		return fmt.Errorf("output -o %s: directory %s is not writable: %w", path, dir, err)
	}
	return atomicfile.Discard(f)
}
