package matvis

import (
	"fmt"
	"time"
)

// Stage names a part of the per-chunk pipeline that is timed separately.
type Stage int

// The timed stages.
const (
	StageCoords   Stage = iota // ENU vectors, horizon cut, az/za
	StageBeam                  // beam evaluation
	StageTauZ                  // delays, phases and Z
	StageMatProd               // the Gram product
	StageTransfer              // host↔device copies (GPU)
	StageOther                 // everything else inside the loop
	NumStages
)

var stageNames = [NumStages]string{"coords", "beam", "tau_z", "matprod", "transfer", "other"}

// String is the stage's short name, as used in profiles.
func (s Stage) String() string {
	if s < 0 || s >= NumStages {
		return fmt.Sprintf("stage(%d)", int(s))
	}
	return stageNames[s]
}

// StageTimes holds one duration per stage.
type StageTimes [NumStages]time.Duration

// Total is the sum over stages.
func (t StageTimes) Total() time.Duration {
	var s time.Duration
	for _, d := range t {
		s += d
	}
	return s
}

// ChunkSample is the timing of one chunk of one integration.
type ChunkSample struct {
	Freq, Time, Chunk int
	// NSources counts the sources whose work the sample times, visible or
	// not: over an integration's samples they add up to the sky's source
	// count on every backend. The CPU cuts chunks from all sources; the
	// GPU cuts them from the visible ones after a horizon cut over all of
	// them, timed with chunk 0, which therefore also counts the sources
	// below the horizon. NVisible (≤ NSources) are the sources above the
	// horizon, the columns the chunk adds to the Gram product.
	NSources, NVisible int
	Stages             StageTimes
}

// Stats are a run's measurements.
type Stats struct {
	Backend string
	// MatProdImpl describes the Gram-product implementation used.
	MatProdImpl GramImpl
	// Setup is the time before the first integration (beam preparation,
	// coordinate caches, device set-up).
	Setup time.Duration
	// SetupSteps are the parts of Setup, in order, where the backend
	// times them (GPU).
	SetupSteps []TimedStep
	// Prepare is the host time spent preparing channels (fluxes, beam
	// tables) between integrations, where the backend measures it (GPU).
	Prepare time.Duration
	// ChannelPrep describes where a GPU run prepared each channel's beam
	// tables: "device" (a weighted sum of beam channels prefiltered once,
	// on the device's own stream while the previous channel integrates)
	// or "host: " and why; empty on the CPU.
	ChannelPrep string
	// ChannelPrepGPU is the device time of the channel preparations
	// (CUDA events on their stream), ChannelPreps how many ran, BeamBases
	// the set-up's preparation of every beam channel the run uses.
	ChannelPrepGPU, BeamBases time.Duration
	ChannelPreps              int
	// StokesFactors says where a full-Stokes sky's per-time factors were
	// made ("device", or "host" and why); empty for a Stokes-I sky.
	StokesFactors string
	// Integrations holds the wall time of each (freq, time) integration in
	// run order; a run over several backends (matvis/multi) or streamed in
	// blocks (matvis/output) holds them in grid order (frequency-major), 0
	// for an integration not run, and a long streamed run only every
	// Sampled.Stride-th of them.
	Integrations []time.Duration
	// Chunks holds per-chunk stage times in run order (of the integrations
	// Integrations keeps).
	Chunks []ChunkSample
	// Sampled, for a streamed run of more integrations than it keeps the
	// times of, says which it kept; nil when it kept them all.
	Sampled *Sampling
	// Total is the whole run's wall time.
	Total time.Duration
	// BeamInTauZ says the beam interpolation runs inside the tau_z stage
	// (one fused kernel, as on the GPU): the beam stage then times only
	// the gap before that kernel.
	BeamInTauZ bool
	// ZBytes is the size in bytes of one element of Z as the Gram product
	// reads it (0: 8·precision, complex of the run's precision); a
	// complex128 strategy on precision-1 data makes it 16.
	ZBytes int
	// Device is the device memory the run used (nil on the CPU).
	Device *DeviceMemory
	// Backends holds, for a run over several backends (matvis/multi), each
	// backend's share of the work; nil for a run on one backend.
	Backends []BackendStats
}

// Sampling describes the integrations a long run kept the times of:
// those whose grid index (frequency-major) is a multiple of Stride, so
// that what a run holds of its statistics is bounded, not proportional to
// its integrations; ChunkTime is the sum of every chunk's stage times
// over all of them.
type Sampling struct {
	Stride    int
	ChunkTime time.Duration
}

// TimedStep is one named part of a run's set-up and its wall time.
type TimedStep struct {
	Name string
	Time time.Duration
}

// BackendStats is one backend's share of a run over several backends.
type BackendStats struct {
	// Name names the backend, e.g. "gpu 1 (NVIDIA H200)".
	Name string
	// Blocks and Integrations count what the backend ran.
	Blocks, Integrations int
	// Busy is the sum of the backend's block runs' wall times; Setup and
	// Prepare sum their Stats.Setup and Stats.Prepare.
	Busy, Setup, Prepare time.Duration
	// Start and End are when its first block started and its last ended,
	// from the start of the run.
	Start, End time.Duration
	// ChunkTime is the sum of its chunks' stage times (on a GPU, device
	// time from CUDA events).
	ChunkTime time.Duration
	// Device is the device memory of its largest block run (nil on the
	// CPU).
	Device *DeviceMemory
}

// StageTotals sums the chunk samples per stage.
func (s *Stats) StageTotals() StageTimes {
	var t StageTimes
	for _, c := range s.Chunks {
		for i, d := range c.Stages {
			t[i] += d
		}
	}
	return t
}

// Result holds the visibilities of a run. Exactly one of Vis128
// (precision 2) and Vis64 (precision 1) is set; both are laid out in
// Shape's row-major order.
type Result struct {
	Shape     []int
	Precision int
	Vis128    []complex128
	Vis64     []complex64
	// Done marks finished integrations, index f·ntimes + t; all true after
	// a run that returned no error.
	Done  []bool
	Stats Stats
	Plan  MemoryPlan
}

// NewResult allocates the output of sim; for a simulation made by
// SubsetInto whose block is contiguous in the larger result, the output
// is that part of the larger result's memory instead (its Done flags and
// statistics are its own).
func NewResult(sim *Simulation) *Result {
	shape := sim.OutputShape()
	if v := sim.out; v != nil {
		return &Result{Shape: shape, Precision: sim.Options.Precision, Done: make([]bool, sim.NFreq()*sim.NTime()),
			Vis64: v.vis64, Vis128: v.vis128}
	}
	n := 1
	for _, d := range shape {
		n *= d
	}
	r := &Result{Shape: shape, Precision: sim.Options.Precision, Done: make([]bool, sim.NFreq()*sim.NTime())}
	if r.Precision == 1 {
		r.Vis64 = make([]complex64, n)
	} else {
		r.Vis128 = make([]complex128, n)
	}
	return r
}

// Data returns the visibility slice ([]complex64 or []complex128).
func (r *Result) Data() any {
	if r.Precision == 1 {
		return r.Vis64
	}
	return r.Vis128
}

// Index is the flat index of visibility (freq f, time t, pair k, feeds p, q);
// p and q are ignored for unpolarized results.
func (r *Result) Index(f, t, k, p, q int) int {
	i := (f*r.Shape[1]+t)*r.Shape[2] + k
	if len(r.Shape) == 5 {
		i = (i*2+p)*2 + q
	}
	return i
}

// At returns one visibility as complex128.
func (r *Result) At(f, t, k, p, q int) complex128 {
	i := r.Index(f, t, k, p, q)
	if r.Precision == 1 {
		return complex128(r.Vis64[i])
	}
	return r.Vis128[i]
}

// Set stores one visibility, rounding to complex64 in precision 1.
func (r *Result) Set(f, t, k, p, q int, v complex128) {
	i := r.Index(f, t, k, p, q)
	if r.Precision == 1 {
		r.Vis64[i] = complex64(v)
	} else {
		r.Vis128[i] = v
	}
}

// Complete reports whether every integration finished.
func (r *Result) Complete() bool {
	for _, d := range r.Done {
		if !d {
			return false
		}
	}
	return true
}
