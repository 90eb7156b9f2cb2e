package gpu

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// Concurrent runs asking for one channel build its tables once and share
// them; another channel, precision or set of beams builds its own (a
// simulation with equal beams shares); a failed build is not kept; only
// the last tableCacheSize channels are.
func TestTableCacheSharesBuilds(t *testing.T) {
	c := NewTableCache()
	simA := &matvis.Simulation{Config: matvis.Config{Beams: []beam.Beam{beam.Gaussian{DiameterM: 14}}}}
	simA2 := *simA // a block of the same simulation: the same beams
	simB := &matvis.Simulation{Config: matvis.Config{Beams: []beam.Beam{beam.Gaussian{DiameterM: 12}}}}
	var builds atomic.Int32
	build := func() (*beamTables, error) {
		builds.Add(1)
		return &beamTables{}, nil
	}
	var wg sync.WaitGroup
	got := make([]*beamTables, 16)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sim := simA
			if i%2 == 1 {
				sim = &simA2
			}
			tb, err := c.get(sim, 100e6, true, build)
			if err != nil {
				t.Error(err)
			}
			got[i] = tb
		}()
	}
	wg.Wait()
	if n := builds.Load(); n != 1 {
		t.Fatalf("16 concurrent runs of one channel: %d builds, want 1", n)
	}
	for i := range got {
		if got[i] != got[0] {
			t.Fatalf("run %d got other tables", i)
		}
	}
	for _, k := range []struct {
		sim  *matvis.Simulation
		freq float64
		p1   bool
	}{{simA, 101e6, true}, {simA, 100e6, false}, {simB, 100e6, true}} {
		before := builds.Load()
		if tb, _ := c.get(k.sim, k.freq, k.p1, build); tb == got[0] || builds.Load() != before+1 {
			t.Errorf("%v: shared tables of another key", k)
		}
	}
	// Three keys since the first: it was evicted and is built again.
	before := builds.Load()
	if tb, _ := c.get(simA, 100e6, true, build); tb == got[0] || builds.Load() != before+1 {
		t.Error("the least recently used channel was kept beyond the cache's size")
	}
	fail := errors.New("no")
	if _, err := c.get(simA, 200e6, true, func() (*beamTables, error) { return nil, fail }); !errors.Is(err, fail) {
		t.Errorf("failed build: %v", err)
	}
	before = builds.Load()
	if _, err := c.get(simA, 200e6, true, build); err != nil || builds.Load() != before+1 {
		t.Errorf("a failed build was kept: %v", err)
	}
	// A beam replaced in place (a notebook re-running with another beam)
	// is another key.
	tb1, _ := c.get(simA, 300e6, true, build)
	simA.Beams[0] = beam.Gaussian{DiameterM: 20}
	if tb2, _ := c.get(simA, 300e6, true, build); tb2 == tb1 {
		t.Error("a replaced beam got the old beam's tables")
	}
	var none *TableCache
	if tb, err := none.get(simA, 100e6, true, build); err != nil || tb == nil {
		t.Errorf("nil cache: %v %v", tb, err)
	}
}

// holder is a comparable struct type holding a beam interface, as
// beam.DiagonalJones does.
type holder struct{ beam.Beam }

// sliceBeam is a beam type that is not comparable.
type sliceBeam struct {
	beam.Uniform
	w []float64
}

// TestSameBeamNeverPanics: a comparable struct holding a value that is
// not comparable is compared by value, without the panic of ==.
func TestSameBeamNeverPanics(t *testing.T) {
	a := holder{sliceBeam{w: []float64{1}}}
	b := holder{sliceBeam{w: []float64{1}}}
	c := holder{sliceBeam{w: []float64{2}}}
	for _, tc := range []struct {
		x, y beam.Beam
		want bool
	}{{a, b, true}, {a, c, false}, {holder{beam.Uniform{}}, holder{beam.Uniform{}}, true}, {a, beam.Uniform{}, false}} {
		if got := sameBeam(tc.x, tc.y); got != tc.want {
			t.Errorf("sameBeam(%v, %v) = %v, want %v", tc.x, tc.y, got, tc.want)
		}
	}
}
