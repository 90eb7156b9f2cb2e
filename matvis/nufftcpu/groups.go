package nufftcpu

import (
	"fmt"
	"slices"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// Beam groups. With antennas in a few groups, each sharing one beam, the
// pairs (i, j) whose first antenna is in group g and second in group h
// see the strengths ½·I_s·Σ_k conj(A_g[q,k])·A_h[p,k]: one set of
// transforms per group pair (a job, run with run.beam = g and run.beam2 =
// h), each to its own pairs' targets, the sources' coordinates and each
// beam's response computed once an integration for every job. When every
// output pair's reverse is output too, the pairs (j, i) of group pair
// (h, g) need no transforms of their own: their strengths are the
// conjugates, with p and q exchanged, of (g, h)'s, and a transform of
// conjugate strengths at −s is the conjugate of the transform at s, so
// V[(j,i),q,p] = conj(V[(i,j),p,q]) (run.store's mirror). So G groups
// make G(G+1)/2 jobs; beyond MaxGroups the direct product, whose cost
// does not grow with the groups, is used instead.

// MaxGroups is the most beam groups transformed: 4 groups make 10 jobs,
// each with its own spreading and FFT an integration.
const MaxGroups = 4

// beamGroups returns one beam index per group of antennas sharing a beam
// (the same index, or beams equal as comparable values: beam.Same) and
// each antenna's group.
func beamGroups(sim *matvis.Simulation) (reps []int, groupOf []int) {
	return beam.Groups(sim.Beams, sim.BeamOf)
}

// jobSpec is one job's pairs and beams (see run).
type jobSpec struct {
	beam, beam2 int
	pairs       [][2]int
	out, mirror []int
}

// jobsOf splits sim's pairs into jobs by their antennas' beam groups:
// one job of every pair for one group; else a job per group pair (g, h)
// with g ≤ h mirroring (h, g) when every pair's reverse is output, and a
// job per ordered group pair otherwise (or for the pairs no mirror
// fills). Jobs are in group order, so the
// first (which runs the loop) holds group 0's pairs.
func jobsOf(sim *matvis.Simulation) []jobSpec {
	reps, groupOf := beamGroups(sim)
	if len(reps) == 1 {
		return []jobSpec{{beam: reps[0], beam2: reps[0], pairs: sim.Pairs}}
	}
	rev := reversePairs(sim.Pairs)
	// mirrored[k]: pair k of group pair (h, g), h > g, is filled as the
	// mirror of its reverse in (g, h)'s job. A reverse listed twice is
	// the mirror of one listing only (reversePairs finds the last); the
	// other gets a job of its own.
	mirrored := make([]bool, len(sim.Pairs))
	if rev != nil {
		for k, p := range sim.Pairs {
			if groupOf[p[0]] < groupOf[p[1]] {
				mirrored[rev[k]] = true
			}
		}
	}
	byPair := make(map[[2]int]*jobSpec)
	var order [][2]int
	for k, p := range sim.Pairs {
		g, h := groupOf[p[0]], groupOf[p[1]]
		if mirrored[k] {
			continue
		}
		key := [2]int{g, h}
		js, ok := byPair[key]
		if !ok {
			js = &jobSpec{beam: reps[g], beam2: reps[h]}
			byPair[key] = js
			order = append(order, key)
		}
		js.pairs = append(js.pairs, p)
		js.out = append(js.out, k)
		if g != h {
			m := -1
			if rev != nil && g < h {
				m = rev[k]
			}
			js.mirror = append(js.mirror, m)
		}
	}
	slices.SortFunc(order, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	specs := make([]jobSpec, len(order))
	for i, key := range order {
		specs[i] = *byPair[key]
	}
	return specs
}

// beams are the beam indices the jobs use, in increasing order.
func (r *run) beams() []int {
	var bs []int
	for _, j := range append([]*run{r}, r.jobs...) {
		bs = append(bs, j.beam, j.beam2)
	}
	slices.Sort(bs)
	return slices.Compact(bs)
}

// groupsNote adds the jobs to the strategy's name when there are several.
func (r *run) groupsNote() string {
	if len(r.jobs) == 0 {
		return ""
	}
	return fmt.Sprintf("; %d beam groups, %d group pairs transformed", len(r.beams()), 1+len(r.jobs))
}

// groupsWhy is why the run is transformed, before the chooser's reason.
func (r *run) groupsWhy() string {
	if len(r.jobs) == 0 {
		return "one beam shared by all antennas"
	}
	return fmt.Sprintf("%d beam groups (at most %d): one set of transforms per group pair", len(r.beams()), MaxGroups)
}
