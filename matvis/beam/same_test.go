package beam

import (
	"slices"
	"testing"
)

// unequalBeam is a beam value that is not comparable (a slice inside).
type unequalBeam struct {
	Uniform
	w []float64
}

// TestSame: pointers by identity, comparable values by value, never
// across types, never for values that are not comparable (also inside a
// comparable wrapper, where == would panic), and nil is no beam.
func TestSame(t *testing.T) {
	g := &Gridded{}
	s := unequalBeam{w: []float64{1}}
	for _, c := range []struct {
		name string
		a, b Beam
		want bool
	}{
		{"one pointer", g, g, true},
		{"two pointers", g, &Gridded{}, false},
		{"equal values", Gaussian{SigmaRad: 0.2}, Gaussian{SigmaRad: 0.2}, true},
		{"unequal values", Gaussian{SigmaRad: 0.2}, Gaussian{SigmaRad: 0.3}, false},
		{"two types", Uniform{}, ShortDipole{}, false},
		{"not comparable", s, s, false},
		{"not comparable inside", DiagonalJones{Beam: s}, DiagonalJones{Beam: s}, false},
		{"comparable inside", DiagonalJones{Beam: Uniform{}}, DiagonalJones{Beam: Uniform{}}, true},
		{"nil", nil, Uniform{}, false},
	} {
		if got := Same(c.a, c.b); got != c.want {
			t.Errorf("%s: Same = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestGroups: entries of the same beam — one index listed twice, equal
// comparable values at two indices — share a group, whose representative
// is the first index used; other beams get groups of their own, in order
// of first use; nil stands for every entry of the list.
func TestGroups(t *testing.T) {
	g := &Gridded{}
	other := &Gridded{}
	beams := []Beam{Gaussian{SigmaRad: 0.3}, g, Gaussian{SigmaRad: 0.3}, other, Airy{DiameterM: 14}}
	for _, c := range []struct {
		of            []int
		reps, groupOf []int
	}{
		{nil, []int{0, 1, 3, 4}, []int{0, 1, 0, 2, 3}},
		{[]int{1, 2, 1, 0, 3}, []int{1, 2, 3}, []int{0, 1, 0, 1, 2}},
		{[]int{4, 4, 4}, []int{4}, []int{0, 0, 0}},
		{[]int{}, nil, []int{}},
	} {
		reps, groupOf := Groups(beams, c.of)
		if !slices.Equal(reps, c.reps) || !slices.Equal(groupOf, c.groupOf) {
			t.Errorf("Groups(%v) = %v, %v; want %v, %v", c.of, reps, groupOf, c.reps, c.groupOf)
		}
	}
}
