package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gomatvis/gomatvis/matvis/backends"
	"github.com/gomatvis/gomatvis/matvis/cblas"
	"github.com/gomatvis/gomatvis/matvis/profile"
	"github.com/gomatvis/gomatvis/plots"
)

func runRoofline(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("roofline", flag.ContinueOnError)
	fs.SetOutput(stderr)
	config := profileFlags(fs)
	from := fs.String("from", "", "a profile's summary.json whose stages to place (else run the profile flags' configuration)")
	out := fs.String("o", "", "output directory (required)")
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
	var rep *profile.Report
	if *from != "" {
		if err := checkFilesNotInputs(rooflineFiles(*out), namedAs([]string{*from}, "--from"), "choose another -o DIR"); err != nil {
			return err
		}
		rep, err = remeasureRoofline(ctx, *from, stderr)
	} else {
		var cfg profile.Config
		if cfg, err = config(); err != nil {
			return err
		}
		rep, err = profile.Run(ctx, cfg, profile.Options{
			Roofline: true, Command: "gomatvis roofline " + strings.Join(args, " "),
			Log: func(s string) { fmt.Fprintln(stderr, s) },
		})
		err = gpuOpenError(err)
	}
	if err != nil {
		return err
	}
	if err := saveRoofline(rep, *out); err != nil {
		return err
	}
	printRoofline(stdout, rep)
	return nil
}

// remeasureRoofline reads a profile's summary and measures the ceilings
// again on this machine at the profile's shape, on the device when the
// profile ran on one.
func remeasureRoofline(ctx context.Context, from string, stderr io.Writer) (*profile.Report, error) {
	rep, err := profile.ReadJSON(from)
	if err != nil {
		return nil, err
	}
	if rep.Roofline == nil && rep.Phases != nil {
		return nil, fmt.Errorf("%s is a simulate --profile run's, which places no stage on a roofline; gomatvis profile with its shape (--preset custom --nant …) makes one", from)
	}
	if rep.Roofline == nil {
		return nil, fmt.Errorf("%s has no roofline (profiled with --no-roofline); profile again", from)
	}
	blas := cblas.Choose()
	var meter profile.CeilingMeter = profile.CPUMeter{Herk: blas.Herk}
	if rep.Backend == "gpu" {
		be, _, err := backends.Open("gpu")
		if err != nil {
			return nil, fmt.Errorf("re-measuring a GPU profile's ceilings: %w", err)
		}
		defer be.Close()
		m, ok := be.(profile.CeilingMeter)
		if !ok {
			return nil, fmt.Errorf("the gpu backend measures no ceilings")
		}
		meter = m
	} else {
		rep.Machine.BLAS, rep.Machine.Warnings = blas.Herk.Name(), blas.Warnings
		if k := blas.Kernel; k.Library != "" {
			rep.Machine.BLASKernel = &k
		}
		for _, w := range blas.Warnings {
			fmt.Fprintf(stderr, "warning: %s\n", w)
		}
	}
	c, err := meter.MeasureCeilings(ctx, rep.Roofline.Shape)
	if err != nil {
		return nil, err
	}
	profile.AddDatasheet(&c, rep.Machine.GPU)
	rep.Roofline.Ceilings = c
	profile.SetFloors(rep)
	return rep, nil
}

// saveRoofline writes the roofline figure and rep's JSON into out.
func saveRoofline(rep *profile.Report, out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	f, err := profile.RooflineFigure(rep)
	if err != nil {
		return err
	}
	if _, err := plots.Save(f, out, rooflineName); err != nil {
		return err
	}
	return profile.WriteJSON(rep, filepath.Join(out, rooflineName+".json"))
}

// printRoofline prints the ceilings, each stage's place and the floors.
func printRoofline(stdout io.Writer, rep *profile.Report) {
	rl := rep.Roofline
	fmt.Fprintf(stdout, "ceilings (%s):\n", rl.Ceilings.Device)
	if rep.Backend != "gpu" {
		fmt.Fprintf(stdout, "  CPU Gram product: %s\n", machineBLAS(rep.Machine))
	}
	for _, c := range append(append([]profile.Ceiling(nil), rl.Ceilings.Bandwidth...), rl.Ceilings.Compute...) {
		fmt.Fprintf(stdout, "  %-40s %10.3g %s\n", c.Name, c.Value, c.Unit)
	}
	fmt.Fprintf(stdout, "stages per chunk (Gram shape M=%d K=%d):\n", rl.Shape.M, rl.Shape.K)
	for _, p := range rl.Points {
		fmt.Fprintf(stdout, "  %-8s %10.3g FLOP %10.3g B  intensity %7.3g  %10.3g s  %10.3g FLOP/s\n", p.Stage, p.FLOPs, p.Bytes, p.Intensity, p.Seconds, p.FLOPRate)
	}
	for _, l := range rep.FloorLines() {
		fmt.Fprintln(stdout, l)
	}
}

// rooflineName is the base name of roofline's outputs in -o DIR.
const rooflineName = "roofline"

// rooflineFiles are the files roofline writes in dir: the figure (as
// plots.Save names it) and the report.
func rooflineFiles(dir string) []string {
	var files []string
	for _, ext := range []string{".png", ".svg", ".json"} {
		files = append(files, filepath.Join(dir, rooflineName+ext))
	}
	return files
}

// machineBLAS names a profile's CPU Gram product and its kernel.
func machineBLAS(m profile.Machine) string {
	k := m.BLASKernel
	if k == nil || k.CoreName == "" {
		return m.BLAS
	}
	s := m.BLAS + "; kernel " + k.CoreName
	if k.CoreType != "" {
		s += " (" + cblas.CoreTypeEnv + "=" + k.CoreType + ")"
	}
	return s
}
