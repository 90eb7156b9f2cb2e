// Command gomatvis simulates radio-interferometer visibilities as HERA's
// matvis does, on the CPU or a CUDA GPU.
//
//	gomatvis simulate SPEC.json -o OUT.npy [--backend cpu|gpu|auto] [--gpu-fused auto|on|off] [--topo TOPO.npy]
//	gomatvis topo SPEC.json -o TOPO.npy [--coord-method M]
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
	"syscall"
)

// command is one subcommand.
type command struct {
	name, usage string
	run         func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"simulate", "simulate SPEC.json -o OUT.npy [--backend cpu|gpu|auto] [--gpu-fused auto|on|off] [--topo TOPO.npy]: run a simulation (SPEC \"example\" uses the embedded example)", runSimulate},
		{"topo", "topo SPEC.json -o TOPO.npy [--coord-method M]: write the ENU vectors of every source and time", runTopo},
		{"example", "example [-o SPEC.json]: print or write the embedded example spec", runExample},
		{"profile", "profile --preset prodslice|dev|custom [--nant N --nbeam N --nsrc N --ntimes N --nfreq N --nchunks N --precision 1|2 --polarized --gridded --backend B --scaling] -o DIR: synthetic profiling run; writes DIR/summary.json and figures", runProfile},
		{"roofline", "roofline [--from DIR/summary.json | profile flags] -o DIR: measure the machine's ceilings and place each stage on a roofline", runRoofline},
		{"version", "version: print the version", runVersion},
	}
}

// errUsage marks errors that should be followed by the usage text.
var errUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmds := commands()
	usage := func() {
		fmt.Fprintln(stderr, "usage: gomatvis COMMAND [flags]")
		for _, c := range cmds {
			fmt.Fprintf(stderr, "  gomatvis %s\n", c.usage)
		}
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
			case errors.Is(err, errUsage):
				fmt.Fprintf(stderr, "gomatvis %s: %v\nusage: gomatvis %s\n", c.name, err, c.usage)
				return 2
			}
			fmt.Fprintf(stderr, "gomatvis %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "gomatvis: unknown command %q\n", args[0])
	usage()
	return 2
}

// parseFlags parses args with interleaved positional arguments (Go's flag
// package stops at the first one) and returns the positionals.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
