package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/gomatvis/gomatvis/matvis/part"
)

// runMerge joins the parts of a sharded run into one UVH5 or npy file.
func runMerge(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "merged output: OUT.uvh5 (parts made with --format uvh5) or OUT.npy (with OUT.meta.json; parts made with --format npy)")
	parts, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(parts) == 0 {
		return fmt.Errorf("%w: no PART%s files given", errUsage, partExt)
	}
	if *out == "" {
		return fmt.Errorf("%w: -o OUT.uvh5 or OUT.npy is required", errUsage)
	}
	if err := checkOutputName(*out, simulateFormats()); err != nil {
		return err
	}
	if err := checkNotInput(*out, parts); err != nil {
		return err
	}
	t0 := time.Now()
	set, err := untilCancelled(ctx, "opening the parts", func() (*part.Set, error) { return part.OpenSet(parts) })
	if err != nil {
		return err
	}
	defer set.Close()
	for _, n := range set.Notes {
		fmt.Fprintf(stderr, "note: %s\n", n)
	}
	m := set.Meta()
	err = writeOutputs(*out, true, stderr, func() error {
		if isUVH5(*out) {
			return set.WriteUVH5(ctx, *out)
		}
		return set.WriteNpy(ctx, *out, metaPath(*out))
	})
	if err != nil {
		return fmt.Errorf("writing %s: %w", *out, err)
	}
	fmt.Fprintf(stdout, "merged %d parts (config %s…, %d freqs × %d times) in %.3g s → %s\n",
		len(set.Parts), m.ConfigHash[:12], m.NFreq, m.NTime, time.Since(t0).Seconds(), *out)
	return nil
}
