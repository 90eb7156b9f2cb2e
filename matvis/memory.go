package matvis

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// GridPixelser is implemented by beams stored on a grid; GridPixels is the
// number of (za, az) samples of the raw grid, the beam's share of the
// "raw beam-grid" memory term.
type GridPixelser interface {
	GridPixels() int
}

// MemoryTerm is one named contribution to a run's memory.
type MemoryTerm struct {
	Name  string `json:"name"`
	Bytes int64  `json:"bytes"`
	// PerChunk terms scale with the sources per chunk; the others do not.
	PerChunk bool `json:"per_chunk"`
}

// MemoryPlan is the memory model's answer for one configuration and budget:
// every term, the number of source chunks and the sources per chunk.
type MemoryPlan struct {
	Budget          int64        `json:"budget_bytes"`
	NChunks         int          `json:"nchunks"`
	SourcesPerChunk int          `json:"sources_per_chunk"`
	BufferSources   int          `json:"buffer_sources"`
	Terms           []MemoryTerm `json:"terms"`
	Total           int64        `json:"total_bytes"`
	// Fits is false when even the largest chunk count tried exceeds the budget.
	Fits bool `json:"fits"`
}

// Term returns the bytes of the named term (0 if absent).
func (p MemoryPlan) Term(name string) int64 {
	for _, t := range p.Terms {
		if t.Name == name {
			return t.Bytes
		}
	}
	return 0
}

// maxAutoChunks is matvis's upper bound when growing the chunk count.
const maxAutoChunks = 100

// MemoryTerms evaluates matvis's GPU memory model (matvis _utils.py; see
// matvis-conventions §8) for nchunks chunks: bytes per term, and the
// per-chunk buffer size in sources. It is MemoryConfig().Terms.
func (s *Simulation) MemoryTerms(nchunks int) ([]MemoryTerm, int) {
	return s.MemoryConfig().Terms(nchunks)
}

// PlanMemory chooses the number of source chunks as matvis does: the
// smallest count from 1 to 100 whose modelled total is below
// MemoryBuffer × budget, then at least MinChunks and at most nsrc. It is
// MemoryConfig().Plan.
func (s *Simulation) PlanMemory(budget int64) MemoryPlan {
	return s.MemoryConfig().Plan(budget)
}

// AvailableMemory reads MemAvailable from /proc/meminfo (bytes). It is the
// CPU backend's default budget.
func AvailableMemory() (int64, error) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, fmt.Errorf("matvis: available memory: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemAvailable:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("matvis: parsing MemAvailable %q: %w", fields[1], err)
			}
			return kb * 1024, nil
		}
	}
	return 0, fmt.Errorf("matvis: no MemAvailable in /proc/meminfo")
}
