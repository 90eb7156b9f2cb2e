package gram

import (
	"fmt"
	"math"

	"github.com/gomatvis/gomatvis/cuda"
)

// The tensor-core product's shape (gram_tc.cuh gets them as -D macros):
// tiles of tcTile×tcTile outputs, tcStageK complex columns of Z per
// shared-memory stage, tcThreads threads (2×2 warps of 32×32) per block.
const (
	tcTile    = 64
	tcStageK  = 32
	tcThreads = 128
	// tcShared is a block's dynamic shared memory: two stages of the rows'
	// and the columns' Z, rows padded to tcStageK+4 complex64 values.
	tcShared = 2 * 2 * tcTile * (tcStageK + 4) * 8
	// tcBlocksPerSM is how many blocks an SM holds at once (registers and
	// shared memory allow two); the K range is split until the card is
	// full at least once over.
	tcBlocksPerSM = 2
)

func tcDefines() []string {
	return []string{
		fmt.Sprintf("-DTC_BT=%d", tcTile),
		fmt.Sprintf("-DTC_KT=%d", tcStageK),
		fmt.Sprintf("-DTC_THREADS=%d", tcThreads),
	}
}

// tensorCore is the split-FP16 product's state: its kernels, the partial
// sums' scratch (grown on demand, freed by Close) and the scale of the Z
// it is given.
type tensorCore struct {
	f16, reduce, split cuda.Function
	part               cuda.DevicePtr
	partBytes          int64
	partOwned          bool // allocated here (freed by Close), not lent by UsePartials
	zScale             float64
}

// UsePartials lends the product n bytes of device memory at p for its
// partial sums (TensorCoreScratch bytes are always enough), so that the
// caller's memory accounting holds them; the caller frees p after the
// last product.
func (g *Gram) UsePartials(p cuda.DevicePtr, n int64) {
	g.freePartials()
	g.tc.part, g.tc.partBytes = p, n
}

func (g *Gram) freePartials() {
	if g.tc.part != 0 && g.tc.partOwned {
		g.c.Free(g.tc.part)
	}
	g.tc.part, g.tc.partBytes, g.tc.partOwned = 0, 0, false
}

// SetZScale declares the power of two s by which the split Z of the next
// TCF16 products was scaled (Split, or the simulator's Z kernel); the
// product divides by s². Choose s = Pow2Scale(b) for a bound b on every
// |Re z|, |Im z| (a simulation bounds it per channel from the fluxes and
// the beams' largest value): then the split's error is at most 2⁻²² of
// each value plus 2⁻²⁵·b (tc_f16.cuh), and a b that was too small makes
// FP16 parts overflow into Inf, which the simulator's finiteness check
// reports.
func (g *Gram) SetZScale(s float64) { g.tc.zScale = s }

// Split scales n complex64 values at in by the scale SetZScale declared
// and writes them to out as the FP16 pairs TCF16 reads (8 bytes each).
func (g *Gram) Split(in, out cuda.DevicePtr, n int64) error {
	return g.tc.split.Launch(cuda.Grid1(int(n), 256), cuda.Dim3{X: 256, Y: 1, Z: 1}, 0, g.s, in, out, n, float32(g.scale()))
}

func (g *Gram) scale() float64 {
	if s := g.tc.zScale; s > 0 {
		return s
	}
	return 1
}

// Pow2Scale is the power of two s with b·s ≤ 1 < 2·b·s, clamped to 2^±60
// so that s², 1/s² stay normal float32 numbers; 1 when b is not a
// positive finite number.
func Pow2Scale(b float64) float64 {
	if !(b > 0) || math.IsInf(b, 0) {
		return 1
	}
	e := math.Floor(-math.Log2(b))
	return math.Ldexp(1, int(max(-60, min(60, e))))
}

// tcSplits is how many K ranges the product of an m×m triangle over k
// columns is cut into on a card of sms multiprocessors.
func tcSplits(m, k, sms int) (tiles, splits int) {
	nt := (m + tcTile - 1) / tcTile
	tiles = nt * (nt + 1) / 2
	stages := max(1, (k+tcStageK-1)/tcStageK)
	want := max(1, tcBlocksPerSM*max(sms, 1))
	splits = max(1, min((want+tiles-1)/tiles, stages))
	return tiles, splits
}

// TensorCoreScratch is the device memory the TCF16 product of an m×m C
// keeps between calls on a card of sms multiprocessors, at most (any k).
func TensorCoreScratch(m, sms int) int64 {
	_, splits := tcSplits(m, math.MaxInt32, sms)
	return int64(splits) * int64(m) * int64(m) * 8
}

// tensorCore queues C = alpha·Zᴴ·Z + beta·C (lower triangle, complex64 C;
// Z split, see Split) with the split-FP16 kernel and the reduction of its
// K ranges.
func (g *Gram) tensorCore(z cuda.DevicePtr, ldz, m, k int, c cuda.DevicePtr, alpha, beta float64) error {
	if ldz%2 != 0 {
		return fmt.Errorf("ldz %d is odd: the product copies Z in 16-byte pieces (pad each row to an even length)", ldz)
	}
	tiles, splits := tcSplits(m, k, g.c.Info().SMs)
	need := int64(splits) * int64(m) * int64(m) * 8
	if need > g.tc.partBytes {
		g.freePartials()
		p, err := g.c.Alloc(need)
		if err != nil {
			return fmt.Errorf("partial sums (%d MB): %w", need>>20, err)
		}
		g.tc.part, g.tc.partBytes, g.tc.partOwned = p, need, true
	}
	scale := g.scale()
	grid := cuda.Dim3{X: uint32(tiles * splits), Y: 1, Z: 1}
	if err := g.tc.f16.Launch(grid, cuda.Dim3{X: tcThreads, Y: 1, Z: 1}, tcShared, g.s,
		z, int64(ldz), int32(m), int32(k), int32(splits), float32(scale), g.tc.part); err != nil {
		return err
	}
	n := m * m
	return g.tc.reduce.Launch(cuda.Grid1(n, 256), cuda.Dim3{X: 256, Y: 1, Z: 1}, 0, g.s,
		int32(splits), int32(m), g.tc.part, c, alpha, beta)
}
