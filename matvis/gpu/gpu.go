// Package gpu is the CUDA backend of the simulator: the same API, options
// and output as the CPU backend (package matvis/cpu), with the per-chunk
// pipeline on the device.
//
// Per frequency the beams are prepared once: analytic beams become a
// descriptor evaluated on the device; gridded beams (matvis/beam's
// Gridded) are prepared by the beam package (frequency interpolation,
// azimuth extension, power, cubic prefilter: the planes its own Eval
// interpolates) and those planes are uploaded as they are. Per time: ENU
// vectors (for an astro.BCRSRotation, the ERFA method, the device holds the
// ECI vectors from the start and does the BCRS step and the rotation itself
// from 27 constants per time, passed as a kernel argument; for another astro.MatrixRotation it rotates
// cached vectors uploaded when they change; else they are uploaded),
// horizon compaction by a prefix sum (the host reads one count per time,
// while the device works on the previous time's chunks) and, with gridded
// beams, a stable ordering of the visible sources by (zenith band, azimuth
// bin); then per chunk of
// visible sources one fused kernel (beam interpolation, τ, Z written in the
// Gram product's operand type) and the Gram product accumulated on the
// device with the cuBLAS strategy measured fastest at start-up (cuda/gram;
// the choice is cached on disk). One kernel extracts the requested pairs
// and one pinned asynchronous copy per integration brings them back. Each
// stage is timed with CUDA events into the run's Stats (the fused kernel
// under tau_z; the beam stage is then the launch gap, ~0).
//
// For precision 1 with M = feeds × antennas ≤ MaxFusedRows, a second path
// does beam, τ, Z and the Gram product in one kernel (gram_fused: Z stays
// in shared memory, products on the tensor cores as three products of
// split operands per term — FP16 splits of power-of-two-scaled values by
// default, TF32 splits as the alternative —, block partials added in
// float64); Options.Fused chooses it,
// by default by timing both paths on the run's first chunk (fused.go). Its
// time is the matprod stage and Stats.MatProdImpl.Fused is set.
package gpu

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/cuda/gram"
	"github.com/gomatvis/gomatvis/matvis"
)

// ErrNoDevice is cuda.ErrNoDevice: no CUDA driver or device here.
var ErrNoDevice = cuda.ErrNoDevice

// Options tune the backend; the zero value is the default.
type Options struct {
	// Device is the CUDA device ordinal.
	Device int
	// Strategy forces a Gram-product strategy instead of measuring.
	Strategy gram.Strategy
	// NoStrategyCache measures the Gram strategies and the fused path
	// even when a choice is cached on disk (and does not store the
	// results).
	NoStrategyCache bool
	// ChoiceWait bounds how long a run waits for another process that
	// is measuring the same choice into the cache on disk (0:
	// DefaultChoiceWait); past it the run takes a fixed choice,
	// unmeasured (choicewait.go).
	ChoiceWait time.Duration
	// Fused selects how the Gram product is done for runs the fused
	// beam+τ+Z+Gram kernel can do (precision 1 with M = feeds × antennas ≤
	// MaxFusedRows): FusedAuto times both ways on the
	// run's first chunk at start-up and keeps the faster, FusedOn always
	// fuses (an error when the run is not eligible), FusedOff always uses
	// the separate fused kernel and cuBLAS product.
	Fused FusedMode
	// NUFFT selects the transform path (nufft.go) for runs whose
	// antennas share one beam: NUFFTAuto (the default) measures it
	// against the direct path, NUFFTOff never takes it, NUFFTOn forces it.
	NUFFT NUFFTMode
	// Tables shares the host-side beam preparation with the other
	// backends given the same cache (the devices of one process); nil:
	// Open gives the backend a cache of its own.
	Tables *TableCache
}

// FusedMode is Options.Fused.
type FusedMode int

// The fused-kernel modes.
const (
	FusedAuto FusedMode = iota // measure both on the first chunk, keep the faster
	FusedOn                    // always fuse the Gram product with Z production
	FusedOff                   // Z through device memory, cuBLAS product
)

// MaxFusedRows is the largest M (feeds × antennas) the fused
// beam+τ+Z+Gram kernel handles: one block holds the whole lower triangle
// of C in registers, one 32×32 tile per warp (at most 10 warps).
const MaxFusedRows = 128

// String names the mode as the command line spells it.
func (m FusedMode) String() string {
	switch m {
	case FusedAuto:
		return "auto"
	case FusedOn:
		return "on"
	case FusedOff:
		return "off"
	}
	return fmt.Sprintf("FusedMode(%d)", int(m))
}

// ParseFusedMode reads "auto", "on" or "off".
func ParseFusedMode(s string) (FusedMode, error) {
	for _, m := range []FusedMode{FusedAuto, FusedOn, FusedOff} {
		if s == m.String() {
			return m, nil
		}
	}
	return 0, fmt.Errorf("fused mode %q: want auto, on or off", s)
}

// Backend is the GPU backend. It owns a CUDA context; Close releases it.
// Runs are serialised (a CUDA context is used by one run at a time).
type Backend struct {
	mu   sync.Mutex
	opts Options
	tune tuning
	c    *cuda.Context
	info cuda.DeviceInfo
	// keep is what runs leave for the next run (resident.go).
	keep *resident
	// chosen is the Gram strategy of the last run per (precision, M), for
	// MeasureCeilings.
	chosen map[[2]int]gram.Strategy
}

// Open opens the device. Without a CUDA driver or device the error matches
// ErrNoDevice (and cuda.ErrNoDevice).
func Open(opts Options) (*Backend, error) {
	// cuBLAS loads beside the driver's start, which does not need it:
	// Warm and the first run then find it loaded. Without a device, or
	// without cuBLAS, the first NewBlas reports it as before.
	go func() { _ = cuda.PreloadBLAS() }()
	c, err := cuda.Open(opts.Device)
	if err != nil {
		return nil, fmt.Errorf("gpu backend: %w", err)
	}
	if opts.Tables == nil {
		// Runs of one backend reuse a channel's tables too (a warm-up
		// run, blocks of one simulation).
		opts.Tables = NewTableCache()
	}
	return &Backend{opts: opts, tune: defaultTuning(), c: c, info: c.Info(), keep: newResident(c), chosen: map[[2]int]gram.Strategy{}}, nil
}

// Name returns "gpu".
func (b *Backend) Name() string { return "gpu" }

// Device describes the device.
func (b *Backend) Device() cuda.DeviceInfo { return b.info }

// Warm makes the device's stream, cuBLAS handle and Gram product now,
// which the first run's set-up would otherwise make (85 ms of an H100
// host's wall, mostly cuBLAS's start): a caller pays it while it reads its
// input. A failure here is the first run's too.
func (b *Backend) Warm() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.c == nil {
		return errors.New("gpu: backend is closed")
	}
	_, _, _, err := b.keep.handles()
	return err
}

// Close releases the device.
func (b *Backend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.c == nil {
		return nil
	}
	b.keep.close()
	err := b.c.Close()
	b.c = nil
	return err
}

// Run simulates every frequency and time of sim on the device. When sim's
// pairs use only some of its antennas, the device runs the simulation of
// those alone (matvis.Simulation.OverPairAntennas: the same visibilities
// and result, a Gram product and memory plan of the pairs' antennas).
func (b *Backend) Run(ctx context.Context, sim *matvis.Simulation) (*matvis.Result, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.c == nil {
		return nil, errors.New("gpu: backend is closed")
	}
	sim, _ = sim.OverPairAntennas()
	r, err := newRun(ctx, b, sim)
	if err != nil {
		return nil, err
	}
	defer r.close()
	b.chosen[[2]int{sim.Options.Precision, r.M}] = r.st
	res, err := r.run()
	if r.nu != nil {
		r.nu.keep = err == nil // a failed run's transform is not trusted again
	}
	return res, err
}

// CoordinatesAhead says the host is mostly idle while a run computes, so
// that a streamed run has the next block's coordinates made meanwhile
// (output.CoordinatesAhead).
func (b *Backend) CoordinatesAhead() bool { return true }

// BlockBytes is the output block a run repays its set-up with
// (output.BlockSizer): 64 MB, as the CPU's. Each block is a run; with the
// transform path's transform and targets kept between runs
// (nufft_keep.go) and the next block's coordinates made while the device
// computes (output.CoordinatesAhead), a block's set-up is small, and a
// smaller block lets the writing overlap more of the compute: 350
// antennas × 10⁶ sources × 64 channels × 8 times to UVH5 on an H100, the
// process wall was 1.57 s with 64 MB blocks against 1.74 s with 32 MB and
// 1.94 s with one 256 MB block (bench/RESULTS.md). (Before the transform
// was kept, every block planned it anew, and one 256 MB block was best.)
func (b *Backend) BlockBytes() int64 { return 64 << 20 }
