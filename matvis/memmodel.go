package matvis

import (
	"fmt"
	"math"
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

// MemoryConfig is everything the memory model needs to know about a run,
// as plain numbers: it can be filled in for a configuration far larger than
// this machine could build (the prodslice prediction), or taken from a
// Simulation with Simulation.MemoryConfig.
//
// Terms and Plan evaluate matvis's model (matvis _utils.py
// get_required_chunks / get_desired_chunks, matvis-conventions §8), which
// chooses the chunk count on every backend; HostTerms is the CPU backend's
// own accounting of what it allocates, used to check the model against
// measured memory.
type MemoryConfig struct {
	// NAnt, NBeam and NSrc are the antennas, unique beams and sources.
	NAnt, NBeam, NSrc int
	// NFeed is 2 for polarized runs and 1 otherwise; the number of E-field
	// axes equals it.
	NFeed int
	// Precision is 1 (4-byte reals) or 2 (8-byte reals).
	Precision int
	// BeamGridPixels is Σ over the beam list of N_za·N_az of each gridded
	// beam (0 for analytic beams): the raw beam-grid term's pixel count.
	BeamGridPixels int64
	// SourceBuffer, MemoryBuffer and MinChunks are the run options of the
	// same names (zero values mean matvis's defaults 1, 0.9 and 1).
	SourceBuffer, MemoryBuffer float64
	MinChunks                  int

	// The fields below only enter HostTerms.

	// NFreq and NTime are the channels and times of the run.
	NFreq, NTime int
	// NPairs is the number of output baselines (0: NAnt²).
	NPairs int
	// NBeamUsed is the number of beams some antenna uses (0: NBeam).
	NBeamUsed int
	// PairsAccumulator says the CPU accumulates nfeed² values per
	// baseline (MatProdPairs) instead of the (nfeed·nant)² Gram matrix.
	PairsAccumulator bool
	// Stokes says the sky has Q, U or V (docs/stokes.md): the model adds
	// TermStokes.
	Stokes bool
	// VisibleFraction is the fraction of a chunk's sources above the
	// horizon, which the CPU backend's buffers are sized by (0: 0.5, a
	// uniform sky's).
	VisibleFraction float64
}

// Memory term names. The model's terms keep matvis's names; the HostTerms
// extras are prefixed "host_".
const (
	TermAntPos     = "antpos"      // antenna positions, nant·3 reals
	TermFlux       = "flux"        // fluxes, nsrc reals
	TermBeamGrid   = "beam_grid"   // raw beam grids, Σ N_za·N_az · nfeed·nax complex (independent of chunking)
	TermCrdEq      = "crd_eq"      // equatorial source vectors, 3·nsrc reals
	TermEq2Top     = "eq2top"      // the 3×3 rotation
	TermCrdTop     = "crd_top"     // topocentric source vectors, 3·nsrc reals
	TermCrdChunk   = "crd_chunk"   // one chunk's vectors, 3·chunk reals
	TermFluxChunk  = "flux_chunk"  // one chunk's fluxes
	TermExpTau     = "exptau"      // exp(iτ), nant·chunk complex
	TermBeamInterp = "beam_interp" // interpolated beams, nbeam·nfeed·nax·chunk complex
	TermZ          = "zmat"        // Z, chunk·nfeed·nant·nax complex
	TermVis        = "vis"         // one (nfeed·nant)² accumulator per chunk
	// TermStokes is a full-Stokes sky's per-source factors of both signs,
	// for two integrations in flight (the GPU's): 2·2·8 doubles a source.
	TermStokes = "stokes_factors"
)

// normalized fills in the defaults that New would, and the HostTerms
// fields' own.
func (c MemoryConfig) normalized() MemoryConfig {
	orDefault(&c.Precision, defaultPrecision)
	orDefault(&c.NFeed, 1)
	orDefault(&c.SourceBuffer, defaultSourceBuffer)
	orDefault(&c.MemoryBuffer, defaultMemoryBuffer)
	orDefault(&c.MinChunks, defaultMinChunks)
	orDefault(&c.NPairs, c.NAnt*c.NAnt)
	orDefault(&c.NBeamUsed, c.NBeam)
	orDefault(&c.VisibleFraction, 0.5)
	orDefault(&c.NFreq, 1)
	orDefault(&c.NTime, 1)
	return c
}

// Validate reports a configuration the model cannot evaluate.
func (c MemoryConfig) Validate() error {
	n := c.normalized()
	switch {
	case n.NAnt <= 0 || n.NBeam <= 0 || n.NSrc <= 0:
		return fmt.Errorf("matvis: memory config: nant = %d, nbeam = %d, nsrc = %d: all must be positive", c.NAnt, c.NBeam, c.NSrc)
	case n.NFeed != 1 && n.NFeed != 2:
		return fmt.Errorf("matvis: memory config: nfeed = %d: must be 1 or 2", c.NFeed)
	case n.BeamGridPixels < 0:
		return fmt.Errorf("matvis: memory config: beam grid pixels = %d: must not be negative", c.BeamGridPixels)
	}
	if err := checkChunking(n.Precision, n.MinChunks, n.SourceBuffer, n.MemoryBuffer); err != nil {
		return fmt.Errorf("matvis: memory config: %w", err)
	}
	return nil
}

// MemoryConfig describes the simulation for the memory model.
func (s *Simulation) MemoryConfig() MemoryConfig {
	var pix int64
	for _, b := range s.Beams {
		if g, ok := b.(GridPixelser); ok {
			pix += int64(g.GridPixels())
		}
	}
	used := make(map[int]bool)
	for _, b := range s.BeamOf {
		used[b] = true
	}
	return MemoryConfig{
		NAnt: s.NAnt(), NBeam: len(s.Beams), NSrc: s.NSrc(), NFeed: s.NFeed(),
		Precision: s.Options.Precision, BeamGridPixels: pix,
		SourceBuffer: s.Options.SourceBuffer, MemoryBuffer: s.Options.MemoryBuffer,
		MinChunks: s.Options.MinChunks,
		NFreq:     s.NFreq(), NTime: s.NTime(), NPairs: len(s.Pairs), NBeamUsed: len(used),
		PairsAccumulator: s.Options.MatProd == MatProdPairs,
		Stokes:           s.SkyPolarized(),
	}
}

// BufferSources is the number of sources the per-chunk buffers hold for
// nchunks chunks: int(nsrc // nchunks · source_buffer), as matvis sizes
// them.
func (c MemoryConfig) BufferSources(nchunks int) int {
	c = c.normalized()
	return int(float64(c.NSrc/nchunks) * c.SourceBuffer)
}

// Terms evaluates matvis's memory model for nchunks chunks: the bytes of
// every term and the per-chunk buffer size in sources.
func (c MemoryConfig) Terms(nchunks int) ([]MemoryTerm, int) {
	c = c.normalized()
	rsize := int64(4 * c.Precision)
	csize := 2 * rsize
	nsrc, nant, nbeam := int64(c.NSrc), int64(c.NAnt), int64(c.NBeam)
	nfeed := int64(c.NFeed)
	nax := nfeed
	nchunk := c.BufferSources(nchunks)
	nc := int64(nchunk)
	terms := []MemoryTerm{
		{TermAntPos, nant * 3 * rsize, false},
		{TermFlux, nsrc * rsize, false},
		{TermBeamGrid, c.BeamGridPixels * nfeed * nax * csize, false},
		{TermCrdEq, 3 * nsrc * rsize, false},
		{TermEq2Top, 9 * rsize, false},
		{TermCrdTop, 3 * nsrc * rsize, false},
		{TermCrdChunk, 3 * nc * rsize, true},
		{TermFluxChunk, nc * rsize, true},
		{TermExpTau, nant * nc * csize, true},
		{TermBeamInterp, nbeam * nfeed * nax * nc * csize, true},
		{TermZ, nc * nfeed * nant * nax * csize, true},
		{TermVis, int64(nchunks) * nfeed * nant * nfeed * nant * csize, false},
	}
	if c.Stokes {
		terms = append(terms, MemoryTerm{TermStokes, 2 * 2 * 8 * 8 * nsrc, false})
	}
	return terms, nchunk
}

// Total is the sum of terms' bytes.
func Total(terms []MemoryTerm) int64 {
	var t int64
	for _, x := range terms {
		t += x.Bytes
	}
	return t
}

// Plan chooses the number of source chunks as matvis does: the smallest
// count from 1 to 100 whose modelled total is below MemoryBuffer × budget,
// then at least MinChunks and at most nsrc.
func (c MemoryConfig) Plan(budget int64) MemoryPlan {
	c = c.normalized()
	p := MemoryPlan{Budget: budget}
	limit := float64(budget) * c.MemoryBuffer
	ch := 1
	for {
		terms, _ := c.Terms(ch)
		if float64(Total(terms)) < limit {
			p.Fits = true
			break
		}
		if ch >= maxAutoChunks {
			break
		}
		ch++
	}
	n := min(max(c.MinChunks, ch), c.NSrc)
	p.NChunks = n
	p.SourcesPerChunk = (c.NSrc + n - 1) / n
	p.Terms, p.BufferSources = c.Terms(n)
	p.Total = Total(p.Terms)
	return p
}

// MemoryPoint is the model at one chunk count, for plotting memory against
// the chunk size.
type MemoryPoint struct {
	NChunks         int          `json:"nchunks"`
	SourcesPerChunk int          `json:"sources_per_chunk"`
	Terms           []MemoryTerm `json:"terms"`
	Total           int64        `json:"total_bytes"`
	// Fits says whether Total is below MemoryBuffer × budget.
	Fits bool `json:"fits"`
}

// Curve evaluates the model from 1 chunk (all sources at once) down to
// chunks of minChunkSources sources (at least 1), at about n chunk counts
// spaced evenly in log(sources per chunk), for plotting memory against
// the chunk size. Points are ordered by decreasing chunk size.
func (c MemoryConfig) Curve(budget int64, minChunkSources, n int) []MemoryPoint {
	c = c.normalized()
	n = max(n, 2)
	minChunkSources = max(1, min(minChunkSources, c.NSrc))
	maxChunks := (c.NSrc + minChunkSources - 1) / minChunkSources
	limit := float64(budget) * c.MemoryBuffer
	var out []MemoryPoint
	last := 0
	for i := range n {
		f := float64(i) / float64(n-1)
		ch := int(math.Round(math.Exp(f * math.Log(float64(maxChunks)))))
		ch = max(ch, 1)
		if ch <= last {
			continue
		}
		last = ch
		terms, _ := c.Terms(ch)
		tot := Total(terms)
		out = append(out, MemoryPoint{
			NChunks: ch, SourcesPerChunk: (c.NSrc + ch - 1) / ch,
			Terms: terms, Total: tot, Fits: budget <= 0 || float64(tot) < limit,
		})
	}
	return out
}

// maxENUCache bounds the bytes of ENU vectors the CPU backend keeps across
// frequencies.
const maxENUCache = 1 << 30

// CacheAllENU reports whether the CPU backend keeps the ENU vectors of all
// ntime times (3 float64 per source) across frequencies; beyond 1 GiB it
// recomputes them at every frequency and holds one time's.
func CacheAllENU(ntime, nsrc int) bool {
	return int64(ntime)*int64(nsrc)*24 <= maxENUCache
}

// HostTerms is the CPU backend's accounting of what one run allocates on
// the Go heap beyond its inputs, for nchunks chunks, so the model can be
// checked against measured memory: the result array, the ENU cache of every
// time, the accumulator, and per chunk (visible sources only, since the CPU
// builds Z for those alone) the az/za angles, the evaluated beams (always
// complex128, plus one beam's worth of per-worker scratch while a beam
// is evaluated), the index list of visible sources and Z. Gridded beams add
// their stored grids (gridBytes) and the interpolation planes prepared for
// the current frequency for every used beam (preparedBytes), which the
// caller supplies because they depend on the beam's storage precision and
// spline order.
func (c MemoryConfig) HostTerms(nchunks int, gridBytes, preparedBytes int64) []MemoryTerm {
	c = c.normalized()
	csize := int64(8 * c.Precision)
	nf := int64(c.NFeed)
	chunk := int64((c.NSrc + nchunks - 1) / nchunks)
	vis := int64(math.Ceil(float64(chunk) * c.VisibleFraction))
	m := int64(c.NAnt) * nf
	ntopo := int64(c.NTime)
	if !CacheAllENU(c.NTime, c.NSrc) {
		ntopo = 1
	}
	acc := m * m * csize
	if c.PairsAccumulator {
		acc = int64(c.NPairs) * nf * nf * 16
	}
	return []MemoryTerm{
		{"host_result", int64(c.NFreq) * int64(c.NTime) * int64(c.NPairs) * nf * nf * csize, false},
		{"host_enu_cache", ntopo * 3 * int64(c.NSrc) * 8, false},
		{"host_beam_grid", gridBytes, false},
		{"host_beam_prepared", preparedBytes, false},
		{"host_accumulator", acc, false},
		{"host_visible_index", vis * 8, true},
		{"host_azza", 2 * vis * 8, true},
		{"host_beam_eval", int64(c.NBeamUsed+1) * nf * nf * vis * 16, true},
		{"host_zmat", m * nf * vis * csize, true},
	}
}
