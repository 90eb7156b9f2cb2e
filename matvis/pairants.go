package matvis

import (
	"slices"

	"github.com/gomatvis/gomatvis/matvis/beam"
)

// PairAntennas returns, in increasing order, the antennas that s's output
// pairs use: every antenna when none is left out (all nant² pairs, or
// antpairs that name every antenna).
func (s *Simulation) PairAntennas() []int {
	used, n := s.usedAntennas()
	if n == s.NAnt() {
		out := make([]int, n)
		for a := range out {
			out[a] = a
		}
		return out
	}
	out := make([]int, 0, n)
	for a, u := range used {
		if u {
			out = append(out, a)
		}
	}
	return out
}

// usedAntennas marks the antennas of s.Pairs and counts them; it stops
// early, used then incomplete, once every antenna is found (a run over all
// nant² pairs finds them in its first row).
func (s *Simulation) usedAntennas() (used []bool, n int) {
	nant := s.NAnt()
	used = make([]bool, nant)
	for _, p := range s.Pairs {
		for _, a := range p {
			if !used[a] {
				used[a] = true
				n++
			}
		}
		if n == nant {
			break
		}
	}
	return used, n
}

// OverPairAntennas returns the simulation of s over the antennas its output
// pairs use and reports whether that left any antenna out; when it did
// not, it returns s itself and false.
//
// The visibilities of pair (i, j) depend only on antennas i and j (their
// positions and beams), so the reduced simulation has the same
// visibilities as s, pair for pair in s's order, over a Gram product of
// the pairs' antennas instead of all of them: 150 000 antennas with one
// pair are a simulation of two antennas, and its memory plan (PlanMemory,
// HostBytes, MemoryConfig) is that of two. Its antennas are s's used
// ones in increasing order (the pairs re-indexed to them, orientation and
// repeats kept), its beams those of them (in their order in s.Beams, with
// BeamIdx and BeamOf re-mapped); the sky, coordinates, channels, times,
// options (matrix-product method included), mode and Stokes are s's.
//
// Its Result is indistinguishable from s's: the output is indexed by
// pairs and feeds (OutputShape is s's), nothing in it names an antenna,
// and a simulation made by SubsetInto keeps its place in the larger
// result. A backend whose cost grows with the antennas (the GPU forms the
// whole Gram product and extracts the pairs) runs this instead of s.
// The chunk plan (Result.Plan) is the reduced one's, with fewer chunks
// where s's Gram product did not fit, and chunks sum the sources in
// another grouping (equal to rounding, not bit for bit; MinChunks pins
// it); the CPU's flush threshold (cpu/flush.go) is then taken over the
// used beams alone, which moves a visibility by far less than one
// rounding.
func (s *Simulation) OverPairAntennas() (*Simulation, bool) {
	used, n := s.usedAntennas()
	if n == s.NAnt() {
		return s, false
	}
	// newAnt[a] is antenna a's index in the reduced simulation (−1: not
	// used); newBeam[b] is beam b's.
	newAnt := make([]int, s.NAnt())
	usedBeam := make([]bool, len(s.Beams))
	nbeam := 0
	ants := make([][3]float64, 0, n)
	for a, u := range used {
		newAnt[a] = -1
		if !u {
			continue
		}
		newAnt[a] = len(ants)
		ants = append(ants, s.Antennas[a])
		if b := s.BeamOf[a]; !usedBeam[b] {
			usedBeam[b] = true
			nbeam++
		}
	}
	beams := s.Beams
	newBeam := make([]int, len(s.Beams))
	for b := range newBeam {
		newBeam[b] = b
	}
	if nbeam < len(s.Beams) {
		beams = make([]beam.Beam, 0, nbeam)
		for b, u := range usedBeam {
			newBeam[b] = -1
			if u {
				newBeam[b] = len(beams)
				beams = append(beams, s.Beams[b])
			}
		}
	}
	r := *s // the sky, coordinates, options and output view stay s's
	r.Antennas = ants
	r.Beams = beams
	r.BeamOf = make([]int, n)
	for a, u := range used {
		if u {
			r.BeamOf[newAnt[a]] = newBeam[s.BeamOf[a]]
		}
	}
	r.BeamIdx = slices.Clone(r.BeamOf)
	r.Pairs = make([][2]int, len(s.Pairs))
	for k, p := range s.Pairs {
		r.Pairs[k] = [2]int{newAnt[p[0]], newAnt[p[1]]}
	}
	r.Options.AntPairs = r.Pairs
	return &r, true
}
