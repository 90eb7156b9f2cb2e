package matrix3

import "testing"

// Against products worked by hand.
func TestArithmetic(t *testing.T) {
	a := [3][3]float64{{1, 2, 3}, {4, 5, 6}, {7, 8, 10}}
	b := [3][3]float64{{0, 1, 0}, {-1, 0, 0}, {0, 0, 2}}
	if got, want := Mul(a, b), [3][3]float64{{-2, 1, 6}, {-5, 4, 12}, {-8, 7, 20}}; got != want {
		t.Errorf("Mul = %v, want %v", got, want)
	}
	if got, want := Transpose(a), [3][3]float64{{1, 4, 7}, {2, 5, 8}, {3, 6, 10}}; got != want {
		t.Errorf("Transpose = %v, want %v", got, want)
	}
	if got, want := Apply(a, [3]float64{1, -1, 2}), [3]float64{5, 11, 19}; got != want {
		t.Errorf("Apply = %v, want %v", got, want)
	}
	if got := Dot([3]float64{1, 2, 3}, [3]float64{4, -5, 6}); got != 12 {
		t.Errorf("Dot = %v, want 12", got)
	}
}
