package gpu

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/cuda/gram"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/roof"
)

// The backend is what matvis/profile asks of an accelerator.
var (
	_ matvis.DeviceInfo = (*Backend)(nil)
	_ roof.CeilingMeter = (*Backend)(nil)
)

// DeviceName implements matvis.DeviceInfo: the device's name, e.g.
// "NVIDIA H200".
func (b *Backend) DeviceName() string { return b.info.Name }

// DeviceMemory implements matvis.DeviceInfo: free and total device memory
// in bytes (cuMemGetInfo).
func (b *Backend) DeviceMemory() (free, total int64, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.c == nil {
		return 0, 0, errors.New("gpu: backend is closed")
	}
	free, total, err = b.c.MemInfo()
	if err != nil {
		return 0, 0, fmt.Errorf("gpu: device memory: %w", err)
	}
	return free, total, nil
}

// DeviceLibraries names the device's software for a profile's machine
// description: architecture, multiprocessors, driver and cuBLAS versions.
func (b *Backend) DeviceLibraries() map[string]string {
	m := map[string]string{
		"cuda_device": fmt.Sprintf("%s (%s, %d SMs, %.1f GiB)", b.info.Name, b.info.Arch(), b.info.SMs, float64(b.info.TotalMem)/(1<<30)),
		"cuda_driver": fmt.Sprintf("%d.%d", b.info.DriverVersion/1000, b.info.DriverVersion%1000/10),
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.c == nil {
		return m
	}
	m["cuda_drv_lib"] = b.c.DriverPath()
	s, err := b.c.NewStream()
	if err != nil {
		return m
	}
	defer b.c.DestroyStream(s)
	h, err := b.c.NewBlas(s)
	if err != nil {
		return m
	}
	defer h.Close()
	if v, err := h.Version(); err == nil {
		m["cublas"] = fmt.Sprintf("%d.%d.%d", v/10000, v%10000/100, v%100)
		m["cublas_lib"] = h.Path()
	}
	return m
}

// Ceiling measurement sizes: the copied buffer (bytes, each of source and
// destination) and the timed repetitions after warm-up.
const (
	ceilCopyBytes = 1 << 30
	ceilWarm      = 3
	ceilReps      = 15
)

// MeasureCeilings implements roof.CeilingMeter on the device: the memory
// bandwidth of a large device-to-device copy (bytes read + written, the
// median of 15 CUDA-event timings after 3 warm-ups) and the Gram-product
// rate at shape s through cuBLAS with the strategy the last run of this
// backend at that M and precision used (measured among gram.Candidates
// when there was none), with the same timing, counted as 4·M²·K FLOPs
// (the convention of matvis/profile's CountWork whatever the strategy
// computes: a full gemm does twice that).
func (b *Backend) MeasureCeilings(ctx context.Context, s roof.GramShape) (roof.Ceilings, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := roof.Ceilings{Device: b.info.Name}
	if b.c == nil {
		return out, errors.New("gpu: backend is closed")
	}
	c := b.c
	st, err := c.NewStream()
	if err != nil {
		return out, fmt.Errorf("gpu: ceilings: %w", err)
	}
	defer c.DestroyStream(st)
	// timeMs is gram.TimeMs with this call's sizes, stopping at the
	// first run after ctx is done.
	timeMs := func(f func() error) (float64, error) {
		return gram.TimeMs(c, st, ceilWarm, ceilReps, func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			return f()
		})
	}

	// Bandwidth: a copy between two buffers far larger than the L2
	// (1 GiB each; less when the card has less free).
	free, _, err := c.MemInfo()
	if err != nil {
		return out, fmt.Errorf("gpu: ceilings: %w", err)
	}
	n := min(int64(ceilCopyBytes), free/4) &^ 4095
	if n < 1<<20 {
		return out, fmt.Errorf("gpu: ceilings: %d bytes free, too little for the copy benchmark", free)
	}
	src, err := c.Alloc(n)
	if err != nil {
		return out, fmt.Errorf("gpu: ceilings: %w", err)
	}
	var dst cuda.DevicePtr
	// Freed below before the Gram product's buffers, or here on an error
	// (Free ignores 0).
	defer func() { _ = c.Free(src); _ = c.Free(dst) }()
	if dst, err = c.Alloc(n); err != nil {
		return out, fmt.Errorf("gpu: ceilings: %w", err)
	}
	if err := c.Memset8(src, 0x3C, n, st); err != nil {
		return out, fmt.Errorf("gpu: ceilings: %w", err)
	}
	ms, err := timeMs(func() error { return c.CopyDtoD(dst, src, n, st) })
	if err != nil {
		return out, fmt.Errorf("gpu: copy bandwidth: %w", err)
	}
	out.Bandwidth = append(out.Bandwidth, roof.Ceiling{
		Name: "device copy", Value: 2 * float64(n) / (ms * 1e-3), Unit: "B/s", Measured: true,
		Note: fmt.Sprintf("cuMemcpyDtoDAsync of %d MiB, bytes read + written, median of %d CUDA-event timings after %d warm-ups (%.3f ms)", n>>20, ceilReps, ceilWarm, ms),
	})
	// Free the copy buffers before the Gram product's.
	_ = c.SyncStream(st)
	_ = c.Free(src)
	_ = c.Free(dst)
	src, dst = 0, 0

	if s.M <= 0 || s.K <= 0 {
		return out, nil
	}
	rate, name, err := b.gramRate(c, st, s, timeMs)
	if err != nil {
		return out, err
	}
	out.Compute = append(out.Compute, roof.Ceiling{
		Name: fmt.Sprintf("%s M=%d K=%d", name, s.M, s.K), Value: rate, Unit: "FLOP/s", Measured: true,
		Note: fmt.Sprintf("cuBLAS through cuda/gram (the run's strategy), median of %d CUDA-event timings after %d warm-ups on normal random Z; 4·M²·K FLOPs", ceilReps, ceilWarm),
	})
	return out, nil
}

// gramRate times the Gram product C += Zᴴ·Z at shape s with the backend's
// strategy for it, on random data, and returns FLOP/s (4·M²·K) and the
// strategy's name.
func (b *Backend) gramRate(c *cuda.Context, st cuda.Stream, s roof.GramShape, timeMs func(func() error) (float64, error)) (float64, string, error) {
	h, err := c.NewBlas(st)
	if err != nil {
		return 0, "", fmt.Errorf("gpu: ceilings: %w", err)
	}
	defer h.Close()
	if err := h.SetMathMode(cuda.DefaultMath); err != nil {
		return 0, "", fmt.Errorf("gpu: ceilings: %w", err)
	}
	g, err := gram.New(c, h, st)
	if err != nil {
		return 0, "", fmt.Errorf("gpu: ceilings: %w", err)
	}
	defer g.Close()
	prec := max(s.Precision, 1)
	strat, ok := b.chosen[[2]int{prec, s.M}]
	if b.opts.Strategy != "" {
		strat, ok = b.opts.Strategy, true
	}
	if !ok {
		if strat, _, err = g.Choose(gram.Candidates(prec), s.M, s.K); err != nil {
			return 0, "", fmt.Errorf("gpu: ceilings: %w", err)
		}
	}
	esize := int64(8)
	if strat.Double() {
		esize = 16
	}
	ldz := s.K
	if strat.SplitZ() {
		ldz = (ldz + 3) / 4 * 4 // the tensor-core product's rows: a multiple of 4
	}
	zb := int64(s.M) * int64(ldz) * esize
	z, err := c.Alloc(zb)
	if err != nil {
		return 0, "", fmt.Errorf("gpu: ceilings: Z for the Gram product: %w", err)
	}
	defer c.Free(z)
	cc, err := c.Alloc(int64(s.M) * int64(s.M) * esize)
	if err != nil {
		return 0, "", fmt.Errorf("gpu: ceilings: C for the Gram product: %w", err)
	}
	defer c.Free(cc)
	if strat.SplitZ() {
		// Normal deviates, split as the run's Z kernel would.
		raw, err := c.Alloc(zb)
		if err != nil {
			return 0, "", fmt.Errorf("gpu: ceilings: Z for the Gram product: %w", err)
		}
		defer c.Free(raw)
		if err := fillRandom(c, st, raw, zb, esize); err != nil {
			return 0, "", fmt.Errorf("gpu: ceilings: %w", err)
		}
		g.SetZScale(gram.Pow2Scale(6))
		if err := g.Split(raw, ldz, z, ldz, s.M, s.K); err != nil {
			return 0, "", fmt.Errorf("gpu: ceilings: %w", err)
		}
	} else if err := fillRandom(c, st, z, zb, esize); err != nil {
		return 0, "", fmt.Errorf("gpu: ceilings: %w", err)
	}
	if err := c.Memset8(cc, 0, int64(s.M)*int64(s.M)*esize, st); err != nil {
		return 0, "", fmt.Errorf("gpu: ceilings: %w", err)
	}
	ms, err := timeMs(func() error { return g.Accumulate(strat, z, ldz, s.M, s.K, cc, 1) })
	if err != nil {
		return 0, "", fmt.Errorf("gpu: Gram rate (%s): %w", strat, err)
	}
	flops := 4 * float64(s.M) * float64(s.M) * float64(s.K)
	name := string(strat)
	if !strat.Double() && prec == 1 {
		name += " (fp32)"
	} else if strat.Double() && prec == 1 {
		name += " (fp64 on widened fp32 data)"
	}
	return flops / (ms * 1e-3), name, nil
}

// fillRandom fills n bytes at p with normal random reals of esize/2 bytes
// each: an 8 MiB random block made on the host, uploaded once and repeated
// by device copies (timing on zeros or a constant could hit faster paths
// than real data).
func fillRandom(c *cuda.Context, st cuda.Stream, p cuda.DevicePtr, n, esize int64) error {
	blk := min(n, 8<<20)
	blk -= blk % esize
	if blk <= 0 {
		return c.Memset8(p, 0x3C, n, st)
	}
	rng := rand.New(rand.NewPCG(3, 5))
	if esize == 16 {
		h := make([]float64, blk/8)
		for i := range h {
			h[i] = rng.NormFloat64()
		}
		if err := cuda.Upload(c, p, h, st); err != nil {
			return err
		}
	} else {
		h := make([]float32, blk/4)
		for i := range h {
			h[i] = float32(rng.NormFloat64())
		}
		if err := cuda.Upload(c, p, h, st); err != nil {
			return err
		}
	}
	for off := blk; off < n; off += blk {
		if err := c.CopyDtoD(p.Offset(off), p, min(blk, n-off), st); err != nil {
			return err
		}
	}
	return c.SyncStream(st)
}
