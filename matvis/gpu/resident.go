// What a backend keeps between its runs.

package gpu

import (
	"fmt"
	"hash/maphash"
	"strings"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/cuda/gram"
)

// resident is what a Backend keeps from one run to the next, so that a
// run after the first (a notebook's next simulation, the profile's
// measured run after its warm-up, the blocks of a multi-device run) does
// not pay for it again: the stream with its cuBLAS handle and Gram
// product (their kernels loaded), the loaded modules by source and
// options, and the fused path's decision by run shape. Runs are
// serialised by the Backend, so one run at a time uses it. close releases
// it.
type resident struct {
	c    *cuda.Context
	s    cuda.Stream
	blas *cuda.Blas
	g    *gram.Gram
	mods map[string]*cuda.Module
	// fusedChoice is chooseFused's measured decision per shape (its
	// fusedCacheKey).
	fusedChoice map[string]fusedDecision
	// nufftChoice is chooseNUFFT's measured decision per shape
	// (nufftCacheKey; fused meaning "use the transform").
	nufftChoice map[string]fusedDecision
	// pinned are the last run's pinned host buffers (pinning is slow:
	// about a millisecond a buffer) and device the last run's device
	// buffers, for the next run's; idle ones are freed once a run's set-up
	// is done (trimPinned, trimDevice). The device pool's idle bytes count
	// as free memory in a run's accounting.
	pinned bufferPool[*cuda.HostBuffer]
	device bufferPool[cuda.DevicePtr]
	// transform is the transform path's device transform and targets of
	// the last run that used it (nil: none), for a next run of its key
	// (nufft_keep.go); seed is the hash seed of its keys.
	transform *keptTransform
	seed      maphash.Seed
	// flux is the last run's flux table made from a power-law sky (nil:
	// none), for a next run of the same sky and channels (flux_keep.go).
	flux *keptFlux
}

// bufferPool keeps buffers by size for reuse.
type bufferPool[T any] struct {
	bySize map[int64][]T
	idle   int64 // bytes kept
}

// take returns a kept buffer of n bytes.
func (p *bufferPool[T]) take(n int64) (T, bool) {
	l := p.bySize[n]
	if len(l) == 0 {
		var zero T
		return zero, false
	}
	b := l[len(l)-1]
	p.bySize[n] = l[:len(l)-1]
	p.idle -= n
	return b, true
}

// keep takes back a buffer of n bytes.
func (p *bufferPool[T]) keep(b T, n int64) {
	if p.bySize == nil {
		p.bySize = map[int64][]T{}
	}
	p.bySize[n] = append(p.bySize[n], b)
	p.idle += n
}

// trim frees every kept buffer with free.
func (p *bufferPool[T]) trim(free func(T)) {
	for n, l := range p.bySize {
		for _, b := range l {
			free(b)
		}
		delete(p.bySize, n)
	}
	p.idle = 0
}

// fusedKey is what chooseFused's measurement depends on: the run's
// precision and polarization, M, the chunk's sources, the beams' kinds
// and the strategy it is measured against.
type fusedKey struct {
	p1, pol, stacked bool
	m, bufSrc, nbeam int
	strategy         gram.Strategy
}

// fusedDecision is a measured fused-path decision and its description.
type fusedDecision struct {
	fused bool
	why   string
}

func newResident(c *cuda.Context) *resident {
	return &resident{c: c, mods: map[string]*cuda.Module{}, fusedChoice: map[string]fusedDecision{}, nufftChoice: map[string]fusedDecision{}, seed: maphash.MakeSeed()}
}

// handles returns the stream, cuBLAS handle and Gram product, made on
// first use.
func (k *resident) handles() (cuda.Stream, *cuda.Blas, *gram.Gram, error) {
	if k.g != nil {
		return k.s, k.blas, k.g, nil
	}
	var err error
	if k.s == 0 {
		if k.s, err = k.c.NewStream(); err != nil {
			return 0, nil, nil, fmt.Errorf("gpu: main stream: %w", err)
		}
	}
	if k.blas == nil {
		if k.blas, err = k.c.NewBlas(k.s); err != nil {
			return 0, nil, nil, fmt.Errorf("gpu: cuBLAS handle: %w", err)
		}
		if err = k.blas.SetMathMode(cuda.DefaultMath); err != nil {
			return 0, nil, nil, fmt.Errorf("gpu: cuBLAS math mode: %w", err)
		}
	}
	if k.g, err = gram.New(k.c, k.blas, k.s); err != nil {
		return 0, nil, nil, fmt.Errorf("gpu: %w", err)
	}
	return k.s, k.blas, k.g, nil
}

// module returns src compiled with opts, loaded once per backend.
func (k *resident) module(src cuda.Source, opts ...string) (*cuda.Module, error) {
	key := src.Name + "\x00" + strings.Join(opts, "\x00")
	if m, ok := k.mods[key]; ok {
		return m, nil
	}
	m, err := k.c.Compile(src, opts...)
	if err != nil {
		return nil, err
	}
	k.mods[key] = m
	return m, nil
}

// hostBuffer returns a pinned host buffer of n bytes: a kept one of that
// size, else a new one.
func (k *resident) hostBuffer(n int64) (*cuda.HostBuffer, error) {
	if h, ok := k.pinned.take(n); ok {
		return h, nil
	}
	return k.c.AllocHost(n)
}

// keepHost takes back a run's pinned buffer for the next run.
func (k *resident) keepHost(h *cuda.HostBuffer) {
	if h != nil {
		k.pinned.keep(h, h.Len())
	}
}

// trimPinned frees the kept pinned buffers a run's set-up did not take.
func (k *resident) trimPinned() { k.pinned.trim(func(h *cuda.HostBuffer) { _ = k.c.FreeHost(h) }) }

// deviceBuffer returns a kept device buffer of n bytes, or 0.
func (k *resident) deviceBuffer(n int64) cuda.DevicePtr {
	if k == nil {
		return 0
	}
	p, _ := k.device.take(n)
	return p
}

// keepDevice takes back a run's device buffer of n bytes for the next run.
func (k *resident) keepDevice(p cuda.DevicePtr, n int64) { k.device.keep(p, n) }

// trimDevice frees the kept device buffers a run's set-up did not take.
func (k *resident) trimDevice() { k.device.trim(func(p cuda.DevicePtr) { _ = k.c.Free(p) }) }

// endRun clears what a run lent the Gram product (its partials, freed
// with the run's buffers).
func (k *resident) endRun() {
	if k.g != nil {
		k.g.UsePartials(0, 0)
	}
}

// close releases everything kept.
func (k *resident) close() {
	if k.s != 0 {
		_ = k.c.SyncStream(k.s)
	}
	for _, m := range k.mods {
		_ = m.Unload()
	}
	k.mods = nil
	k.transform.close()
	k.dropFlux()
	k.trimPinned()
	k.trimDevice()
	if k.g != nil {
		_ = k.g.Close()
	}
	if k.blas != nil {
		_ = k.blas.Close()
	}
	if k.s != 0 {
		_ = k.c.DestroyStream(k.s)
	}
	*k = resident{}
}
