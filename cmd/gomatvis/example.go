package main

import (
	"context"
	_ "embed"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/gomatvis/gomatvis/internal/atomicfile"
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
	if st, err := os.Stat(*out); err == nil && st.IsDir() {
		return fmt.Errorf("output -o %s is a directory; name a file", *out)
	}
	// Atomic, as every output: a FIFO at -o (os.WriteFile blocked on it
	// until a reader came) is replaced, a failed write leaves nothing.
	if err := atomicfile.WriteBytes(*out, []byte(exampleSpec)); err != nil {
		return fmt.Errorf("writing %s: %w", *out, err)
	}
	return nil
}
