package main

import (
	"context"
	"flag"
	"fmt"
	"github.com/gomatvis/gomatvis/matvis/input"
	"io"
	"time"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/simspec"
	"github.com/gomatvis/gomatvis/npy"
)

// runTopo writes the ENU unit vectors of every source at every time of a
// spec as float64 (ntimes, 3, nsrc), the layout of the references' topo.npy
// (before the horizon cut).
func runTopo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("topo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "output .npy file (required)")
	coord := &coordFlag{}
	fs.Var(coord, "coord-method", "coordinate `method`: erfa or astropy (CoordinateRotationERFA, CoordinateRotationAstropy also accepted); overrides the spec's coord_method")
	every := &optionalFloat{}
	fs.Var(every, "update-bcrs-every", "`seconds` between BCRS-step updates (erfa only; default: the spec's options.update_bcrs_every_s, else 0)")
	spec, err := parseSpecCommand(fs, args, out, "TOPO.npy", npyFormat())
	if err != nil {
		return err
	}
	method := spec.CoordMethod
	if coord.method != "" {
		method = coord.method
	}
	switch method {
	case "":
		method = simspec.CoordAstropy
	case simspec.CoordAstropy, simspec.CoordERFA:
	default:
		return fmt.Errorf("%w: coord method %q: want %s or %s", errUsage, method, simspec.CoordAstropy, simspec.CoordERFA)
	}
	bcrs := 0.0
	if spec.Options != nil {
		bcrs = spec.Options.UpdateBCRSEveryS
	}
	if every.set {
		bcrs = every.v
	}
	if method != simspec.CoordERFA {
		bcrs = 0
	}
	t0 := time.Now()
	rot, err := untilCancelled(ctx, "preparing the coordinates", func() (matvis.Coordinates, error) {
		return input.SpecCoordinates(spec, method, bcrs, warnTo(stderr))
	})
	if err != nil {
		return err
	}
	nt, ns := rot.NTimes(), rot.NSources()
	size := []matvis.MemoryTerm{{Name: "topo_output", Bytes: int64(nt) * 3 * int64(ns) * 8}}
	if err := matvis.CheckHostBudget(size, 0, 0); err != nil {
		return fmt.Errorf("topo: %d times × %d sources: %w", nt, ns, err)
	}
	data := make([]float64, nt*3*ns)
	for ti := 0; ti < nt; ti++ {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("topo: stopped at time %d of %d, nothing written: %w", ti, nt, err)
		}
		b := data[ti*3*ns:]
		if err := rot.ENU(ti, b[:ns], b[ns:2*ns], b[2*ns:3*ns]); err != nil {
			return err
		}
	}
	err = writeOutputs(*out, false, stderr, func() error { return npy.WriteFileAtomic(*out, []int{nt, 3, ns}, data) })
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d sources × %d times, %s, %.3g s → %s (%d, 3, %d) float64\n",
		specName(spec), ns, nt, method, time.Since(t0).Seconds(), *out, nt, ns)
	return nil
}
