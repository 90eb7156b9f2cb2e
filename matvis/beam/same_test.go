package beam

import "testing"

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
