package matvis

import (
	"errors"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/matvis/beam"
)

// lateSim is a small simulation of two channels, its times and pairs as
// validConfig has them, at the given precision and polarization.
func lateSim(t *testing.T, precision int, pol bool) *Simulation {
	t.Helper()
	cfg := validConfig()
	cfg.Options.Polarized = pol
	cfg.Options.Precision = precision
	cfg.Beams = []beam.Beam{beam.ShortDipole{}}
	cfg.Freqs = []float64{1e8, 2e8}
	cfg.Flux = []float64{1, 1, 2, 2}
	sim, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return sim
}

// gatedLateResult is a LateResult whose storage arrives when the test
// sends it, poisoned with NaN so that a value that was not written shows.
func gatedLateResult(sim *Simulation) (*LateResult, func()) {
	shape := sim.OutputShape()
	l := &LateResult{
		res:            &Result{Shape: shape, Precision: sim.Options.Precision, Done: make([]bool, sim.NFreq()*sim.NTime())},
		ready:          make(chan lateStorage, 1),
		perIntegration: integrationSize(shape),
		maxHeld:        1 << 30,
	}
	n := integrationSize(shape) * shape[0] * shape[1]
	nan := complex(math.NaN(), math.NaN())
	release := func() {
		var s lateStorage
		if l.res.Precision == 1 {
			s.vis64 = make([]complex64, n)
			for i := range s.vis64 {
				s.vis64[i] = complex64(nan)
			}
		} else {
			s.vis128 = make([]complex128, n)
			for i := range s.vis128 {
				s.vis128[i] = nan
			}
		}
		l.ready <- s
	}
	return l, release
}

// TestLateResultHoldsUntilStorage puts integrations in a random order,
// some before the storage exists and some after, reusing one caller
// buffer, and checks every value against what was put — each integration
// element by element at its place in Shape's layout — and that the
// integrations never put keep the poison (nothing else written).
func TestLateResultHoldsUntilStorage(t *testing.T) {
	for _, tc := range []struct {
		precision int
		pol       bool
		before    int // integrations put before the storage arrives
	}{
		{1, false, 0}, {1, true, 3}, {2, false, 5}, {2, true, 1}, {1, true, 4},
	} {
		sim := lateSim(t, tc.precision, tc.pol)
		l, release := gatedLateResult(sim)
		rng := rand.New(rand.NewPCG(uint64(tc.precision), uint64(tc.before)))
		grid := sim.NFreq() * sim.NTime()
		order := rng.Perm(grid)[:grid-1] // one integration never put
		want := map[int][]complex128{}
		buf64 := make([]complex64, l.perIntegration)
		buf128 := make([]complex128, l.perIntegration)
		for i, k := range order {
			if i == tc.before {
				if l.Held() != tc.before {
					t.Fatalf("%+v: %d held before the storage arrived", tc, l.Held())
				}
				release()
			}
			vals := make([]complex128, l.perIntegration)
			for j := range vals {
				vals[j] = complex(rng.NormFloat64(), rng.NormFloat64())
				buf64[j], buf128[j] = complex64(vals[j]), vals[j]
			}
			if tc.precision == 1 {
				for j := range vals {
					vals[j] = complex128(buf64[j])
				}
			}
			want[k] = vals
			var err error
			if tc.precision == 1 {
				err = l.Put64(k/sim.NTime(), k%sim.NTime(), buf64)
			} else {
				err = l.Put128(k/sim.NTime(), k%sim.NTime(), buf128)
			}
			if err != nil {
				t.Fatal(err)
			}
			for j := range buf64 { // the caller reuses its buffer
				buf64[j], buf128[j] = 7, 7
			}
		}
		if tc.before >= len(order) {
			release()
		}
		res := l.Wait()
		if l.Held() != 0 {
			t.Fatalf("%+v: %d held after Wait", tc, l.Held())
		}
		checkLateValues(t, res, sim, want)
	}
}

func checkLateValues(t *testing.T, res *Result, sim *Simulation, want map[int][]complex128) {
	t.Helper()
	nf := 1
	if sim.Options.Polarized {
		nf = 2
	}
	for f := 0; f < sim.NFreq(); f++ {
		for ti := 0; ti < sim.NTime(); ti++ {
			vals, put := want[f*sim.NTime()+ti]
			for k := 0; k < res.Shape[2]; k++ {
				for p := 0; p < nf; p++ {
					for q := 0; q < nf; q++ {
						got := res.At(f, ti, k, p, q)
						if !put {
							if !cmplx.IsNaN(got) {
								t.Fatalf("integration (%d, %d) never put holds %v", f, ti, got)
							}
							continue
						}
						if w := vals[(k*nf+p)*nf+q]; got != w {
							t.Fatalf("integration (%d, %d) pair %d feeds %d%d: %v, want %v", f, ti, k, p, q, got, w)
						}
					}
				}
			}
		}
	}
}

// TestLateResultBackground runs the real background allocation (and the
// immediate one) and checks the values put arrive, whenever the
// allocation finishes.
func TestLateResultBackground(t *testing.T) {
	for _, background := range []bool{false, true} {
		for _, precision := range []int{1, 2} {
			sim := lateSim(t, precision, true)
			l := NewLateResult(sim, background)
			want := map[int][]complex128{}
			for k := 0; k < sim.NFreq()*sim.NTime(); k++ {
				vals := make([]complex128, l.perIntegration)
				v64 := make([]complex64, len(vals))
				for j := range vals {
					vals[j] = complex(float64(k), float64(j))
					v64[j] = complex64(vals[j])
				}
				want[k] = vals
				var err error
				if precision == 1 {
					err = l.Put64(k/sim.NTime(), k%sim.NTime(), v64)
				} else {
					err = l.Put128(k/sim.NTime(), k%sim.NTime(), vals)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			checkLateValues(t, l.Wait(), sim, want)
		}
	}
}

// TestLateResultRefuses checks a non-finite value is named as
// Result.CheckFinite names it, and that a put outside the grid, of the
// wrong length or precision is an error, not a corrupt result.
func TestLateResultRefuses(t *testing.T) {
	sim := lateSim(t, 1, true)
	l, release := gatedLateResult(sim)
	v := make([]complex64, l.perIntegration)
	v[3*4+1] = complex(float32(math.Inf(1)), 0)
	err := l.Put64(1, 0, v)
	if !errors.Is(err, ErrNonFinite) || !strings.Contains(err.Error(), "integration (freq 1, time 0): pair 3, feed element 1") {
		t.Fatalf("non-finite: %v", err)
	}
	if l.Held() != 0 {
		t.Fatal("a non-finite integration was held")
	}
	for _, tc := range []struct {
		name string
		put  func() error
		want string
	}{
		{"freq", func() error { return l.Put64(sim.NFreq(), 0, make([]complex64, l.perIntegration)) }, "outside"},
		{"time", func() error { return l.Put64(0, -1, make([]complex64, l.perIntegration)) }, "outside"},
		{"length", func() error { return l.Put64(0, 0, make([]complex64, l.perIntegration-1)) }, "values, want"},
		{"precision", func() error { return l.Put128(0, 0, make([]complex128, l.perIntegration)) }, "precision-2 values"},
	} {
		if err := tc.put(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	release()
	l.Wait()
}

// TestLateResultBoundsHeld checks that a Put past the bound on held
// integrations waits for the storage and then holds nothing.
func TestLateResultBoundsHeld(t *testing.T) {
	sim := lateSim(t, 2, false)
	l, release := gatedLateResult(sim)
	l.maxHeld = 1
	v := make([]complex128, l.perIntegration)
	v[0] = 1
	if err := l.Put128(0, 0, v); err != nil {
		t.Fatal(err)
	}
	if l.Held() != 1 {
		t.Fatalf("%d held, want 1", l.Held())
	}
	released := make(chan struct{})
	go func() {
		time.Sleep(20 * time.Millisecond)
		close(released)
		release()
	}()
	v[0] = 2
	if err := l.Put128(1, 0, v); err != nil {
		t.Fatal(err)
	}
	select {
	case <-released:
	default:
		t.Fatal("the second Put did not wait for the storage")
	}
	if l.Held() != 0 {
		t.Fatalf("%d held after the storage arrived", l.Held())
	}
	res := l.Wait()
	for f := 0; f < 2; f++ {
		if got := res.At(f, 0, 0, 0, 0); got != complex(float64(f+1), 0) {
			t.Fatalf("freq %d: %v, want %d", f, got, f+1)
		}
	}
}
