// Package output streams a simulation's visibilities into files as the
// engine computes them. Run splits the run into blocks of its (frequency,
// time) grid, time-major, computes each on a backend and hands it to a
// BlockWriter on a goroutine of its own, so that writing overlaps the
// next block's compute and the run holds two blocks, not its whole output.
//
// A BlockWriter takes one finished block at a time, as archive/tar's and
// encoding/csv's writers take a record: NPY, UVH5 and UVFITS files, a
// shard's part file (Part) and a whole Result in memory (Collector) are
// written through it. The core, package matvis, knows no file format;
// this package and the formats' own (npy, uvh5, uvfits, matvis/uvdata,
// matvis/part) sit above it.
package output

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gomatvis/gomatvis/matvis"
)

// A BlockWriter writes a run's output block by block.
type BlockWriter interface {
	// WriteBlock writes the finished integrations (res.Done) of res, the
	// result of block b (Simulation.Subset(b)): all of them but for the
	// block a cancellation stopped. res's storage is reused once it
	// returns.
	WriteBlock(b matvis.Block, res *matvis.Result) error
	// Close finishes the file at its path; every integration must have
	// been written.
	Close() error
	// ClosePartial finishes what was written as a valid file at the
	// output's partial path (PartialPath), the rest marked missing as the
	// format marks it, and says what it kept; with nothing written it
	// writes no file and returns a zero Kept.
	ClosePartial() (Kept, error)
	// Abort discards the file; it is safe after Close and more than once.
	Abort() error
}

// A Summarizer is a BlockWriter whose file records how its run went (an
// npy's meta.json sidecar): Run hands it the run's summary before Close.
type Summarizer interface {
	Summarize(Summary)
}

// Kept is what a cancelled run's partial file holds.
type Kept struct {
	// Path is the partial file ("" when nothing was kept).
	Path string
	// Integrations of TotalIntegrations (frequency, time) integrations
	// were kept; Times of TotalTimes times were kept whole.
	Integrations, TotalIntegrations int
	Times, TotalTimes               int
	// ByTime says the format counts in times (UVH5, UVFITS: rows of
	// baseline-times), not integrations (npy).
	ByTime bool
	// Missing says how the file marks what was not kept.
	Missing string
}

// String says what was kept: "5 of 6 times finished, saved to P (the
// others flagged)", or "nothing finished: no file written".
func (k Kept) String() string {
	switch {
	case k.Path == "" && k.Integrations > 0 && k.Missing != "":
		return fmt.Sprintf("%d of %d integrations finished, none kept (%s)", k.Integrations, k.TotalIntegrations, k.Missing)
	case k.Path == "" || k.Integrations == 0:
		return "nothing finished: no file written"
	case !k.ByTime:
		return fmt.Sprintf("%d of %d integrations finished, saved to %s (%s)", k.Integrations, k.TotalIntegrations, k.Path, k.Missing)
	case k.Integrations > 0 && k.Integrations*k.TotalTimes != k.Times*k.TotalIntegrations:
		return fmt.Sprintf("%d of %d times finished (%d of %d integrations), saved to %s (%s)",
			k.Times, k.TotalTimes, k.Integrations, k.TotalIntegrations, k.Path, k.Missing)
	}
	return fmt.Sprintf("%d of %d times finished, saved to %s (%s)", k.Times, k.TotalTimes, k.Path, k.Missing)
}

// PartialPath is where a cancelled run's output goes: OUT.partial.EXT.
func PartialPath(out string) string {
	ext := filepath.Ext(out)
	return strings.TrimSuffix(out, ext) + ".partial" + ext
}
