package nufftcpu

import (
	"fmt"
	"runtime"

	"github.com/gomatvis/gomatvis/internal/choicecache"
)

// The chooser's measurements kept on disk (Backend.TrialCache, through
// internal/choicecache): two runs of one shape on one machine then take
// the same path, and so give the same visibilities to the last bit,
// whichever process runs them — the transform and the direct product
// agree only to the transform's ε, and a close call measured again could
// go the other way.

// DefaultTrialCache is the trial cache the command line uses:
// nufftcpu-choices.json in the user's cache directory ("" when there is
// none).
func DefaultTrialCache() string { return choicecache.Path("nufftcpu-choices.json") }

// cachedTrial is a measurement as the cache file holds it.
type cachedTrial struct {
	NUFFT  float64 `json:"nufft_s"`
	Direct float64 `json:"direct_s"`
}

// trialKey names shape s on this machine: its CPU count and the backend's
// workers, which the times depend on, beside the shape.
func (b *Backend) trialKey(s shape) string {
	return fmt.Sprintf("%s/%s cpus%d workers%d|ant%d src%d pairs%d feeds%d p%d dim%d terms%d jobs%d freq%g",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), b.workers, s.nant, s.nsrc, s.npairs, s.nfeed, s.precision, s.dim, s.terms, s.jobs, s.freq)
}

// diskTrial reads shape s's measurement from the trial cache.
func (b *Backend) diskTrial(s shape) (measured, bool) {
	c, ok := choicecache.Get[cachedTrial](b.TrialCache, b.trialKey(s))
	if !ok || !(c.NUFFT > 0) || !(c.Direct > 0) {
		return measured{}, false
	}
	return measured{nufft: c.NUFFT, direct: c.Direct}, true
}

// keepTrial adds shape s's measurement to the trial cache.
func (b *Backend) keepTrial(s shape, t measured) {
	choicecache.Put(b.TrialCache, b.trialKey(s), cachedTrial{NUFFT: t.nufft, Direct: t.direct})
}
