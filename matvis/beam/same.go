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
