package rowcover

import "testing"

// TestMissing: rows count as written once whole, or once the channel
// pieces of one rows range cover every channel; anything less is the
// first missing range.
func TestMissing(t *testing.T) {
	type mark struct{ lo, hi, f0, f1 int }
	for _, c := range []struct {
		name  string
		marks []mark
		want  string
	}{
		{"nothing", nil, "[0, 4)"},
		{"whole rows", []mark{{0, 2, 0, 3}, {2, 4, 0, 3}}, ""},
		{"out of order", []mark{{2, 4, 0, 3}, {0, 1, 0, 3}}, "[1, 2)"},
		{"channel pieces", []mark{{0, 4, 0, 1}, {0, 4, 2, 3}, {0, 4, 1, 2}}, ""},
		{"a channel short", []mark{{0, 4, 0, 1}, {0, 4, 2, 3}}, "[0, 4)"},
		{"pieces of two ranges", []mark{{0, 2, 0, 2}, {0, 2, 2, 3}, {2, 4, 1, 3}}, "[2, 4)"},
		{"overlapping pieces", []mark{{0, 4, 0, 2}, {0, 4, 1, 3}}, ""},
		// Pieces of other groupings of the same rows are not joined: a
		// conservative "missing", never a false "complete".
		{"other groupings", []mark{{0, 4, 0, 2}, {0, 2, 2, 3}, {2, 4, 2, 3}}, "[0, 4)"},
	} {
		r := New(4, 3)
		for _, m := range c.marks {
			r.Mark(m.lo, m.hi, m.f0, m.f1)
		}
		if got := r.Missing(); got != c.want {
			t.Errorf("%s: Missing() = %q, want %q", c.name, got, c.want)
		}
	}
}
