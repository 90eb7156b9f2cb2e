package nufftcpu

import (
	"fmt"
	"runtime"
	"time"

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

// DefaultTrialWait is how long a run waits, by default, for another
// process measuring its shape: a trial costs about one integration as
// transforms, seconds to minutes.
const DefaultTrialWait = 10 * time.Minute

// decide is the chooser's decision for r before any trial. Where a trial
// is needed it holds the trial cache's lock of r's shape (release it once
// the measurement is remembered): processes started together on an empty
// cache then measure once, the others waiting for that measurement and
// taking the path it gives (choicecache.Lock) instead of measuring a
// close call of their own, which could go the other way and give other
// last bits. Past TrialWait the cost model decides, which depends on the
// shape only, not on timing.
func (b *Backend) decide(r *run) (useNUFFT bool, why string, needTrial bool, release func()) {
	s, e := r.shapeOf(), r.estimates()
	noop := func() {}
	if useNUFFT, why, needTrial = choose(e, b.remembered(s)); !needTrial {
		return useNUFFT, why, false, noop
	}
	wait := b.TrialWait
	if wait <= 0 {
		wait = DefaultTrialWait
	}
	release, locked := choicecache.Lock(b.TrialCache, b.trialKey(s), wait)
	if !locked {
		return e.nufft < e.direct, fmt.Sprintf("chooser: cost model, the transform is estimated %.3g s a time against %.3g s direct: another process has been measuring this shape for over %v (%s)",
			e.nufft, e.direct, wait, b.TrialCache), false, noop
	}
	// Another process may have measured this shape while we waited.
	if useNUFFT, why, needTrial = choose(e, b.remembered(s)); !needTrial {
		release()
		return useNUFFT, why, false, noop
	}
	return useNUFFT, why, true, release
}
