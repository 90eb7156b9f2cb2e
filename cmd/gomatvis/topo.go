package main

import (
	"context"
	"fmt"
	"io"
)

// runTopo writes ENU vectors; it needs the astrometry package (matvis/astro).
func runTopo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return fmt.Errorf("the astrometry package is not built yet")
}
