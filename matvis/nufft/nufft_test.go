package nufft

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis/nufft/nufftest"
)

// errFactor is the documented slack on ε: the type-3 transform chains two
// kernel stages (spread, then a type-2 step), each with error about ε, and
// divides by the kernel's transform, which is a few times smaller at the
// passband's edge than at its centre.
const errFactor = 10

func TestType3AgainstDirect(t *testing.T) {
	rng := sharedtest.RNG(t, 1)
	cases := []struct {
		d, n, m    int
		xh, sh     float64
		xoff, soff float64
	}{
		{1, 400, 300, 3, 60, 0.5, -7},
		{2, 300, 250, 1, 40, 0, 3},
		{3, 200, 150, 1.2, 12, -0.3, 0},
	}
	for _, tc := range cases {
		x, c, s := nufftest.Problem(rng, tc.d, tc.n, tc.m, tc.xh, tc.sh, tc.xoff, tc.soff)
		for _, sign := range []int{1, -1} {
			want, err := Direct(x, c, s, sign)
			if err != nil {
				t.Fatal(err)
			}
			for _, eps := range []float64{1e-3, 1e-6, 1e-9, 1e-12} {
				got, err := Type3(x, c, s, Options{Eps: eps, Sign: sign, Workers: 2})
				if err != nil {
					t.Fatal(err)
				}
				e := nufftest.RelErr(got, want)
				t.Logf("d=%d sign=%+d eps=%g: rel l2 err %.3g (%.2f eps)", tc.d, sign, eps, e, e/eps)
				if e > errFactor*eps {
					t.Errorf("d=%d sign=%+d eps=%g: rel l2 err %.3g > %d eps", tc.d, sign, eps, e, errFactor)
				}
			}
		}
	}
}

// TestExecuteReal checks ExecuteReal against the direct sum of the same
// real strengths, in 1-D, 2-D and 3-D, both signs, with targets off
// centre (soff) so that centring them about 0 is exercised, and that the
// symmetric path ran (fftPlan.sym); a plan without Options.Real refuses.
func TestExecuteReal(t *testing.T) {
	rng := sharedtest.RNG(t, 21)
	cases := []struct {
		d, n, m    int
		xh, sh     float64
		xoff, soff float64
	}{
		{1, 400, 301, 3, 60, 0.5, -7},
		{2, 300, 251, 1, 40, 0, 3},
		{2, 500, 200, 1, 90, 0, 0},
		{3, 200, 151, 1.2, 12, -0.3, 0},
	}
	for _, tc := range cases {
		x, cc, s := nufftest.Problem(rng, tc.d, tc.n, tc.m, tc.xh, tc.sh, tc.xoff, tc.soff)
		c := make([]float64, len(cc))
		for j, v := range cc {
			c[j] = real(v)
			cc[j] = complex(real(v), 0)
		}
		for _, sign := range []int{1, -1} {
			want, err := Direct(x, cc, s, sign)
			if err != nil {
				t.Fatal(err)
			}
			for _, eps := range []float64{1e-3, 1e-6, 1e-9, 1e-12} {
				pl, err := NewPlan(x, s, Options{Eps: eps, Sign: sign, Workers: 2, Real: true})
				if err != nil {
					t.Fatal(err)
				}
				if !pl.fft.sym {
					t.Fatalf("d=%d: the symmetric path is off", tc.d)
				}
				got := make([]complex128, len(want))
				if err := pl.ExecuteReal(c, got); err != nil {
					t.Fatal(err)
				}
				e := nufftest.RelErr(got, want)
				t.Logf("d=%d sign=%+d eps=%g: rel l2 err %.3g (%.2f eps)", tc.d, sign, eps, e, e/eps)
				if e > errFactor*eps {
					t.Errorf("d=%d sign=%+d eps=%g: rel l2 err %.3g > %d eps", tc.d, sign, eps, e, errFactor)
				}
			}
		}
	}
	x, _, s := nufftest.Problem(rng, 2, 10, 10, 1, 5, 0, 0)
	pl, err := NewPlan(x, s, Options{Eps: 1e-6, Sign: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := pl.ExecuteReal(make([]float64, 10), make([]complex128, 10)); err == nil {
		t.Error("ExecuteReal on a plan without Options.Real: no error")
	}
}

// TestShape checks that Shape gives the grid and kernel width of the
// plan NewPlan makes, in 1-D to 3-D, with and without Options.Real.
func TestShape(t *testing.T) {
	rng := sharedtest.RNG(t, 23)
	for d := 1; d <= 3; d++ {
		for _, real := range []bool{false, true} {
			x, _, s := nufftest.Problem(rng, d, 50, 40, 1+rng.Float64(), 20+40*rng.Float64(), 0.3, 2)
			opt := Options{Eps: 1e-9, Sign: 1, Real: real}
			grid, w, err := Shape(x, s, opt)
			if err != nil {
				t.Fatal(err)
			}
			pl, err := NewPlan(x, s, opt)
			if err != nil {
				t.Fatal(err)
			}
			pw, _ := pl.Kernel()
			if !slices.Equal(grid, pl.Grid()) || w != pw {
				t.Errorf("d=%d real=%v: Shape %v, %d; the plan's %v, %d", d, real, grid, w, pl.Grid(), pw)
			}
		}
	}
	x, _, s := nufftest.Problem(rng, 2, 5, 5, 1, 1e5, 0, 0)
	if _, _, err := Shape(x, s, Options{Eps: 1e-9, Sign: 1, MaxGrid: 1 << 20}); err == nil {
		t.Error("a grid over MaxGrid: no error")
	}
}

// TestExecuteRealUnsymmetric forces a plan's symmetric path off (as if
// its kept ranges could not be mirrored) and checks that ExecuteReal
// still matches the direct sum, through the complex path.
func TestExecuteRealUnsymmetric(t *testing.T) {
	rng := sharedtest.RNG(t, 24)
	x, cc, s := nufftest.Problem(rng, 2, 300, 200, 1, 40, 0, 0)
	c := make([]float64, len(cc))
	for j, v := range cc {
		c[j] = real(v)
		cc[j] = complex(c[j], 0)
	}
	pl, err := NewPlan(x, s, Options{Eps: 1e-9, Sign: 1, Workers: 2, Real: true})
	if err != nil {
		t.Fatal(err)
	}
	pl.fft.sym = false
	got := make([]complex128, len(s[0]))
	if err := pl.ExecuteReal(c, got); err != nil {
		t.Fatal(err)
	}
	want, _ := Direct(x, cc, s, 1)
	if e := nufftest.RelErr(got, want); e > errFactor*1e-9 {
		t.Errorf("rel l2 err %.3g", e)
	}
}

// TestMinGrid checks Options.MinGrid: a plan given a larger grid than
// its targets need (a lower channel on the highest channel's grids) gets
// exactly that grid and is as accurate against the direct sum; a plan
// given one smaller than it needs keeps its own; a negative or oversized
// MinGrid is refused.
func TestMinGrid(t *testing.T) {
	rng := sharedtest.RNG(t, 31)
	x, c, s := nufftest.Problem(rng, 2, 300, 200, 1, 40, 0, 0)
	want, err := Direct(x, c, s, 1)
	if err != nil {
		t.Fatal(err)
	}
	own, err := NewPlan(x, s, Options{Eps: 1e-9, Sign: 1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	wide := [3]int{3 * own.ax[0].nf, 2 * own.ax[1].nf}
	for _, tc := range []struct {
		min      [3]int
		wantGrid [2]int
	}{
		{wide, [2]int{wide[0], wide[1]}},
		{[3]int{2, 2}, [2]int{own.ax[0].nf, own.ax[1].nf}},
	} {
		pl, err := NewPlan(x, s, Options{Eps: 1e-9, Sign: 1, Workers: 2, MinGrid: tc.min})
		if err != nil {
			t.Fatal(err)
		}
		if g := [2]int{pl.ax[0].nf, pl.ax[1].nf}; g != tc.wantGrid {
			t.Errorf("MinGrid %v: outer grid %v, want %v", tc.min, g, tc.wantGrid)
		}
		got := make([]complex128, len(want))
		if err := pl.Execute(c, got); err != nil {
			t.Fatal(err)
		}
		if e := nufftest.RelErr(got, want); e > errFactor*1e-9 {
			t.Errorf("MinGrid %v: rel l2 err %.3g > %d eps", tc.min, e, errFactor)
		}
	}
	for _, bad := range [][3]int{{-1}, {0, 1 << 30}} {
		if _, err := NewPlan(x, s, Options{Eps: 1e-9, Sign: 1, MinGrid: bad}); err == nil {
			t.Errorf("MinGrid %v accepted", bad)
		}
	}
}

// TestExecuteContext: a done context stops a transform — one cancelled
// before it starts returns the context's error without a result, and one
// cancelled while it spreads returns it well before the uncancelled
// transform's time — and a live context gives Execute's result exactly.
func TestExecuteContext(t *testing.T) {
	rng := sharedtest.RNG(t, 32)
	x, c, s := nufftest.Problem(rng, 2, 400000, 2000, 1, 300, 0, 0)
	pl, err := NewPlan(x, s, Options{Eps: 1e-12, Sign: 1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := make([]complex128, len(s[0]))
	t0 := time.Now()
	if err := pl.Execute(c, want); err != nil {
		t.Fatal(err)
	}
	full := time.Since(t0)
	got := make([]complex128, len(want))
	if err := pl.ExecuteContext(context.Background(), c, got); err != nil || !slices.Equal(got, want) {
		t.Errorf("a live context: error %v, result equal %v", err, slices.Equal(got, want))
	}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if err := pl.ExecuteContext(done, c, got); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled context: error %v, want context.Canceled", err)
	}
	// Done from its third look on: the transform is then well inside its
	// spreading, deterministically.
	ctx := &doneAfter{Context: context.Background(), looks: 3}
	t0 = time.Now()
	err = pl.ExecuteContext(ctx, c, got)
	took := time.Since(t0)
	t.Logf("uncancelled %v; done at the third look: returned after %v (%v)", full, took, err)
	if !errors.Is(err, context.Canceled) || took > full/2 {
		t.Errorf("done while spreading: returned after %v (the whole: %v) with %v", took, full, err)
	}
}

// doneAfter is a context that is done from its looks-th Err on.
type doneAfter struct {
	context.Context
	looks int64
	n     atomic.Int64
}

func (d *doneAfter) Err() error {
	if d.n.Add(1) >= d.looks {
		return context.Canceled
	}
	return nil
}
