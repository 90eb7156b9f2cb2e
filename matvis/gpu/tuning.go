// Tuning knobs of the backend that tests and benchmarks turn.

package gpu

// tuning holds the backend's knobs that only tests and benchmarks turn
// (through Backend.tune); a run copies them when it starts.
type tuning struct {
	// sortSources switches the (zenith band, azimuth bin) ordering of the
	// visible sources, to measure what it brings.
	sortSources bool
	// sortBands and sortAzBins are the ordering's zenith-angle bands over
	// [0, π/2] and azimuth bins over [0, 2π) (NBAND, NAZBIN in vis.cu).
	// 90 × 360 (1° × 1°, the HERA beam grid's spacing) measured fastest of
	// 23×180 … 128×256 … 64×512 for the fused beam kernel at dev and
	// prodslice (bench/gpu-notes.md).
	sortBands, sortAzBins int
	// antennasPerBlock is the antenna group of one block of the fused
	// beam_tau_z kernel (its grid's y dimension is the number of groups).
	antennasPerBlock int
	// minSubChunk is the least number of sources of a sub-chunk: a chunk of
	// n sources is split into min(S, ⌈n/minSubChunk⌉) sub-chunks (tests
	// lower it to split their small chunks).
	minSubChunk int
	// streamPriority orders the two streams of the sub-chunk pipeline for
	// the block scheduler: 0 both at the default priority, 1 the fused
	// kernel's stream high, 2 the Gram product's (main) stream high.
	streamPriority int
	// extraCompileOptions are added to the NVRTC options of vis.cu (to try
	// register limits).
	extraCompileOptions []string
	// fusedBlocksPerSM sizes gram_fused's grid in blocks per
	// multiprocessor (0: as many as fit at once); fusedProducerWarps,
	// fusedBuffers and fusedSliceSources are its FG_NP producer warps,
	// FG_NBUF Z buffers and FG_TS sources per slice.
	fusedBlocksPerSM, fusedProducerWarps, fusedBuffers, fusedSliceSources int
	// fusedConsumerWarps is its FG_NC tensor-core warps and
	// fusedStackedSlice its FG_TS on the stacked path.
	fusedConsumerWarps, fusedStackedSlice int
	// fusedStacked allows gram_fused's stacked-beam path (off: its
	// per-thread gathers, to measure against).
	fusedStacked bool
	// fusedF16 makes gram_fused's products FP16 splits (FG_F16) instead
	// of TF32 splits: measured faster at dev (0.47–0.48 vs 0.60 ms per
	// chunk) and as accurate (precision gate 5.0e-7 vs 8.4e-7).
	fusedF16 bool
}

// defaultTuning is what Open sets.
func defaultTuning() tuning {
	return tuning{sortSources: true, sortBands: 90, sortAzBins: 360, antennasPerBlock: 8, minSubChunk: 2048, fusedProducerWarps: 16, fusedBuffers: 2, fusedSliceSources: 32, fusedStacked: true,
		fusedConsumerWarps: 4, fusedStackedSlice: 16, fusedF16: true}
}
