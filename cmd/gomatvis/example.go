package main

import (
	"context"
	_ "embed"
	"flag"
	"fmt"
	"io"
	"os"
)

// exampleSpec is the default example: 19 antennas in a HERA-like hexagon,
// 400 sources, 9 channels at 100–120 MHz, 6 times, Gaussian 14 m beams.
//
//go:embed example.json
var exampleSpec string

func runExample(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("example", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "write the spec here instead of standard output")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" {
		_, err := io.WriteString(stdout, exampleSpec)
		return err
	}
	if err := os.WriteFile(*out, []byte(exampleSpec), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", *out, err)
	}
	return nil
}
