package astro

import (
	"context"
	"math"
	"testing"
)

// prefetcher is the method astropy's rotation adds for a GPU run's next
// block (matvis.ENUPrefetcher's, declared here without importing matvis).
type prefetcher interface {
	PrefetchENU(ctx context.Context, ti int)
}

// TestPrefetchENU: vectors made ahead are the ones ENU makes, bit for bit
// (the ENU call copies them out, over a poisoned output), once: a second
// call for the time makes them again, equal; a prefetch whose context was
// cancelled leaves the call to make them; times outside the run are
// ignored.
func TestPrefetchENU(t *testing.T) {
	ra, dec := randomSky(30000, 7)
	times := []float64{2459845, 2459845.01, 2459845.02, 2459845.03}
	cfg := Config{Method: MethodAstropy, Site: hera, TimesJD: times, EOP: make([]EOP, len(times))}
	ref, err := New(cfg, ra, dec)
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(cfg, ra, dec)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := r.(prefetcher)
	if !ok {
		t.Fatalf("astropy's rotation %T does not prefetch", r)
	}
	n := len(ra)
	vectors := func(rot Rotation, ti int) [3][]float64 {
		t.Helper()
		var v [3][]float64
		for k := range v {
			v[k] = make([]float64, n)
			for i := range v[k] {
				v[k][i] = math.NaN()
			}
		}
		if err := rot.ENU(ti, v[0], v[1], v[2]); err != nil {
			t.Fatal(err)
		}
		return v
	}
	same := func(what string, got, want [3][]float64) {
		t.Helper()
		for k := range got {
			for i := range got[k] {
				if math.Float64bits(got[k][i]) != math.Float64bits(want[k][i]) {
					t.Fatalf("%s: component %d of source %d is %v, want %v", what, k, i, got[k][i], want[k][i])
				}
			}
		}
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	p.PrefetchENU(context.Background(), 2)
	p.PrefetchENU(context.Background(), 2) // asked twice: made once
	p.PrefetchENU(cancelled, 3)
	p.PrefetchENU(context.Background(), -1)
	p.PrefetchENU(context.Background(), len(times))
	for _, ti := range []int{2, 2, 3, 0} {
		same("time "+string(rune('0'+ti)), vectors(r, ti), vectors(ref, ti))
	}
	if n := len(r.(*astropyRotation).ahead.jobs); n != 0 {
		t.Errorf("%d prefetched times left after their ENU calls", n)
	}
}
