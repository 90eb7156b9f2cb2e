// The transform a backend keeps from one run to the next.

package gpu

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"sync"

	"github.com/gomatvis/gomatvis/matvis/nufft"
	"github.com/gomatvis/gomatvis/matvis/nufftgpu"
)

// keptTransform is the device transform of a backend's last run that used
// the transform path, with the host's targets of the channels it was
// pointed at, for a next run of the same array whose channels its grids
// hold: the blocks of a streamed run (output.Run runs one block after
// another on one backend) and a notebook's next simulation. Without it each run
// planned the grids on the host again, made a new cuFFT plan and grids,
// and remade every channel's targets (8.6 ms of host time a channel at
// 350 antennas on the H200's host: bench/RESULTS.md), so that small
// blocks, which let the writer overlap the compute, paid it once a
// block. A run whose key differs closes it before it plans its memory.
type keptTransform struct {
	key transformKey
	// top is the highest channel's ω its grids were planned for.
	top float64
	tr  *nufftgpu.Transform
	// lay is the highest channel's layout (the grids every channel's
	// targets are planned on); omega is the ω whose targets tr holds.
	lay   nufft.Layout
	omega float64
	// targets are the channels' targets made for key, by ω's bits; a run
	// makes several at once (targetsAhead), hence mu. bytes is their
	// size, held under maxKeptTargetBytes.
	mu      sync.Mutex
	targets map[uint64]*nufftgpu.Targets
	bytes   int64
}

// maxKeptTargetBytes bounds the host memory of a kept transform's
// targets: 256 MiB keep about 150 channels' at 350 antennas (1.7 MB a
// channel); a channel past it is made again by each run that needs it,
// as before the transform was kept.
const maxKeptTargetBytes = 256 << 20

// transformKey is what a transform and its targets depend on besides the
// channel and the grids: the baselines (the antenna positions of the
// output pairs, in pair order), the precision, accuracy and dimension,
// and the strength vectors.
type transformKey struct {
	baselines uint64
	dim, nv   int
	prec      nufftgpu.Precision
	eps       float64
}

// maxGridOvershoot bounds how much higher than a run's own highest
// channel the kept transform's may be for the run to take it: its grids
// (planned for that channel) then hold every channel of the run, at the
// cost of larger grids. The blocks of one time split by channels (a run
// whose time does not fit a block) alternate between lower and higher
// channels; each later block takes the transform planned for the
// highest, as the whole run would plan it.
const maxGridOvershoot = 2

// transformKeyOf is run r's key and its highest channel's ω, once
// nufftEligibility and the precision are settled.
func (r *run) transformKeyOf(seed maphash.Seed) (k transformKey, top float64) {
	sim := r.sim
	k = transformKey{dim: 2, nv: r.nf * r.nf, prec: nufftgpu.Double, eps: r.tune.nufftEps[1]}
	if r.p1 {
		k.prec, k.eps = nufftgpu.Single, r.tune.nufftEps[0]
	}
	for _, x := range sim.Antennas {
		if x[2] != sim.Antennas[0][2] {
			k.dim = 3
		}
	}
	top = r.omega(sim.TopChannel())
	var h maphash.Hash
	h.SetSeed(seed)
	var b [8 * 3]byte
	for _, p := range sim.Pairs {
		for _, a := range p {
			for d, v := range sim.Antennas[a] {
				binary.LittleEndian.PutUint64(b[8*d:], math.Float64bits(v))
			}
			_, _ = h.Write(b[:])
		}
	}
	k.baselines = h.Sum64()
	return k, top
}

// targetsFor returns the kept targets of ω (nil: not kept).
func (k *keptTransform) targetsFor(omega float64) *nufftgpu.Targets {
	if k == nil {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.targets[math.Float64bits(omega)]
}

// keepTargets keeps tg as ω's targets while they fit maxKeptTargetBytes.
func (k *keptTransform) keepTargets(omega float64, tg *nufftgpu.Targets) {
	if k == nil || tg == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	key := math.Float64bits(omega)
	if _, ok := k.targets[key]; ok || k.bytes+tg.Bytes() > maxKeptTargetBytes {
		return
	}
	if k.targets == nil {
		k.targets = map[uint64]*nufftgpu.Targets{}
	}
	k.targets[key] = tg
	k.bytes += tg.Bytes()
}

// deviceBytes is the device memory of the kept transform (0: none).
func (k *keptTransform) deviceBytes() int64 {
	if k == nil || k.tr == nil {
		return 0
	}
	return k.tr.Bytes()
}

// close releases the device transform (nil: nothing to do).
func (k *keptTransform) close() {
	if k != nil && k.tr != nil {
		_ = k.tr.Close()
		k.tr = nil
	}
}

// takeKeptTransform settles an eligible run's key — its precision,
// accuracy, strength vectors and dimension — and takes the backend's
// kept transform when it is of that key; a kept one of another key is
// closed, and the run starts a new one to keep.
func (r *run) takeKeptTransform() {
	nu := r.nu
	key, top := r.transformKeyOf(r.keep.seed)
	nu.prec, nu.eps, nu.nv, nu.dim = key.prec, key.eps, key.nv, key.dim
	k := r.keep.transform
	r.keep.transform = nil
	if k == nil || k.key != key || !(k.top >= top && k.top <= maxGridOvershoot*top) {
		k.close()
		k = &keptTransform{key: key, top: top}
	}
	nu.kept = k
}

// reuseTransform takes the kept transform for the run: the highest
// channel's layout, and channel 0's targets (kept, or made now) unless
// it holds them already.
func (r *run) reuseTransform() error {
	nu, k := r.nu, r.nu.kept
	nu.tr, k.tr = k.tr, nil
	nu.lay, nu.grid = k.lay, k.lay.NF
	if omega := r.omega(0); omega != k.omega {
		tg, err := r.channelTargets(0)
		if err != nil {
			return err
		}
		if err := nu.tr.RetargetTo(tg); err != nil {
			return fmt.Errorf("gpu: %g Hz: %w", r.sim.Freqs[0], err)
		}
	}
	nu.planFor = 0
	return nil
}
