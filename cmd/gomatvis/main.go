// Command gomatvis simulates radio-interferometer visibilities as HERA's
// matvis does, on the CPU or a CUDA GPU.
//
//	gomatvis simulate SPEC.json|OBSPARAM.yaml -o OUT.npy|OUT.uvh5|OUT.uvfits|OUT.ms [--backend cpu|nufftcpu|gpu|auto] [--devices all|0,1] [--gpu-fused auto|on|off] [--gpu-nufft auto|off|on] [--topo TOPO.npy] [--eop FILE] [--precision 1|2] [--matprod herk|pairs] [--min-chunks N] …
//	gomatvis simulate CONFIG --shard I/N -o PART.gmvpart [--format uvh5|npy]
//	gomatvis merge PART.gmvpart… -o OUT.uvh5|OUT.npy
//	gomatvis slurm CONFIG --tasks N -o OUT --workdir DIR [--submit]
//	gomatvis image RUN.uvh5|RUN.ms -o IMG.fits|IMG.png [--psf] [--size N] [--scale ARCMIN] [--weight natural|uniform|briggs:R] [--pol I|xx|yy]
//	gomatvis topo SPEC.json -o TOPO.npy [--coord-method erfa|astropy]
//	gomatvis example -o SPEC.json
//	gomatvis version
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/gomatvis/gomatvis/internal/atomicfile"
)

// command is one subcommand.
type command struct {
	name, usage string
	run         func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"simulate", "simulate SPEC.json|OBSPARAM.yaml -o OUT.npy|OUT.uvh5|OUT.uvfits|OUT.ms [--phase-center RA_DEG,DEC_DEG] [--uvfits-drift] [--backend cpu|nufftcpu|gpu|auto] [--devices all|0,1,…] [--gpu-fused auto|on|off] [--gpu-nufft auto|off|on] [--topo TOPO.npy] [--eop FILE] [--coord-method erfa|astropy] [--stokes-rotation pyradiosky|iau] [--precision 1|2] [--max-memory BYTES] [--min-chunks N] [--source-buffer F] [--memory-buffer F] [--block BYTES] [--matprod herk|pairs] [--shard I/N -o PART.gmvpart [--format uvh5|npy]]: run a simulation, or one shard of it (SPEC \"example\" uses the embedded example)", runSimulate},
		{"merge", "merge PART.gmvpart… -o OUT.uvh5|OUT.npy: join the parts of a sharded run (simulate --shard I/N), checking that they come from one configuration and that none is missing or doubled", runMerge},
		{"slurm", "slurm CONFIG --tasks N -o OUT --workdir DIR [--backend B] [--gpus-per-task G] [--partition P] [--time T] [--mem M] [--submit]: write (and submit) a Slurm array of shards and the merge that waits for it", runSlurm},
		{"image", imageUsage, runImage},
		{"topo", "topo SPEC.json -o TOPO.npy [--coord-method erfa|astropy]: write the ENU vectors of every source and time", runTopo},
		{"example", "example [-o SPEC.json]: print or write the embedded example spec", runExample},
		{"profile", "profile --preset prodslice|dev|custom [--nant N --nbeam N --nsrc N --ntimes N --nfreq N --nchunks N --precision 1|2 --polarized --gridded --backend cpu|nufftcpu|gpu|auto --coord-method erfa|precomputed --scaling --roofline] -o DIR: synthetic profiling run; writes DIR/summary.json and figures", runProfile},
		{"roofline", "roofline [--from DIR/summary.json | profile flags] -o DIR: measure the machine's ceilings and place each stage on a roofline", runRoofline},
		{"version", "version (or --version): print the version", runVersion},
	}
}

// errUsage marks errors that should be followed by the usage text.
var errUsage = errors.New("usage")

// exitInterrupted is the exit code of a run stopped by SIGINT or SIGTERM
// (128 + SIGINT, as shells report an interrupted command).
const exitInterrupted = 130

func main() { os.Exit(mainCode()) }

// mainCode is main up to its exit: the process's exit code (the tests
// that run main in a child read its memory before it exits).
func mainCode() int {
	ctx, cancel := context.WithCancel(context.Background())
	stop := onSignals(cancel, os.Stderr, exitNow)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	cancel()
	if code == exitInterrupted {
		// A step abandoned at the interrupt (untilCancelled) may still
		// hold a temporary; the process ends now.
		exitNow()
	}
	return code
}

// exitNow ends the process at a second interrupt, removing first the
// temporaries of the writes still in flight (the output being streamed,
// a group being written), which would otherwise stay behind.
func exitNow() {
	removed, err := atomicfile.RemoveLive()
	for _, r := range removed {
		fmt.Fprintf(os.Stderr, "gomatvis: removed the unfinished %s\n", r)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gomatvis: %v\n", err)
	}
	os.Exit(exitInterrupted)
}

// onSignals cancels the run at the first SIGINT or SIGTERM (it then stops
// at the next check, keeping finished work) and calls exit at the second.
// stop ends the watch but leaves the signals caught: the process is about
// to exit, and restoring their default action there would let a second
// interrupt that arrives after the run has wound down kill the process by
// the signal instead of letting it exit with status 130 (CI saw this).
func onSignals(cancel context.CancelFunc, stderr io.Writer, exit func()) (stop func()) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	return watchSignals(ch, cancel, stderr, exit)
}

// watchSignals acts on the signals from ch (see onSignals) until stop is
// called. stop returns only once the watching goroutine has ended, so a
// signal that arrives after stop never cancels: deciding between the two
// by a select on ch and a closed channel was a race, since a select with
// both ready picks either, and under load a signal that came after stop
// could still cancel a run that had finished (TestSignalAfterStopDoesNotKill
// saw exit 3 at load 12).
func watchSignals(ch <-chan os.Signal, cancel context.CancelFunc, stderr io.Writer, exit func()) (stop func()) {
	w := &signalWatch{cancel: cancel, stderr: stderr, exit: exit}
	done, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		for {
			select {
			case <-ch:
				if !w.handle() {
					return
				}
			case <-done:
				return
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			w.mu.Lock()
			w.stopped = true
			w.mu.Unlock()
			close(done)
			<-ended
		})
	}
}

// signalWatch is the state of a watch: the run's cancel, the exit at a
// second signal, how many signals it has acted on, and whether it was
// stopped. The lock makes "stopped" and "act on a signal" exclusive, so
// the goroutine never acts once stop has begun.
type signalWatch struct {
	cancel  context.CancelFunc
	stderr  io.Writer
	exit    func()
	mu      sync.Mutex
	stopped bool
	seen    int
}

// handle acts on one signal unless the watch was stopped: the first
// cancels the run, the second exits. It reports whether to keep watching.
func (w *signalWatch) handle() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return false
	}
	w.seen++
	if w.seen == 1 {
		fmt.Fprintln(w.stderr, "\ngomatvis: interrupted: stopping at the next check and keeping finished work; interrupt again to exit at once")
		w.cancel()
		return true
	}
	fmt.Fprintln(w.stderr, "gomatvis: interrupted again: exiting now")
	w.exit()
	return false
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmds := commands()
	usage := func() {
		fmt.Fprintln(stderr, "usage: gomatvis COMMAND [flags]   (gomatvis COMMAND --help: its flags; gomatvis --version)")
		for _, c := range cmds {
			fmt.Fprintf(stderr, "  gomatvis %s\n", c.usage)
		}
	}
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		args[0] = "version"
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage()
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range cmds {
		if c.name == args[0] {
			err := c.run(ctx, args[1:], stdout, stderr)
			switch {
			case err == nil:
				return 0
			case errors.Is(err, flag.ErrHelp):
				return 0
			case errors.As(err, new(badFlagError)):
				fmt.Fprintf(stderr, "gomatvis %s: %v\n", c.name, err)
				return 2
			case errors.Is(err, errUsage):
				fmt.Fprintf(stderr, "gomatvis %s: %v\nusage: gomatvis %s\n", c.name, err, c.usage)
				return 2
			case errors.Is(err, context.Canceled) && ctx.Err() != nil:
				fmt.Fprintln(stderr, interruptedLine(c.name, err))
				return exitInterrupted
			}
			fmt.Fprintf(stderr, "gomatvis %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintln(stderr, unknownCommand(args[0], cmds))
	usage()
	return 2
}

// parseFlags parses args with interleaved positional arguments (Go's flag
// package stops at the first one) and returns the positionals.
// It also gives fs the command's usage text for --help and reads the
// boolean spellings of normalizeBoolArgs.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	setUsage(fs)
	args = normalizeBoolArgs(fs, args)
	var pos []string
	for {
		if err := parseQuietly(fs, args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, flagError(fs, err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
