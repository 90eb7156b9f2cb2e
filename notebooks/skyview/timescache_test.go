package skyview

import (
	"context"
	"math"
	"testing"

	"github.com/gomatvis/gomatvis/matvis/imaging"
)

// TestTimesCentred: a span of s minutes is ⌊s/StepMin⌋ + 1 integrations
// centred on MidJD (Settings.SpanMin's contract): 60 minutes at 10 are
// MidJD − 30 … + 30 minutes by 10, worked by hand; 0 is MidJD alone.
func TestTimesCentred(t *testing.T) {
	sc := DefaultScene()
	sc.StepMin = 10
	got := sc.Times(60)
	if len(got) != 7 {
		t.Fatalf("%d times, want 7", len(got))
	}
	for i, jd := range got {
		want := sc.MidJD + float64(10*i-30)/1440
		if math.Abs(jd-want)*86400 > 1e-4 {
			t.Errorf("time %d: JD %.8f, want %.8f (%.3g s off)", i, jd, want, (jd-want)*86400)
		}
	}
	if one := sc.Times(0); len(one) != 1 || one[0] != sc.MidJD {
		t.Errorf("a snapshot: %v, want [%v]", one, sc.MidJD)
	}
}

// TestNoCacheAfterCaching: NoCache set on an explorer that has cached a
// view simulates the next view afresh, as its doc says (every view), and
// does not return the cached one.
func TestNoCacheAfterCaching(t *testing.T) {
	sc := DefaultScene()
	sc.MaxAnt = 7
	e, err := New(sc)
	if err != nil {
		t.Fatal(err)
	}
	s := Settings{NAnt: 7, SpanMin: 0, Beam: Beam{Uniform: true}, Weighting: imaging.Weighting{Mode: imaging.Natural}}
	for i, want := range []bool{true, false} {
		v, err := e.View(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if v.Simulated != want {
			t.Errorf("view %d with the cache: simulated %v, want %v", i, v.Simulated, want)
		}
	}
	e.NoCache = true
	if v, err := e.View(context.Background(), s); err != nil || !v.Simulated {
		t.Errorf("NoCache after caching: simulated %v (%v), want a fresh simulation", v != nil && v.Simulated, err)
	}
}
