package nufftcpu

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/gomatvis/gomatvis/internal/atomicfile"
	"github.com/gomatvis/gomatvis/internal/inputfile"
)

// maxTrialCache bounds the trial cache read back (a shape's entry is about
// 150 bytes): a larger file, or one that is not a regular file, is a
// miss, not a stall.
const maxTrialCache = 4 << 20

// The chooser's measurements kept on disk (Backend.TrialCache): two runs of
// one shape on one machine then take the same path, and so give the same
// visibilities to the last bit, whichever process runs them — the
// transform and the direct product agree only to the transform's ε, and a
// close call measured again could go the other way.

// DefaultTrialCache is the trial cache the command line uses:
// nufftcpu-choices.json in the user's cache directory ("" when there is
// none).
func DefaultTrialCache() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "gomatvis", "nufftcpu-choices.json")
}

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
	if b.TrialCache == "" {
		return measured{}, false
	}
	data, err := inputfile.ReadAll(b.TrialCache, maxTrialCache)
	if err != nil {
		return measured{}, false
	}
	m := map[string]cachedTrial{}
	if json.Unmarshal(data, &m) != nil {
		return measured{}, false
	}
	c, ok := m[b.trialKey(s)]
	if !ok || !(c.NUFFT > 0) || !(c.Direct > 0) {
		return measured{}, false
	}
	return measured{nufft: c.NUFFT, direct: c.Direct}, true
}

// keepTrial adds shape s's measurement to the trial cache; a failure only
// means measuring again next time, so it is not reported.
func (b *Backend) keepTrial(s shape, t measured) {
	if b.TrialCache == "" {
		return
	}
	m := map[string]cachedTrial{}
	if data, err := inputfile.ReadAll(b.TrialCache, maxTrialCache); err == nil {
		_ = json.Unmarshal(data, &m)
	}
	m[b.trialKey(s)] = cachedTrial{NUFFT: t.nufft, Direct: t.direct}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return
	}
	_ = os.MkdirAll(filepath.Dir(b.TrialCache), 0o755)
	_ = atomicfile.WriteBytes(b.TrialCache, data)
}
