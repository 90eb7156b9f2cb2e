package gputest

import (
	"math"
	"testing"
)

// The error measures on a 2×2 case worked by hand: the peak is over all of
// want, the upper entry (row 0, column 1) is left out by lowerOnly, and a
// NaN compared entry gives +Inf.
func TestRelErr(t *testing.T) {
	want := []complex128{4, 1, 2, 3} // column-major: (0,0)=4 (1,0)=1 (0,1)=2 (1,1)=3
	got := []complex128{4, 1.5, 0, 3}
	if e := RelErr(got, want); e != 0.5 {
		t.Errorf("RelErr = %v, want 2/4", e)
	}
	if e := MaxRelErr(got, want, 2, false); e != 0.5 {
		t.Errorf("MaxRelErr full = %v, want 2/4", e)
	}
	if e := MaxRelErr(got, want, 2, true); e != 0.125 {
		t.Errorf("MaxRelErr lower = %v, want 0.5/4", e)
	}
	got[1] = complex(math.NaN(), 0)
	if e := MaxRelErr(got, want, 2, true); !math.IsInf(e, 1) {
		t.Errorf("MaxRelErr with a NaN = %v, want +Inf", e)
	}
	// A = [[1i, 3], [2, 4i]]: C = AᴴA = [[5, 5i], [−5i, 25]].
	if c := GramRef([]complex128{1i, 2, 3, 4i}, 2, 2); c[0] != 5 || c[1] != -5i || c[2] != 5i || c[3] != 25 {
		t.Errorf("GramRef = %v", c)
	}
}
