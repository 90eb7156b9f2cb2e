package gram

import (
	"errors"
	"fmt"
	"math"

	"github.com/gomatvis/gomatvis/cuda"
)

// The tensor-core product's shape (gram_tc.cuh gets them as -D macros):
// tiles of tcTile×tcTile outputs, each warp tcWarpRows×32 of them,
// tcStageK complex columns of Z per shared-memory stage.
const (
	tcTile     = 64
	tcWarpRows = 32
	tcThreads  = 32 * (tcTile / tcWarpRows) * (tcTile / 32)
	tcStageK   = 32
	// tcStages is the depth of the copy pipeline: a stage's copy from L2
	// must land while the tcStages−1 before it are multiplied.
	tcStages = 2
	// tcShared is a block's dynamic shared memory: tcStages stages of the
	// rows' and the columns' Z, rows padded to tcStageK+4 complex64 values.
	tcShared = tcStages * 2 * tcTile * (tcStageK + 4) * 8
	// tcBlocksPerSM is how many blocks an SM holds at once (registers and
	// shared memory); the K range is split until the card is full at
	// least once over.
	tcBlocksPerSM = 2
	// tcReduceBlocks is the reduction's blocks per tile (TC_RB), each of
	// tcTile²/tcReduceBlocks entries, and tcReduceGroups its threads per
	// entry (TC_RG), which share the entry's K splits.
	tcReduceBlocks = 64
	tcReduceGroups = 4
	// wgStages is gram_wg_f16's copy pipeline depth (WG_NSTAGE); its
	// stages are 32 complex columns (one 128-byte swizzled row per plane).
	wgStages = 3
	// wgShared is gram_wg_f16's dynamic shared memory: wgStages stages of
	// four 64-row planes of 128 bytes, and 1 KB to align the swizzle atoms.
	wgShared = wgStages*4*tcTile*128 + 1024
)

// ErrNoWgmma is TCF16WG's error on a card without Hopper's wgmma (or a
// module not compiled for sm_90a).
var ErrNoWgmma = errors.New("tc-f16-wg needs an sm_90 card (Hopper's wgmma)")

func tcDefines() []string {
	return []string{
		fmt.Sprintf("-DTC_BT=%d", tcTile),
		fmt.Sprintf("-DTC_KT=%d", tcStageK),
		fmt.Sprintf("-DTC_THREADS=%d", tcThreads),
		fmt.Sprintf("-DTC_WM=%d", tcWarpRows),
		fmt.Sprintf("-DTC_MINB=%d", tcBlocksPerSM),
		fmt.Sprintf("-DTC_RB=%d", tcReduceBlocks),
		fmt.Sprintf("-DTC_RG=%d", tcReduceGroups),
		fmt.Sprintf("-DTC_NSTAGE=%d", tcStages),
		fmt.Sprintf("-DWG_NSTAGE=%d", wgStages),
		fmt.Sprintf("-DWG_MINB=%d", tcBlocksPerSM),
	}
}

// tensorCore is the split-FP16 product's state: its kernels, the partial
// sums' scratch (grown on demand, freed by Close) and the scale of the Z
// it is given.
type tensorCore struct {
	f16, wg, reduce, split cuda.Function
	wgOK                   bool // wg holds the wgmma product (sm_90a)
	part                   cuda.DevicePtr
	partBytes              int64
	partOwned              bool // allocated here (freed by Close), not lent by UsePartials
	zScale                 float64
	// The tile list on the device: for m×m products, all lower tiles or
	// (restricted) those holding the entries given to Restrict.
	tiles      cuda.DevicePtr
	tilesCap   int
	nTiles     int
	tilesM     int
	restricted bool
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

// Split scales the first k complex64 values of each of rows rows at in
// (leading dimension ldIn) by the scale SetZScale declared and writes
// them to out as TCF16 reads them: leading dimension ldOut (a multiple of
// 4, ≥ k; 8·ldOut bytes a row, the padding zero), each row a plane of the
// values' big FP16 words, then one of their small words. in and out are
// different buffers.
func (g *Gram) Split(in cuda.DevicePtr, ldIn int, out cuda.DevicePtr, ldOut, rows, k int) error {
	if ldOut%4 != 0 || ldOut < k || ldIn < k {
		return fmt.Errorf("gram: split of %d×%d with leading dimensions %d → %d (the output's a multiple of 4)", rows, k, ldIn, ldOut)
	}
	n := rows * ldOut
	return g.tc.split.Launch(cuda.Grid1(n, 256), cuda.Dim3{X: 256, Y: 1, Z: 1}, 0, g.s,
		in, int64(ldIn), out, int64(ldOut), int32(rows), int32(k), float32(g.scale()))
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

// tcSplits is how many K ranges a product of tiles tiles over k columns
// is cut into on a card of sms multiprocessors.
func tcSplits(tiles, k, sms int) int {
	stages := max(1, (k+tcStageK-1)/tcStageK)
	want := max(1, tcBlocksPerSM*max(sms, 1))
	return max(1, min((want+tiles-1)/tiles, stages))
}

// tcTiles is the number of lower-triangle tiles of an m×m C.
func tcTiles(m int) int {
	nt := (m + tcTile - 1) / tcTile
	return nt * (nt + 1) / 2
}

// TensorCoreScratch is the device memory the TCF16 product of an m×m C
// keeps between calls on a card of sms multiprocessors, at most (any k,
// any restriction): a partial tile per (tile, K range), and tiles × K
// ranges ≤ 2·sms + tiles.
func TensorCoreScratch(m, sms int) int64 {
	return int64(tcBlocksPerSM*max(sms, 1)+tcTiles(m)) * tcTile * tcTile * 8
}

// Restrict limits the next TCF16 products of m×m C to the tiles that hold
// the given lower-triangle entries (row ≥ column; an upper one counts as
// its mirror): the others are neither computed nor written, so a subset
// of baselines costs the tiles it touches. nil entries: every tile. It
// returns the tiles that will be computed and the triangle's total.
func (g *Gram) Restrict(m int, entries [][2]int) (computed, total int, err error) {
	total = tcTiles(m)
	var list [][2]int32
	if entries == nil {
		for i := 0; i*tcTile < m; i++ {
			for j := 0; j <= i; j++ {
				list = append(list, [2]int32{int32(i), int32(j)})
			}
		}
	} else {
		// A dense mark per tile (a map of 245 760 entries at prodslice
		// took 25–45 ms of every run's set-up), read back row-major:
		// neighbouring blocks share rows of Z in L2.
		nt := (m + tcTile - 1) / tcTile
		seen := make([]bool, nt*nt)
		for _, e := range entries {
			r, c := max(e[0], e[1]), min(e[0], e[1])
			if c < 0 || r >= m {
				return 0, total, fmt.Errorf("gram: entry (%d, %d) outside the %d×%d product", e[0], e[1], m, m)
			}
			seen[(r/tcTile)*nt+c/tcTile] = true
		}
		for i := range nt {
			for j := 0; j <= i; j++ {
				if seen[i*nt+j] {
					list = append(list, [2]int32{int32(i), int32(j)})
				}
			}
		}
	}
	if err := g.uploadTiles(list); err != nil {
		return 0, total, err
	}
	g.tc.tilesM, g.tc.restricted = m, entries != nil
	return len(list), total, nil
}

func (g *Gram) uploadTiles(list [][2]int32) error {
	if len(list) > g.tc.tilesCap {
		if g.tc.tiles != 0 {
			g.c.Free(g.tc.tiles)
			g.tc.tiles, g.tc.tilesCap = 0, 0
		}
		p, err := g.c.Alloc(int64(max(len(list), 1)) * 8)
		if err != nil {
			return fmt.Errorf("gram: tile list: %w", err)
		}
		g.tc.tiles, g.tc.tilesCap = p, len(list)
	}
	g.tc.nTiles = len(list)
	if len(list) == 0 {
		return nil
	}
	if err := cuda.Upload(g.c, g.tc.tiles, list, g.s); err != nil {
		return fmt.Errorf("gram: tile list: %w", err)
	}
	// The host slice must outlive the copy.
	return g.c.SyncStream(g.s)
}

// TensorCoreTile is the side of the tensor-core product's tiles: a
// restricted product computes whole tiles.
const TensorCoreTile = tcTile

// KernelFit is how the product kernel compiled: registers and local
// memory per thread (non-zero: spilled registers), and how many of its
// blocks an SM holds against the count the K split plans with.
type KernelFit struct {
	Registers, LocalBytes, BlocksPerSM, PlannedBlocksPerSM int
}

// TensorCoreKernel reports the product kernel of st (TCF16 or TCF16WG)
// and its fit on this device.
func (g *Gram) TensorCoreKernel(st Strategy) (KernelFit, error) {
	k := KernelFit{PlannedBlocksPerSM: tcBlocksPerSM}
	f, shared, err := g.tcKernel(st)
	if err != nil {
		return k, err
	}
	if k.Registers, err = f.Attribute(cuda.AttrRegisters); err != nil {
		return k, err
	}
	if k.LocalBytes, err = f.Attribute(cuda.AttrLocalBytes); err != nil {
		return k, err
	}
	k.BlocksPerSM, err = f.MaxActiveBlocksPerSM(tcThreads, shared)
	return k, err
}

// Wgmma reports whether TCF16WG runs here (an sm_90 card, the module
// compiled for sm_90a).
func (g *Gram) Wgmma() bool { return g.tc.wgOK }

// tcKernel is st's product kernel and its dynamic shared memory.
func (g *Gram) tcKernel(st Strategy) (cuda.Function, int, error) {
	switch {
	case st == TCF16:
		return g.tc.f16, tcShared, nil
	case st == TCF16WG && g.tc.wgOK:
		return g.tc.wg, wgShared, nil
	case st == TCF16WG:
		return g.tc.wg, 0, ErrNoWgmma
	}
	return g.tc.f16, 0, fmt.Errorf("gram: %q is not a tensor-core strategy", st)
}

// tensorCore queues C = alpha·Zᴴ·Z + beta·C (lower triangle, complex64 C;
// Z split, see Split) with st's split-FP16 kernel and the reduction of its
// K ranges.
func (g *Gram) tensorCore(st Strategy, z cuda.DevicePtr, ldz, m, k int, c cuda.DevicePtr, alpha, beta float64) error {
	f, shared, err := g.tcKernel(st)
	if err != nil {
		return err
	}
	if ldz%4 != 0 {
		return fmt.Errorf("ldz %d is not a multiple of 4: the product copies each row's planes in 16-byte pieces", ldz)
	}
	if g.tc.tilesM != m {
		if _, _, err := g.Restrict(m, nil); err != nil {
			return err
		}
	}
	tiles := g.tc.nTiles
	if tiles == 0 {
		return nil // no requested entry
	}
	splits := tcSplits(tiles, k, g.c.Info().SMs)
	need := int64(tiles) * int64(splits) * tcTile * tcTile * 8
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
	if err := f.Launch(grid, cuda.Dim3{X: tcThreads, Y: 1, Z: 1}, shared, g.s,
		z, int64(ldz), int32(m), int32(k), g.tc.tiles, int32(splits), float32(scale), g.tc.part); err != nil {
		return err
	}
	return g.tc.reduce.Launch(cuda.Dim3{X: uint32(tiles * tcReduceBlocks), Y: 1, Z: 1}, cuda.Dim3{X: tcTile * tcTile / tcReduceBlocks * tcReduceGroups, Y: 1, Z: 1}, 0, g.s,
		int32(splits), int32(m), g.tc.tiles, g.tc.part, c, alpha, beta)
}
