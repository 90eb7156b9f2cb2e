package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync"

	"github.com/gomatvis/gomatvis/internal/atomicfile"
	"github.com/gomatvis/gomatvis/internal/runclock"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backends"
	"github.com/gomatvis/gomatvis/matvis/output"
	"github.com/gomatvis/gomatvis/matvis/profile"
	"github.com/gomatvis/gomatvis/matvis/simspec"
)

// profileFlags registers the synthetic-run flags shared by profile and
// roofline and returns a function giving the configuration: the preset,
// then every flag given explicitly.
func profileFlags(fs *flag.FlagSet) func() (profile.Config, error) {
	preset := fs.String("preset", "dev", "prodslice, dev or custom")
	nant := fs.Int("nant", 0, "antennas")
	nbeam := fs.Int("nbeam", 0, "unique beams (0: one per antenna)")
	nsrc := fs.Int("nsrc", 0, "sources")
	ntimes := fs.Int("ntimes", 0, "times")
	nfreq := fs.Int("nfreq", 0, "channels")
	nchunks := fs.Int("nchunks", 0, "least number of source chunks")
	prec := fs.Int("precision", 0, "1 (fp32) or 2 (fp64)")
	pol := fs.Bool("polarized", true, "polarized run")
	gridded := fs.Bool("gridded", true, "beams sampled on a 360×181 az/za grid (false: analytic Gaussian)")
	stokes := fs.Bool("stokes", false, "a full-Stokes sky (Q, U, V on every source; docs/stokes.md)")
	backend := fs.String("backend", "auto", "cpu, nufftcpu (the type-3 transform on the CPU; its stages on the roofline: strengths+spread, fft+interp), gpu or auto")
	coords := &coordFlag{method: simspec.CoordERFA}
	fs.Var(coords, "coord-method", "coordinate `method`: erfa (matvis's ERFA, as its profiler) or precomputed (random ENU vectors: no astrometry cost); CoordinateRotationERFA also accepted")
	fs.Var(coords, "coords", "the same as --coord-method (its older `name`)")
	seed := fs.Uint64("seed", 42, "random seed")
	maxMem := byteSizeFlag(fs, "max-memory", "memory budget in `bytes` (0: the backend's default)")
	return func() (profile.Config, error) {
		c, err := profile.Preset(*preset)
		if err != nil {
			return c, fmt.Errorf("%w: %w", errUsage, err)
		}
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "nant":
				c.NAnt = *nant
			case "nbeam":
				c.NBeam = *nbeam
			case "nsrc":
				c.NSrc = *nsrc
			case "ntimes":
				c.NTimes = *ntimes
			case "nfreq":
				c.NFreq = *nfreq
			case "nchunks":
				c.NChunks = *nchunks
			case "precision":
				c.Precision = *prec
			case "polarized":
				c.Polarized = *pol
			case "gridded":
				c.Gridded = *gridded
			case "stokes":
				c.Stokes = *stokes
			case "seed":
				c.Seed = *seed
			case "max-memory":
				c.MaxMemory = *maxMem
			}
		})
		c.Backend = *backend
		switch coords.method {
		case simspec.CoordERFA:
			c.Coords = "erfa"
		case simspec.CoordPrecomputed:
			c.Coords = "precomputed"
		default:
			return c, fmt.Errorf("%w: coord method %q: a profile runs erfa or precomputed", errUsage, coords.method)
		}
		// A smaller antenna count than the preset's beams keeps one beam
		// per antenna.
		if c.NBeam > c.NAnt {
			c.NBeam = c.NAnt
		}
		if c.NChunks > c.NSrc {
			c.NChunks = c.NSrc
		}
		if err := c.Validate(); err != nil {
			return c, fmt.Errorf("%w: %w", errUsage, err)
		}
		return c, c.CheckMemory()
	}
}

func runProfile(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("profile", flag.ContinueOnError)
	fs.SetOutput(stderr)
	config := profileFlags(fs)
	out := fs.String("o", "", "output directory (required)")
	roof := fs.Bool("roofline", true, "measure the machine's ceilings and place each stage on a roofline (--no-roofline: skip)")
	scaling := fs.Bool("scaling", true, "add N_src and N_ant sweeps (6 short runs at ¼, ½ and 1 of the size) and their figures (--no-scaling: skip)")
	gogc := fs.Int("gogc", 0, "GOGC during the measured run (e.g. 10: peak heap close to the live peak; 0: unchanged)")
	blocks := fs.Int("blocks", 0, "with --devices: cut the run into this many (frequency, time) blocks (0: 4 per device); each block pays the per-channel set-up on its device")
	devices := fs.String("devices", "", "all or a list of device ordinals (0,1,…): run the profile over these GPUs as simulate --devices does (warm-up on each); with --backend cpu a list of k splits the cores into k backends")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 || *out == "" {
		return fmt.Errorf("%w: -o DIR is required and nothing else", errUsage)
	}
	if err := checkOutputDir(*out); err != nil {
		return err
	}
	cfg, err := config()
	if err != nil {
		return err
	}
	if cfg.Devices, err = checkDevices(*devices); err != nil {
		return err
	}
	if cfg.Blocks = *blocks; cfg.Blocks < 0 {
		return fmt.Errorf("%w: --blocks %d: must not be negative", errUsage, cfg.Blocks)
	}
	rep, err := profile.Run(ctx, cfg, profile.Options{
		Roofline: *roof, Scaling: *scaling, GCPercent: *gogc,
		Command: "gomatvis profile " + strings.Join(args, " "),
		Log:     func(s string) { fmt.Fprintln(stderr, s) },
	})
	if err != nil {
		return gpuOpenError(err)
	}
	if err := profile.WriteDir(rep, *out); err != nil {
		return err
	}
	printHeadline(stdout, rep, filepath.Join(*out, "summary.json"))
	printDevices(stdout, rep)
	if cp := rep.ChannelPrep; cp != nil {
		fmt.Fprintf(stdout, "channel preparation: %s; %d channel changes, %.3f ms of GPU time each; every beam channel prepared at set-up in %.3f s; host time on channel changes %.3f s\n",
			cp.Where, cp.Count, cp.PerChannelGPUSeconds*1e3, cp.BasesSeconds, cp.HostSeconds)
	}
	if dm := rep.Memory.Device; dm != nil {
		fmt.Fprintf(stdout, "device memory: %.3f GB used at peak (cuMemGetInfo), backend allocations %.3f GB, model %.3f GB at %d chunks (raw beam grids %.3f GB)\n",
			float64(dm.UsedPeakBytes)/1e9, float64(dm.AllocatedPeakBytes)/1e9, float64(rep.Memory.Plan.Total)/1e9, rep.Memory.Plan.NChunks,
			float64(rep.Memory.Plan.Term(matvis.TermBeamGrid))/1e9)
	}
	if rl := rep.Roofline; rl != nil {
		for _, c := range append(append([]profile.Ceiling(nil), rl.Ceilings.Bandwidth...), rl.Ceilings.Compute...) {
			fmt.Fprintf(stdout, "ceiling %-44s %10.4g %s\n", c.Name, c.Value, c.Unit)
		}
	}
	for _, l := range rep.FloorLines() {
		fmt.Fprintln(stdout, l)
	}
	return nil
}

// checkDevices checks a --devices value ("" for one backend) and returns
// it trimmed; a malformed list is a usage error.
func checkDevices(spec string) (string, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return "", nil
	}
	if _, _, err := backends.ParseDevices(spec); err != nil {
		return "", fmt.Errorf("%w: --devices: %w", errUsage, err)
	}
	return spec, nil
}

// printHeadline prints the profile's first result line: the backend, the
// run's wall per integration by name with the GPU (or host) stage time and
// the GPU busy fraction beside it (profile.Report.Headline), the size, the
// memory and where summary.json is, which holds the rest (the steady
// median, the host overhead, the per-stage times).
func printHeadline(w io.Writer, rep *profile.Report, summary string) {
	cfg := rep.Config
	fmt.Fprintf(w, "%s: %s; %d ants, %d sources, %d chunk(s) per integration; peak heap %.1f MB, model %.1f MB; the rest in %s\n",
		rep.Backend, rep.Headline(), cfg.NAnt, cfg.NSrc, rep.Derived.ChunksPerIntegration,
		float64(rep.Memory.MeasuredPeakHeapBytes)/1e6, float64(rep.Memory.Plan.Total)/1e6, summary)
}

// printDevices prints the measured run's wall time, its set-up and the
// Gram product used, and, for a run over several devices, each device's
// share.
func printDevices(w io.Writer, rep *profile.Report) {
	n := len(rep.PerIntegration)
	fmt.Fprintf(w, "measured run: wall %.3f s for %d integrations on %d device(s), set-up %.3f s of it; matprod: %s\n",
		rep.Timing.Run, n, rep.Derived.Devices, rep.Timing.Setup, rep.MatProd)
	for _, s := range rep.Devices {
		fmt.Fprintf(w, "  %-32s %3d blocks %5d integrations  busy %8.3f s (%3.0f%% of the wall)  stages %8.3f s",
			s.Name, s.Blocks, s.Integrations, s.BusySeconds, 100*s.BusyFraction, s.ChunkSeconds)
		if s.DeviceUsedBytes != nil {
			fmt.Fprintf(w, "  device memory %.3f GB", float64(*s.DeviceUsedBytes)/1e9)
		}
		fmt.Fprintf(w, "\n  %-32s from %.3f to %.3f s of the run; set-up %.3f s, channel preparation %.3f s\n", "", s.StartSeconds, s.EndSeconds, s.SetupSeconds, s.PrepareSeconds)
	}
}

// checkProfileDir fails before any work when simulate --profile DIR
// cannot be created or written.
func checkProfileDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--profile %s: cannot create the directory: %w", dir, err)
	}
	f, err := atomicfile.CreateTemp(filepath.Join(dir, "summary.json"))
	if err != nil {
		return fmt.Errorf("--profile %s: the directory is not writable: %w", dir, err)
	}
	return atomicfile.Discard(f)
}

// writeRunProfile writes simulate --profile's DIR: a real run's
// summary.json in the profile's schema, its phases included, and its
// figures (profile.FromRun). It runs after the phases are taken, so its
// own time is in none of them.
func writeRunProfile(dir string, args []string, sim *matvis.Simulation, sum *output.Summary, be matvis.Backend, coords string, ph runclock.Phases, stdout io.Writer) error {
	rep := profile.FromRun(sim, &sum.Stats, sum.Plan, profile.RunInfo{
		Command: "gomatvis simulate " + strings.Join(args, " "), Backend: be, Coords: coords,
		Wall: sum.Compute, Phases: ph, Blocks: sum.Blocks,
	})
	if err := profile.WriteDir(rep, dir); err != nil {
		return fmt.Errorf("--profile: %w", err)
	}
	fmt.Fprintf(stdout, "profile of this run (stages, memory, phases): %s\n", filepath.Join(dir, "summary.json"))
	return nil
}

// startCPUProfile starts Go's CPU profile of the run, for DIR/cpu.pprof
// (`go tool pprof gomatvis DIR/cpu.pprof`: where the host's time goes,
// which the stage figures do not split). The returned stop ends it and
// writes the file; when the profiler is busy (another run in this
// process) the run goes on without it, saying so.
func startCPUProfile(dir string, stderr io.Writer) (stop func()) {
	path := filepath.Join(dir, "cpu.pprof")
	var buf bytes.Buffer
	if err := pprof.StartCPUProfile(&buf); err != nil {
		fmt.Fprintf(stderr, "--profile: %s not written: %v\n", path, err)
		return func() {}
	}
	return sync.OnceFunc(func() {
		pprof.StopCPUProfile()
		if err := atomicfile.WriteBytes(path, buf.Bytes()); err != nil {
			fmt.Fprintf(stderr, "--profile: %s not written: %v\n", path, err)
		}
	})
}
