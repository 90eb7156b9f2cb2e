package beam

import "reflect"

// Same reports whether a and b are the same beam object: the same pointer
// for pointer beams (a *Gridded shared by many list entries), equal values
// for comparable value beams (Gaussian{…}). Such beams give the same
// response at every frequency, so one preparation serves both. Beams that
// are not comparable are never taken for the same: comparing them could
// cost as much as preparing them. The check is on the values, not only
// their type: a comparable struct holding an interface (DiagonalJones)
// panics under == when both hold the same non-comparable type.
func Same(a, b Beam) bool {
	if a == nil || b == nil || reflect.TypeOf(a) != reflect.TypeOf(b) {
		return false
	}
	if !reflect.ValueOf(a).Comparable() || !reflect.ValueOf(b).Comparable() {
		return false
	}
	return a == b
}

// Groups sorts the entries of of (indices into beams; nil: every entry of
// beams, in order) into groups of the same beam (Same, or the same index):
// reps holds each group's first beam index, in order of first use, and
// groupOf[k] is entry k's group.
func Groups(beams []Beam, of []int) (reps, groupOf []int) {
	n := len(of)
	if of == nil {
		n = len(beams)
	}
	groupOf = make([]int, n)
	for k := range n {
		bi := k
		if of != nil {
			bi = of[k]
		}
		g := -1
		for i, r := range reps {
			if r == bi || Same(beams[r], beams[bi]) {
				g = i
				break
			}
		}
		if g < 0 {
			g = len(reps)
			reps = append(reps, bi)
		}
		groupOf[k] = g
	}
	return reps, groupOf
}
