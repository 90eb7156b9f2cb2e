package profile

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gomatvis/gomatvis/matvis"
)

// Summary is a sample's median, mean, sample standard deviation and size,
// in the samples' unit (seconds for times).
type Summary struct {
	Median float64 `json:"median"`
	Mean   float64 `json:"mean"`
	Std    float64 `json:"std"`
	N      int     `json:"n"`
}

// Summarize summarises xs (all zero for an empty sample; Std 0 for one).
func Summarize(xs []float64) Summary {
	n := len(xs)
	if n == 0 {
		return Summary{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	var sum float64
	for _, x := range s {
		sum += x
	}
	mean := sum / float64(n)
	var ss float64
	for _, x := range s {
		ss += (x - mean) * (x - mean)
	}
	std := 0.0
	if n > 1 {
		std = math.Sqrt(ss / float64(n-1))
	}
	return Summary{Median: med, Mean: mean, Std: std, N: n}
}

// RunFigures are the figures a run is reported by, per integration: the
// run's wall per integration, THE number (what one integration costs the
// run, everything the run did included), and beside it the timed chunk
// stages per integration (GPU time on a GPU: CUDA events) and, on a GPU,
// the fraction of the wall the devices were busy in them. Profile and
// simulate print the same line from it.
type RunFigures struct {
	// Backend is the run's backend (Stats.Backend: "cpu", "gpu", "gpu×2").
	Backend string
	// Integrations is the number of (frequency, time) integrations the
	// wall covers; Devices the backends they ran on (1 unless several).
	Integrations, Devices int
	// Wall is the run's wall time (s): from the start of the backend's
	// Run to its end, the backend's set-up (beam preparation, coordinate
	// caches, device buffers) and the first integrations included.
	Wall float64
	// ChunkTime is the sum of every chunk's stage times over the run,
	// over all devices (s): GPU seconds on a GPU, host seconds on the CPU.
	ChunkTime float64
}

// FiguresOf gives the figures of a run whose Stats are st, over wall
// seconds and n integrations.
func FiguresOf(st *matvis.Stats, wall float64, n int) RunFigures {
	var chunks time.Duration
	if st.Sampled != nil { // the chunks kept are a sample; the sum is of all
		chunks = st.Sampled.ChunkTime
	} else {
		for _, c := range st.Chunks {
			chunks += c.Stages.Total()
		}
	}
	return RunFigures{Backend: st.Backend, Integrations: n, Devices: max(1, len(st.Backends)), Wall: wall, ChunkTime: chunks.Seconds()}
}

// GPU says the stage times are GPU time (a GPU backend).
func (f RunFigures) GPU() bool { return strings.HasPrefix(f.Backend, "gpu") }

// WallPerIntegration is Wall over the integrations (0 for none).
func (f RunFigures) WallPerIntegration() float64 {
	if f.Integrations <= 0 {
		return 0
	}
	return f.Wall / float64(f.Integrations)
}

// ChunkTimePerIntegration is ChunkTime over the integrations (0 for none).
func (f RunFigures) ChunkTimePerIntegration() float64 {
	if f.Integrations <= 0 {
		return 0
	}
	return f.ChunkTime / float64(f.Integrations)
}

// BusyFraction is ChunkTime over Wall × Devices: on one device the GPU
// time per integration over the run's wall per integration; on several
// the mean over the devices of the fraction of the wall each spent in the
// timed stages. 1 − BusyFraction is the share of the wall the devices
// waited on the host (set-up, channel changes, launches, copies not
// timed). ok is false on the CPU (no GPU time) or for a zero wall.
func (f RunFigures) BusyFraction() (frac float64, ok bool) {
	if !f.GPU() || f.Wall <= 0 {
		return 0, false
	}
	return f.ChunkTime / (f.Wall * float64(max(1, f.Devices))), true
}

// String is the figures' console line, each figure named, e.g.
// "run wall per integration 0.0211 s (GPU time 0.0191 s, GPU busy 90 %)";
// on the CPU "run wall per integration 0.0211 s (host stage time 0.0190 s,
// no GPU time)".
func (f RunFigures) String() string {
	s := fmt.Sprintf("run wall per integration %.3g s", f.WallPerIntegration())
	if f.Devices > 1 {
		s += fmt.Sprintf(" over %d devices", f.Devices)
	}
	summed := ""
	if f.Devices > 1 {
		summed = " summed over the devices"
	}
	busy, ok := f.BusyFraction()
	switch {
	case ok:
		s += fmt.Sprintf(" (GPU time %.3g s%s, GPU busy %.0f %%)", f.ChunkTimePerIntegration(), summed, 100*busy)
	case f.GPU():
		s += fmt.Sprintf(" (GPU time %.3g s%s)", f.ChunkTimePerIntegration(), summed)
	default:
		s += fmt.Sprintf(" (host stage time %.3g s%s, no GPU time)", f.ChunkTimePerIntegration(), summed)
	}
	return s
}
