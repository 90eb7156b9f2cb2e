package output

import (
	"github.com/gomatvis/gomatvis/matvis"
)

// DefaultBlockBytes bounds a block's visibilities when the run's budget
// allows more: Run holds two blocks (one computing, one being written),
// and a smaller block leaves less unoverlapped writing after the last
// compute. 64 MB is a time of 64 channels at 350 antennas (fp64): with
// it a 1.3 GB UVH5 (350 antennas × 256 channels × 4 times) peaks at
// 281–302 MB RSS against 416–527 MB with 128 MB blocks, its wall the
// same (1.03–1.04× the compute; bench/RESULTS.md).
const DefaultBlockBytes = 64 << 20

// BlockSizer is a backend whose every run pays a set-up that small blocks
// would pay over and over (the GPU's device tables, transform plans and
// targets, and the first integration's pipeline fill): it names the block
// size, in bytes, that repays it. Run's blocks may grow to it, within the
// run's budget.
type BlockSizer interface {
	BlockBytes() int64
}

// IntegrationBytes is the size of one (frequency, time) integration of
// sim's output: its pairs × feeds² complex values.
func IntegrationBytes(sim *matvis.Simulation) int64 {
	nf := int64(sim.NFeed())
	return int64(len(sim.Pairs)) * nf * nf * int64(8*sim.Options.Precision)
}

// BlockBudget is the largest block of sim's output that Run holds, in
// bytes: DefaultBlockBytes, or less where the run's budget (MaxMemory,
// else the available memory, × MemoryBuffer) less its other host memory
// (the pair list, accumulator, ENU cache and chunk arrays) leaves less
// than three blocks — two held, one of slack for the collector.
func BlockBudget(sim *matvis.Simulation) int64 {
	return BlockBudgetUpTo(sim, DefaultBlockBytes)
}

// BlockBudgetFor is BlockBudget for backend be: up to the block a
// BlockSizer asks for, where the budget leaves room for it.
func BlockBudgetFor(sim *matvis.Simulation, be matvis.Backend) int64 {
	limit := int64(DefaultBlockBytes)
	if bs, ok := be.(BlockSizer); ok {
		limit = max(limit, bs.BlockBytes())
	}
	return BlockBudgetUpTo(sim, limit)
}

// BlockBudgetUpTo is the block budget capped at limit bytes (a caller's
// chosen block, kept within the run's budget).
func BlockBudgetUpTo(sim *matvis.Simulation, limit int64) int64 {
	budget := sim.Options.MaxMemory
	if budget <= 0 {
		avail, err := matvis.AvailableMemory()
		if err != nil {
			return DefaultBlockBytes
		}
		budget = avail
	}
	usable := int64(float64(budget) * sim.Options.MemoryBuffer)
	for _, t := range sim.HostBytes() {
		if t.Name != "output" {
			usable -= t.Bytes
		}
	}
	return max(min(usable/3, limit), 1)
}

// Plan splits an nfreq × ntime grid of integrations of perBytes each into
// blocks of at most maxBytes, in time-major order, so that the blocks
// finished when a run stops are whole times: as many times of every
// channel as fit, or, when one time of every channel does not, ranges of
// channels of one time. Blocks are as even as the split allows (no small
// last one). A block is never smaller than one integration, even one
// larger than maxBytes.
func Plan(nfreq, ntime int, perBytes, maxBytes int64) []matvis.Block {
	if nfreq <= 0 || ntime <= 0 {
		return nil
	}
	perBytes, maxBytes = max(perBytes, 1), max(maxBytes, 1)
	var blocks []matvis.Block
	if timeBytes := int64(nfreq) * perBytes; timeBytes <= maxBytes {
		for _, r := range even(ntime, int(min(maxBytes/timeBytes, int64(ntime)))) {
			blocks = append(blocks, matvis.Block{F0: 0, F1: nfreq, T0: r[0], T1: r[1]})
		}
		return blocks
	}
	chans := even(nfreq, int(max(1, min(maxBytes/perBytes, int64(nfreq)))))
	for t := range ntime {
		for _, r := range chans {
			blocks = append(blocks, matvis.Block{F0: r[0], F1: r[1], T0: t, T1: t + 1})
		}
	}
	return blocks
}

// even splits [0, n) into the fewest ranges of at most per, as even as
// they can be.
func even(n, per int) [][2]int {
	k := (n + per - 1) / per
	out := make([][2]int, k)
	for i := range k {
		out[i] = [2]int{i * n / k, (i + 1) * n / k}
	}
	return out
}
