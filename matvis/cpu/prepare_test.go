package cpu

import (
	"context"
	"errors"
	"math"
	"math/cmplx"
	"strings"
	"sync"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/backendtest"
	"github.com/gomatvis/gomatvis/matvis/beam"
)

// counter records a counting beam's At calls per frequency.
type counter struct {
	mu sync.Mutex
	n  map[float64]int
}

func (c *counter) add(f float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[float64]int{}
	}
	c.n[f]++
}

func (c *counter) at(f float64) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[f]
}

// countingBeam is a beam whose At calls are counted. Check delegates to
// the wrapped beam without counting, so that matvis.New's checks are not
// taken for preparations. As a pointer it is one object per allocation.
type countingBeam struct {
	inner beam.Beam
	c     *counter
	// failAt, when non-zero, is a frequency at which At fails (Check
	// still passes).
	failAt float64
}

func (b *countingBeam) String() string { return "counting " + b.inner.String() }

func (b *countingBeam) At(f float64, m beam.Mode) (beam.Response, error) {
	b.c.add(f)
	if f == b.failAt {
		return nil, errors.New("refused")
	}
	return b.inner.At(f, m)
}

func (b *countingBeam) Check(f float64, m beam.Mode) error { return beam.Check(b.inner, f, m) }

// countingValue is countingBeam as a comparable value: two with the same
// fields are equal.
type countingValue struct {
	inner beam.Beam
	c     *counter
}

func (b countingValue) String() string { return "counting value " + b.inner.String() }
func (b countingValue) At(f float64, m beam.Mode) (beam.Response, error) {
	b.c.add(f)
	return b.inner.At(f, m)
}
func (b countingValue) Check(f float64, m beam.Mode) error { return beam.Check(b.inner, f, m) }

// countingSlice is a value beam of a type that is not comparable: every
// list entry is prepared on its own.
type countingSlice struct {
	inner beam.Beam
	c     *counter
	_     []int
}

func (b countingSlice) String() string { return "counting slice " + b.inner.String() }
func (b countingSlice) At(f float64, m beam.Mode) (beam.Response, error) {
	b.c.add(f)
	return b.inner.At(f, m)
}
func (b countingSlice) Check(f float64, m beam.Mode) error { return beam.Check(b.inner, f, m) }

// wrapper is a comparable struct holding a beam interface, as
// beam.DiagonalJones is; == on two holding the same non-comparable value
// panics.
type wrapper struct{ beam.Beam }

func (w wrapper) Check(f float64, m beam.Mode) error { return beam.Check(w.Beam, f, m) }

// gridded returns a fresh gridded beam (a new object each call, equal to
// the others): Gaussian or Airy, cubic or bilinear.
func gridded(t *testing.T, airy bool, order int) *beam.Gridded {
	t.Helper()
	var a beam.Beam = beam.Gaussian{SigmaRad: 0.4}
	if airy {
		a = beam.Airy{DiameterM: 14}
	}
	g, err := beam.NewGriddedFromAnalytic(a, []float64{100e6, 125e6, 150e6, 175e6, 200e6}, 72, 37)
	if err != nil {
		t.Fatal(err)
	}
	if order != 3 {
		if g, err = g.WithOrder(order); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// runPoisoned runs c on the CPU backend into a result filled with NaN
// beforehand, so that an entry the run leaves unwritten shows.
func runPoisoned(t *testing.T, c matvis.Config) []complex128 {
	t.Helper()
	sim, err := matvis.New(c)
	if err != nil {
		t.Fatal(err)
	}
	whole := matvis.NewResult(sim)
	nan := cmplx.NaN()
	for i := range whole.Vis64 {
		whole.Vis64[i] = complex64(nan)
	}
	for i := range whole.Vis128 {
		whole.Vis128[i] = nan
	}
	sub, err := sim.SubsetInto(matvis.Block{F0: 0, F1: sim.NFreq(), T0: 0, T1: sim.NTime()}, whole)
	if err != nil {
		t.Fatal(err)
	}
	res, err := New().Run(context.Background(), sub)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete() {
		t.Fatal("result not complete")
	}
	v := backendtest.Vis(whole)
	for i, x := range v {
		if cmplx.IsNaN(x) || cmplx.IsInf(x) {
			t.Fatalf("visibility %d = %v: left unwritten", i, x)
		}
	}
	return v
}

// TestSharedBeamsMatchDistinct checks that list entries sharing one beam
// object, prepared once per channel, give exactly the visibilities of
// entries that are distinct objects of equal value, each prepared on its
// own: several channels and times, several chunks, fresh random inputs.
func TestSharedBeamsMatchDistinct(t *testing.T) {
	rng := sharedtest.RNG(t, 28)
	// Each case's beam list: kinds[i] names entry i's object; entries of
	// one kind share an object in the shared list.
	type kind struct {
		airy  bool
		order int
		// analytic wraps beam.Gaussian in a countingBeam (a pointer)
		// instead of gridding it.
		analytic bool
	}
	g3, a1, an := kind{false, 3, false}, kind{true, 1, false}, kind{false, 0, true}
	for _, tc := range []struct {
		name      string
		kinds     []kind
		polarized bool
		precision int
	}{
		{"one gridded object, fp32, polarized", []kind{g3, g3, g3, g3}, true, 1},
		{"one gridded object, fp64, unpolarized", []kind{g3, g3, g3}, false, 2},
		{"two gridded objects interleaved, fp64, polarized", []kind{g3, a1, g3, a1, a1}, true, 2},
		{"gridded and analytic pointers, fp32, unpolarized", []kind{an, g3, an, a1, g3}, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := backendtest.Random(t, rng, backendtest.Shape{NAnt: 9, NSrc: 700, NFreq: 3, NTime: 2},
				backendtest.SkyPrecomputed, backendtest.BeamsAnalytic,
				matvis.Options{Polarized: tc.polarized, Precision: tc.precision, MinChunks: 2})
			fresh := func(k kind) beam.Beam {
				if k.analytic {
					return &countingBeam{inner: beam.Gaussian{SigmaRad: 0.5}, c: &counter{}}
				}
				return gridded(t, k.airy, k.order)
			}
			shared := map[kind]beam.Beam{}
			var sharedList, distinctList []beam.Beam
			for _, k := range tc.kinds {
				if shared[k] == nil {
					shared[k] = fresh(k)
				}
				sharedList = append(sharedList, shared[k])
				distinctList = append(distinctList, fresh(k))
			}
			// Every entry used, the rest at random.
			c.BeamIdx = c.BeamIdx[:0]
			for a := range len(c.Antennas) {
				b := rng.IntN(len(tc.kinds))
				if a < len(tc.kinds) {
					b = a
				}
				c.BeamIdx = append(c.BeamIdx, b)
			}
			c.Beams = sharedList
			got := runPoisoned(t, c)
			c.Beams = distinctList
			want := runPoisoned(t, c)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("visibility %d: shared objects %v, distinct objects %v", i, got[i], want[i])
				}
			}
			var peak float64
			for _, v := range want {
				peak = math.Max(peak, cmplx.Abs(v))
			}
			if peak == 0 {
				t.Fatal("all visibilities zero: the comparison shows nothing")
			}
		})
	}
}

// TestPrepareOncePerChannel counts the beams' preparations: once per
// channel for each distinct object, however many list entries, times and
// chunks use it; a beam type that is not comparable once per entry.
func TestPrepareOncePerChannel(t *testing.T) {
	rng := sharedtest.RNG(t, 29)
	g := gridded(t, false, 3)
	for _, tc := range []struct {
		name string
		// beams makes the list from the counters; want[k] is counter
		// k's preparations per channel.
		beams func(c []*counter) []beam.Beam
		ncnt  int
		want  []int
	}{
		{"one pointer in every entry", func(c []*counter) []beam.Beam {
			b := &countingBeam{inner: g, c: c[0]}
			return []beam.Beam{b, b, b, b, b, b}
		}, 1, []int{1}},
		{"three pointers over eight entries", func(c []*counter) []beam.Beam {
			x := &countingBeam{inner: g, c: c[0]}
			y := &countingBeam{inner: beam.Airy{DiameterM: 14}, c: c[1]}
			z := &countingBeam{inner: g, c: c[2]}
			return []beam.Beam{x, y, z, x, x, y, z, x}
		}, 3, []int{1, 1, 1}},
		{"distinct pointers, one each", func(c []*counter) []beam.Beam {
			var out []beam.Beam
			for range 5 {
				out = append(out, &countingBeam{inner: g, c: c[0]})
			}
			return out
		}, 1, []int{5}},
		{"equal values share, unequal do not", func(c []*counter) []beam.Beam {
			x := countingValue{inner: beam.Gaussian{SigmaRad: 0.4}, c: c[0]}
			y := countingValue{inner: beam.Gaussian{SigmaRad: 0.3}, c: c[1]}
			return []beam.Beam{x, y, countingValue{inner: beam.Gaussian{SigmaRad: 0.4}, c: c[0]}, x, y}
		}, 2, []int{1, 1}},
		{"not comparable: every entry", func(c []*counter) []beam.Beam {
			x := countingSlice{inner: beam.Gaussian{SigmaRad: 0.4}, c: c[0]}
			return []beam.Beam{x, x, x, x}
		}, 1, []int{4}},
		{"a comparable wrapper of a non-comparable beam", func(c []*counter) []beam.Beam {
			// == on two of these panics: they are taken for distinct.
			x := wrapper{countingSlice{inner: beam.Airy{DiameterM: 14}, c: c[0]}}
			return []beam.Beam{x, x, x}
		}, 1, []int{3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cnt := make([]*counter, tc.ncnt)
			for i := range cnt {
				cnt[i] = &counter{}
			}
			c := backendtest.Random(t, rng, backendtest.Shape{NAnt: 10, NSrc: 600, NFreq: 3, NTime: 3},
				backendtest.SkyPrecomputed, backendtest.BeamsAnalytic, matvis.Options{MinChunks: 3})
			c.Beams = tc.beams(cnt)
			c.BeamIdx = nil
			for a := range len(c.Antennas) {
				c.BeamIdx = append(c.BeamIdx, a%len(c.Beams))
			}
			sim, err := matvis.New(c)
			if err != nil {
				t.Fatal(err)
			}
			res, err := New().Run(context.Background(), sim)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Complete() {
				t.Fatal("result not complete")
			}
			for k, cn := range cnt {
				for _, f := range c.Freqs {
					if got := cn.at(f); got != tc.want[k] {
						t.Errorf("counter %d at %g Hz: %d preparations, want %d", k, f, got, tc.want[k])
					}
				}
			}
		})
	}
}

// TestPrepareErrorNamesFirstEntry checks that a failing preparation is
// reported for the first list entry of the failing object, and that no
// integration of that channel is marked done.
func TestPrepareErrorNamesFirstEntry(t *testing.T) {
	rng := sharedtest.RNG(t, 30)
	c := backendtest.Random(t, rng, backendtest.Shape{NAnt: 6, NSrc: 300, NFreq: 3, NTime: 2},
		backendtest.SkyPrecomputed, backendtest.BeamsAnalytic, matvis.Options{})
	ok := &countingBeam{inner: beam.Gaussian{SigmaRad: 0.4}, c: &counter{}}
	bad := &countingBeam{inner: beam.Airy{DiameterM: 14}, c: &counter{}, failAt: c.Freqs[1]}
	c.Beams = []beam.Beam{ok, ok, bad, ok, bad}
	c.BeamIdx = []int{0, 1, 2, 3, 4, 0}
	sim, err := matvis.New(c)
	if err != nil {
		t.Fatal(err)
	}
	res, err := New().Run(context.Background(), sim)
	if err == nil || !strings.Contains(err.Error(), "beam 2 (") || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("error %v, want beam 2's refusal", err)
	}
	nt := sim.NTime()
	for i, d := range res.Done {
		if want := i < nt; d != want {
			t.Errorf("integration %d done = %v, want %v", i, d, want)
		}
	}
}
