package matvis

import (
	"fmt"
	"strings"

	"github.com/gomatvis/gomatvis/internal/membudget"
)

// ErrTooLarge is wrapped by the errors of a run whose memory cannot fit
// in its budget (a *MemoryError carries the numbers), and of a reader
// that sized its input before reading it (membudget.ErrTooLarge).
var ErrTooLarge = membudget.ErrTooLarge

// MemoryError says that a run needs more host memory than its budget.
type MemoryError struct {
	// Need is the sum of Terms in bytes; Limit is the usable part of the
	// budget (MemoryBuffer × Budget).
	Need, Limit, Budget int64
	// BudgetFrom says where the budget came from.
	BudgetFrom string
	Terms      []MemoryTerm
}

func (e *MemoryError) Error() string {
	parts := make([]string, 0, len(e.Terms))
	for _, t := range e.Terms {
		if t.Bytes > 0 {
			parts = append(parts, fmt.Sprintf("%s %s", t.Name, formatBytes(t.Bytes)))
		}
	}
	return fmt.Sprintf("needs %s of host memory (%s), but %s may be used (%s %s × memory_buffer): %v; %s",
		formatBytes(e.Need), strings.Join(parts, ", "), formatBytes(e.Limit), e.BudgetFrom, formatBytes(e.Budget), ErrTooLarge, e.advice())
}

// advice says what to change: what makes the largest term smaller, and
// how to raise the budget that bound it.
func (e *MemoryError) advice() string {
	var big MemoryTerm
	for _, t := range e.Terms {
		if t.Bytes > big.Bytes {
			big = t
		}
	}
	var fix string
	switch {
	case big.PerChunk:
		fix = "split the sources into more chunks (--min-chunks, min_chunks)"
	case big.Name == "output":
		fix = "simulate fewer channels, times or baselines, or stream the output (the CLI's .uvh5, .uvfits, .ms and .npy outputs)"
	case big.Name == "pair_list" || big.Name == "accumulator":
		fix = "simulate fewer antennas, or select the baselines (antpairs, select: bls) with matprod pairs"
	default:
		fix = "simulate fewer sources"
	}
	switch e.BudgetFrom {
	case membudget.FromMaxMemory:
		return fix + ", or raise max_memory (--max-memory) where the machine has the memory"
	case membudget.FromAddressSpace:
		return fix + ", or raise the address-space limit (ulimit -v)"
	}
	return fix + ", or run on a machine with more memory"
}

// Unwrap makes errors.Is(err, ErrTooLarge) true.
func (e *MemoryError) Unwrap() error { return ErrTooLarge }

// formatBytes writes n bytes with a decimal unit.
func formatBytes(n int64) string { return membudget.FormatBytes(n) }

// mul multiplies non-negative counts, saturating at MaxInt64 so that an
// absurd size compares as too large instead of wrapping around.
func mul(xs ...int64) int64 { return membudget.Mul(xs...) }

// add sums non-negative byte counts, saturating at MaxInt64.
func add(xs ...int64) int64 { return membudget.Add(xs...) }

// hostShape is what the host-memory check needs to know of a run.
type hostShape struct {
	nant, nsrc, nfreq, ntime, nfeed, precision int
	// outTimes is how many times of the output are held at once;
	// streamed says none is (Options.OutputStreamed).
	outTimes             int
	streamed             bool
	npairs               int64
	nbeamUsed, minChunks int
	pairsAcc             bool
	// stokes: a polarized sky (docs/stokes.md).
	stokes bool
}

// hostTerms are the host allocations of a run that chunking cannot make
// smaller (the output, the pair list, the accumulator, the ENU cache), and
// the CPU's per-chunk work arrays at the most chunks the plan may choose
// (every source of a chunk taken as visible). The inputs are not counted:
// they are already in memory.
func (h hostShape) terms() []MemoryTerm {
	csize := int64(8 * h.precision)
	nf := int64(h.nfeed)
	m := mul(int64(h.nant), nf)
	acc := mul(m, m, csize)
	if h.pairsAcc {
		acc = mul(h.npairs, nf, nf, 16)
	}
	ntopo := int64(h.ntime)
	if !CacheAllENU(h.ntime, h.nsrc) {
		ntopo = 1
	}
	nch := max(h.minChunks, min(h.nsrc, maxAutoChunks))
	output := mul(int64(h.nfreq), int64(h.outputTimes()), h.npairs, nf, nf, csize)
	if h.streamed {
		output = 0
	}
	k := int64((h.nsrc + nch - 1) / nch)
	terms := []MemoryTerm{
		{"output", output, false},
		{"pair_list", mul(h.npairs, 16), false},
		{"accumulator", acc, false},
		{"enu_cache", mul(ntopo, 3, int64(h.nsrc), 8), false},
		{"chunk_z", mul(m, nf, k, csize), true},
		{"chunk_beams", mul(int64(h.nbeamUsed+1), nf, nf, k, 16), true},
		{"chunk_angles", mul(k, 32), true},
	}
	if h.stokes {
		// The Stokes of a channel, the basis angles of the cached times,
		// each chunk's factors (4 complex, 2 signs) and the subtracted Z of
		// negative eigenvalues, as large as Z.
		terms = append(terms,
			MemoryTerm{"stokes", mul(4, int64(h.nsrc), 8), false},
			MemoryTerm{"pol_basis_cache", mul(ntopo, 2, int64(h.nsrc), 8), false},
			MemoryTerm{"chunk_coherency", mul(k, 80), true},
			MemoryTerm{"chunk_z_negative", mul(m, nf, k, csize), true},
		)
	}
	return terms
}

// outputTimes is how many times of the output are held at once.
func (h hostShape) outputTimes() int {
	if h.outTimes > 0 && h.outTimes < h.ntime {
		return h.outTimes
	}
	return h.ntime
}

// hostBudget is the host memory a run may use: the least of MaxMemory
// (when set), the memory cgroup's limit, RLIMIT_AS less what the process
// has mapped, and the machine's available memory (internal/membudget).
// known is false when none is.
func hostBudget(maxMemory int64) (budget int64, from string, known bool) {
	b, ok := membudget.System().Budget(maxMemory)
	return b.Bytes, b.From, ok
}

// checkHost refuses terms whose sum exceeds MemoryBuffer × the budget.
func checkHost(terms []MemoryTerm, maxMemory int64, memoryBuffer float64) error {
	budget, from, known := hostBudget(maxMemory)
	if !known {
		return nil
	}
	need := int64(0)
	for _, t := range terms {
		need = add(need, t.Bytes)
	}
	limit := int64(float64(budget) * memoryBuffer)
	if need <= limit {
		return nil
	}
	return &MemoryError{Need: need, Limit: limit, Budget: budget, BudgetFrom: from, Terms: terms}
}

// planHost checks that the run's host memory fits (see hostShape.terms),
// choosing the pairs accumulator when the matrix product was left to
// choose (auto), some antpairs were asked for, and only the pairs
// accumulator fits. It returns the matrix-product method.
func planHost(h hostShape, o *Options, auto bool) (MatProd, error) {
	mp := o.MatProd
	h.pairsAcc = mp == MatProdPairs
	err := checkHost(h.terms(), o.MaxMemory, o.MemoryBuffer)
	if err == nil || !auto || o.AntPairs == nil || h.pairsAcc {
		return mp, err
	}
	h.pairsAcc = true
	if checkHost(h.terms(), o.MaxMemory, o.MemoryBuffer) == nil {
		return MatProdPairs, nil
	}
	return mp, err
}

// HostBytes is the host memory that New checked for the simulation: its
// output, pair list, accumulator and ENU cache, and the CPU's per-chunk
// work arrays at the most chunks (the terms of a MemoryError).
func (s *Simulation) HostBytes() []MemoryTerm {
	return s.hostShape().terms()
}

// OutputBytes is the size of the result in bytes.
func (s *Simulation) OutputBytes() int64 {
	return mul(int64(s.NFreq()), int64(s.NTime()), int64(len(s.Pairs)), int64(s.NFeed()), int64(s.NFeed()), int64(8*s.Options.Precision))
}

// TimesPerBlock is how many times of s's output fit in host memory at
// once beside the rest of the run (its Options.OutputTimes at least, as
// New checked that many; all of them when they fit or the budget is
// unknown): the block length for a caller that streams the output.
func (s *Simulation) TimesPerBlock() int {
	h := s.hostShape()
	fits := func(n int) bool {
		h.outTimes = n
		return checkHost(h.terms(), s.Options.MaxMemory, s.Options.MemoryBuffer) == nil
	}
	lo, hi := max(1, min(s.Options.OutputTimes, s.NTime())), s.NTime()
	if fits(hi) {
		return hi
	}
	for lo+1 < hi { // fits(lo), !fits(hi)
		mid := (lo + hi) / 2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// CheckHostMemory checks that the host memory New checked, and extra (a
// backend's own host buffers), fit in the budget: a backend calls it
// before allocating its result, since the memory available at New may
// since have been taken.
func (s *Simulation) CheckHostMemory(extra ...MemoryTerm) error {
	if err := checkHost(append(s.HostBytes(), extra...), s.Options.MaxMemory, s.Options.MemoryBuffer); err != nil {
		return fmt.Errorf("matvis: %w", err)
	}
	return nil
}

func (s *Simulation) hostShape() hostShape {
	used := make(map[int]bool)
	for _, b := range s.BeamOf {
		used[b] = true
	}
	return hostShape{
		nant: s.NAnt(), nsrc: s.NSrc(), nfreq: s.NFreq(), ntime: s.NTime(), nfeed: s.NFeed(),
		precision: s.Options.Precision, npairs: int64(len(s.Pairs)), nbeamUsed: len(used), outTimes: s.Options.OutputTimes,
		streamed:  s.Options.OutputStreamed,
		minChunks: s.Options.MinChunks, pairsAcc: s.Options.MatProd == MatProdPairs,
		stokes: s.SkyPolarized(),
	}
}

// HostRequired is the host memory that New checks for a run of this
// configuration with the herk accumulator (NPairs baselines; 0: all
// NAnt²), for callers that must check before building the inputs.
func (c MemoryConfig) HostRequired() []MemoryTerm {
	n := c.normalized()
	npairs := int64(c.NPairs)
	if npairs == 0 {
		npairs = mul(int64(c.NAnt), int64(c.NAnt))
	}
	return hostShape{
		nant: n.NAnt, nsrc: n.NSrc, nfreq: n.NFreq, ntime: n.NTime, nfeed: n.NFeed, precision: n.Precision,
		npairs: npairs, nbeamUsed: n.NBeamUsed, minChunks: n.MinChunks, stokes: n.Stokes,
	}.terms()
}

// CheckHostBudget returns a *MemoryError when the terms exceed
// memoryBuffer (0: 0.9) × the budget: maxMemory when positive, capped by
// the machine's available memory when that is known.
func CheckHostBudget(terms []MemoryTerm, maxMemory int64, memoryBuffer float64) error {
	orDefault(&memoryBuffer, defaultMemoryBuffer)
	return checkHost(terms, maxMemory, memoryBuffer)
}
