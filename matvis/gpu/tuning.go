// The kernels' launch and shape constants the H200 measurements chose, and
// the few knobs tests turn.

package gpu

// Constants of the kernels' shapes, each the value the measurements in
// bench/RESULTS.md and bench/gpu-notes.md chose; the alternatives tried
// were slower or no faster.
const (
	// sortBands and sortAzBins are the visible sources' ordering: zenith
	// angle bands over [0, π/2] and azimuth bins over [0, 2π) (NBAND,
	// NAZBIN in vis.cu). 90 × 360 (1° × 1°, the HERA beam grid's spacing)
	// measured fastest of 23×180 … 128×256 … 64×512 for the fused beam
	// kernel at dev and prodslice.
	sortBands, sortAzBins = 90, 360
	// antennasPerBlock is the antenna group of one block of beam_tau_z
	// (its grid's y dimension is the number of groups).
	antennasPerBlock = 8
	// gram_fused's FG_NP producer warps, FG_NC tensor-core consumer
	// warps, FG_NBUF Z buffers (two named barriers each, of 16) and FG_TS
	// sources per slice on the per-thread-gather path.
	fusedProducerWarps, fusedConsumerWarps = 16, 4
	fusedBuffers, fusedSliceSources        = 2, 32
)

// tuning holds what tests turn through Backend.tune to reach paths the
// defaults do not take; a run copies it when it starts.
type tuning struct {
	// fusedStackedSlice is gram_fused's FG_TS on the stacked path (its
	// beam values take shared memory from the Z buffers); tests raise it
	// to cover a slice wider than a chunk's sources.
	fusedStackedSlice int
	// fusedF16 makes gram_fused's products FP16 splits (FG_F16) instead
	// of TF32 splits: measured faster at dev (0.47–0.48 vs 0.60 ms per
	// chunk) and as accurate (precision gate 5.0e-7 vs 8.4e-7); the TF32
	// splits stay as the alternative the precision tests compare.
	fusedF16 bool
	// backgroundResult is the result size (bytes) from which a run
	// allocates its result beside its set-up and first integrations
	// (matvis.LateResult) instead of before them: a large allocation in a
	// heap with freed spans is zeroed at once on one thread (2.5–2.8 s
	// for prodslice's 2 GB at 64 channels × 16 times on the H200's host).
	// Below it the allocation costs less than the goroutine's hand-over
	// is worth; tests set 0 to cover the held integrations.
	backgroundResult int64
	// streamBases makes the device's channel preparation stream its
	// bases through a window (beamwindow.go) even when every used beam
	// channel fits, as it does when they do not.
	streamBases bool
	// nufftEps is the transform's accuracy by precision (index 0:
	// precision 1): nufftEpsSingle and nufftEpsDouble; tests lower the
	// float64 one where a direct product's per-baseline bar applies.
	nufftEps [2]float64
	// nufftSetup is the plan-free estimate's threshold (seconds of the
	// direct product in all, below which NUFFTAuto does not build the
	// transform): nufftSetupSeconds; tests set 0 to reach the
	// measurement on small runs.
	nufftSetup float64
}

// defaultTuning is what Open sets.
func defaultTuning() tuning {
	return tuning{fusedStackedSlice: 16, fusedF16: true, backgroundResult: 64 << 20, nufftEps: [2]float64{nufftEpsSingle, nufftEpsDouble}, nufftSetup: nufftSetupSeconds}
}
