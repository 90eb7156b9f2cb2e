package main

import (
	"flag"
	"fmt"
	"github.com/gomatvis/gomatvis/matvis/input"
	"math"

	"github.com/gomatvis/gomatvis/matvis"
)

// runFlags are simulate's matvis options, for a spec and an obsparam
// alike: each given flag overrides the input's own value (a spec's
// precision and options section; an obsparam has none, and runs in
// float64 as pyuvsim does), named as the spec's fields.
type runFlags struct {
	precision    *int
	maxMemory    *int64
	minChunks    *int
	sourceBuffer *float64
	memoryBuffer *float64
	matprod      *string
	set          map[string]bool
}

// addRunFlags defines the run-option flags on fs.
func addRunFlags(fs *flag.FlagSet) *runFlags {
	return &runFlags{
		precision:    fs.Int("precision", 0, "1 (float32/complex64) or 2 (float64/complex128); overrides the spec's precision (default: the spec's; 2 for an obsparam, as pyuvsim)"),
		maxMemory:    byteSizeFlag(fs, "max-memory", "memory budget in `bytes` (default: the spec's options.max_memory_bytes, else the backend's available memory)"),
		minChunks:    fs.Int("min-chunks", 0, "least number of source chunks, as matvis's min_chunks (default: the spec's options.min_chunks, else 1)"),
		sourceBuffer: fs.Float64("source-buffer", 0, "fraction of a chunk's sources the per-chunk buffers hold, in (0, 1], as matvis's source_buffer (default: the spec's, else 1)"),
		memoryBuffer: fs.Float64("memory-buffer", 0, "fraction of the memory budget that may be used, in (0, 1] (default: the spec's options.memory_buffer, else 0.9)"),
		matprod:      fs.String("matprod", "", "herk or pairs, as matvis's matprod_method (default: the spec's options.matprod, else chosen by the run's size)"),
	}
}

// check records which flags were given (after fs.Parse) and refuses,
// as a usage error, a given value that is out of range.
func (r *runFlags) check(fs *flag.FlagSet) error {
	r.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { r.set[f.Name] = true })
	bad := func(name string, v any, want string) error {
		return fmt.Errorf("%w: --%s %v: %s", errUsage, name, v, want)
	}
	inUnit := func(x float64) bool { return x > 0 && x <= 1 && !math.IsNaN(x) }
	switch {
	case r.set["precision"] && *r.precision != 1 && *r.precision != 2:
		return bad("precision", *r.precision, "want 1 (float32) or 2 (float64)")
	case r.set["max-memory"] && *r.maxMemory <= 0:
		return bad("max-memory", *r.maxMemory, "want a positive number of bytes")
	case r.set["min-chunks"] && *r.minChunks < 1:
		return bad("min-chunks", *r.minChunks, "want at least 1")
	case r.set["source-buffer"] && !inUnit(*r.sourceBuffer):
		return bad("source-buffer", *r.sourceBuffer, "want a fraction in (0, 1]")
	case r.set["memory-buffer"] && !inUnit(*r.memoryBuffer):
		return bad("memory-buffer", *r.memoryBuffer, "want a fraction in (0, 1]")
	case r.set["matprod"] && *r.matprod != string(matvis.MatProdHerk) && *r.matprod != string(matvis.MatProdPairs):
		return bad("matprod", fmt.Sprintf("%q", *r.matprod), "want herk or pairs")
	}
	return nil
}

// overrides are the given flags other than --precision.
func (r *runFlags) overrides() input.RunOverrides {
	return input.RunOverrides{
		MaxMemory: *r.maxMemory, MinChunks: *r.minChunks,
		SourceBuffer: *r.sourceBuffer, MemoryBuffer: *r.memoryBuffer,
		MatProd: matvis.MatProd(*r.matprod),
	}
}
