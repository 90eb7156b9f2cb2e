package input

import "github.com/gomatvis/gomatvis/matvis"

// RunOverrides are run options given over an input's own (the CLI's
// --max-memory, --min-chunks, --source-buffer, --memory-buffer and
// --matprod): a zero field keeps the input's value (a spec's options
// section; matvis's default for a pyuvsim configuration, which has none).
// New checks the values as it checks the input's.
type RunOverrides struct {
	MaxMemory    int64
	MinChunks    int
	SourceBuffer float64
	MemoryBuffer float64
	MatProd      matvis.MatProd
	// StreamOutput says the caller streams the output by blocks
	// (matvis.Options.OutputStreamed): New counts none of it.
	StreamOutput bool
}

// apply sets o's options that r gives.
func (r RunOverrides) apply(o *matvis.Options) {
	if r.MaxMemory != 0 {
		o.MaxMemory = r.MaxMemory
	}
	if r.MinChunks != 0 {
		o.MinChunks = r.MinChunks
	}
	if r.SourceBuffer != 0 {
		o.SourceBuffer = r.SourceBuffer
	}
	if r.MemoryBuffer != 0 {
		o.MemoryBuffer = r.MemoryBuffer
	}
	if r.MatProd != "" {
		o.MatProd = r.MatProd
	}
	if r.StreamOutput {
		o.OutputStreamed = true
	}
}
