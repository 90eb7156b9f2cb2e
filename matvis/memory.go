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
// matvis-conventions §8) for nchunks chunks: bytes per term.
func (s *Simulation) MemoryTerms(nchunks int) ([]MemoryTerm, int) {
	rsize := int64(4 * s.Options.Precision)
	csize := 2 * rsize
	nsrc, nant, nbeam := int64(s.NSrc()), int64(s.NAnt()), int64(len(s.Beams))
	nfeed := int64(s.NFeed())
	nax := nfeed
	var nbeampix int64
	for _, b := range s.Beams {
		if g, ok := b.(GridPixelser); ok {
			nbeampix += int64(g.GridPixels())
		}
	}
	nchunk := s.bufferSources(nchunks)
	nc := int64(nchunk)
	terms := []MemoryTerm{
		{"antpos", nant * 3 * rsize, false},
		{"flux", nsrc * rsize, false},
		{"beam_grid", nbeampix * nfeed * nax * csize, false},
		{"crd_eq", 3 * nsrc * rsize, false},
		{"eq2top", 9 * rsize, false},
		{"crd_top", 3 * nsrc * rsize, false},
		{"crd_chunk", 3 * nc * rsize, true},
		{"flux_chunk", nc * rsize, true},
		{"exptau", nant * nc * csize, true},
		{"beam_interp", nbeam * nfeed * nax * nc * csize, true},
		{"zmat", nc * nfeed * nant * nax * csize, true},
		{"vis", int64(nchunks) * nfeed * nant * nfeed * nant * csize, false},
	}
	return terms, nchunk
}

// bufferSources is the number of sources the per-chunk buffers hold: as
// matvis, int(nsrc // nchunks · source_buffer) for sizing.
func (s *Simulation) bufferSources(nchunks int) int {
	return int(float64(s.NSrc()/nchunks) * s.Options.SourceBuffer)
}

// PlanMemory chooses the number of source chunks as matvis does: the
// smallest count from 1 to 100 whose modelled total is below
// MemoryBuffer × budget, then at least MinChunks and at most nsrc.
func (s *Simulation) PlanMemory(budget int64) MemoryPlan {
	var p MemoryPlan
	p.Budget = budget
	limit := float64(budget) * s.Options.MemoryBuffer
	ch := 1
	for {
		terms, _ := s.MemoryTerms(ch)
		var tot int64
		for _, t := range terms {
			tot += t.Bytes
		}
		if float64(tot) < limit {
			p.Fits = true
			break
		}
		if ch >= maxAutoChunks {
			break
		}
		ch++
	}
	n := min(max(s.Options.MinChunks, ch), s.NSrc())
	p.NChunks = n
	p.SourcesPerChunk = (s.NSrc() + n - 1) / n
	p.Terms, p.BufferSources = s.MemoryTerms(n)
	for _, t := range p.Terms {
		p.Total += t.Bytes
	}
	return p
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
