package matvis

// DeviceInfo is implemented by backends that run on an accelerator, so a
// profile can name it and read its memory.
type DeviceInfo interface {
	// DeviceName is e.g. "NVIDIA H200".
	DeviceName() string
	// DeviceMemory returns the free and total device memory in bytes.
	DeviceMemory() (free, total int64, err error)
}

// DeviceMemory is what a run on an accelerator used of the device's
// memory, measured by the backend (Stats.Device).
type DeviceMemory struct {
	// TotalBytes is the device's memory.
	TotalBytes int64 `json:"total_bytes"`
	// FreeBeforeBytes is the free memory when the run started (the
	// backend's context already open, the run's handles, kernels and
	// buffers not yet made).
	FreeBeforeBytes int64 `json:"free_before_bytes"`
	// MinFreeBytes is the least free memory seen during the run (sampled
	// after set-up, after each frequency's beam upload and after the last
	// integration).
	MinFreeBytes int64 `json:"min_free_bytes"`
	// UsedPeakBytes is FreeBeforeBytes − MinFreeBytes: everything the run
	// held at once, including what the driver and cuBLAS took for it
	// (handle workspace, loaded kernels, allocation granularity).
	UsedPeakBytes int64 `json:"used_peak_bytes"`
	// AllocatedPeakBytes is the backend's own allocations at their peak,
	// in requested bytes.
	AllocatedPeakBytes int64 `json:"allocated_peak_bytes"`
	// AllocatedTerms breaks AllocatedPeakBytes down, under the memory
	// model's term names where one applies and "gpu_"-prefixed names for
	// buffers the model has no term for.
	AllocatedTerms []MemoryTerm `json:"allocated_terms"`
	// ScratchBytes is the transient scratch of the Gram-strategy
	// measurement at start-up (freed before the run's buffers are
	// allocated, so not in the peak; 0 when the choice was cached).
	ScratchBytes int64 `json:"scratch_bytes"`
}
