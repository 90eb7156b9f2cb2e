package matvis_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis"
	"github.com/gomatvis/gomatvis/matvis/astro"
)

// TestENUContext: matvis.ENUContext gives, uncancelled, what ENU gives
// (bit for bit: the same per-source arithmetic), for astropy's and the
// ERFA rotation and for Precomputed (which copy and rotate in blocks);
// with a done context it returns the context's error having written
// nothing; and a Coordinates without ENUContext still runs, its error
// checked after.
func TestENUContext(t *testing.T) {
	rng := sharedtest.RNG(t, 1)
	const n = 3<<16 + 17 // more than one block of each kind
	ra, dec := make([]float64, n), make([]float64, n)
	topo := make([]float64, 2*3*n)
	for s := range n {
		ra[s], dec[s] = 2*math.Pi*rng.Float64(), math.Asin(2*rng.Float64()-1)
	}
	for i := range topo {
		topo[i] = 2*rng.Float64() - 1
	}
	site := astro.Site{LatDeg: -30.72, LonDeg: 21.43, HeightM: 1073}
	times := []float64{2459845.0, 2459845.1}
	eop := []astro.EOP{{}, {}}
	coords := map[string]matvis.Coordinates{}
	for _, m := range []astro.Method{astro.MethodAstropy, astro.MethodERFA} {
		rot, err := astro.New(astro.Config{Method: m, Site: site, TimesJD: times, EOP: eop}, ra, dec)
		if err != nil {
			t.Fatal(err)
		}
		coords[string(m)] = rot
	}
	pre, err := matvis.NewPrecomputed(2, n, topo)
	if err != nil {
		t.Fatal(err)
	}
	coords["precomputed"] = pre
	coords["plain"] = plainCoords{pre}
	for name, c := range coords {
		want, got := enu3(n), enu3(n)
		if err := c.ENU(1, want[0], want[1], want[2]); err != nil {
			t.Fatal(err)
		}
		if err := matvis.ENUContext(context.Background(), c, 1, got[0], got[1], got[2]); err != nil {
			t.Fatal(err)
		}
		for d := range 3 {
			for s := range n {
				if got[d][s] != want[d][s] {
					t.Fatalf("%s: ENUContext[%d][%d] = %v, ENU %v", name, d, s, got[d][s], want[d][s])
				}
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		got = enu3(n)
		if err := matvis.ENUContext(ctx, c, 1, got[0], got[1], got[2]); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: cancelled: error %v, want context.Canceled", name, err)
		}
		if _, ok := c.(matvis.ContextCoordinates); ok && (got[0][0] != 0 || got[2][n-1] != 0) {
			t.Errorf("%s: a done context, yet vectors were written", name)
		}
	}
	for _, name := range []string{string(astro.MethodAstropy), string(astro.MethodERFA), "precomputed"} {
		if _, ok := coords[name].(matvis.ContextCoordinates); !ok {
			t.Errorf("%s is not a ContextCoordinates: its ENU cannot be cancelled", name)
		}
	}
}

// plainCoords hides Precomputed's ENUContext: a Coordinates of another
// package that has none.
type plainCoords struct{ c matvis.Coordinates }

func (p plainCoords) NSources() int                       { return p.c.NSources() }
func (p plainCoords) NTimes() int                         { return p.c.NTimes() }
func (p plainCoords) ENU(ti int, e, n, u []float64) error { return p.c.ENU(ti, e, n, u) }

func enu3(n int) [3][]float64 {
	return [3][]float64{make([]float64, n), make([]float64, n), make([]float64, n)}
}

// TestERFACancelledBCRS: a cancel during the ERFA method's BCRS step (a
// fresh rotation: nothing cached) returns the context's error, and the
// step is not left cached half-done: the next ENU equals a fresh
// rotation's bit for bit.
func TestERFACancelledBCRS(t *testing.T) {
	rng := sharedtest.RNG(t, 2)
	const n = 3<<16 + 5
	ra, dec := make([]float64, n), make([]float64, n)
	for s := range n {
		ra[s], dec[s] = 2*math.Pi*rng.Float64(), math.Asin(2*rng.Float64()-1)
	}
	cfg := astro.Config{Method: astro.MethodERFA, Site: astro.Site{LatDeg: -30.72, LonDeg: 21.43, HeightM: 1073}, TimesJD: []float64{2459845.0}, EOP: []astro.EOP{{}}}
	rot, err := astro.New(cfg, ra, dec)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got := enu3(n)
	if err := matvis.ENUContext(ctx, rot, 0, got[0], got[1], got[2]); !errors.Is(err, context.Canceled) {
		t.Fatalf("a done context: error %v, want context.Canceled", err)
	}
	if err := rot.ENU(0, got[0], got[1], got[2]); err != nil {
		t.Fatal(err)
	}
	fresh, err := astro.New(cfg, ra, dec)
	if err != nil {
		t.Fatal(err)
	}
	want := enu3(n)
	if err := fresh.ENU(0, want[0], want[1], want[2]); err != nil {
		t.Fatal(err)
	}
	for d := range 3 {
		for s := range n {
			if got[d][s] != want[d][s] {
				t.Fatalf("after a cancelled BCRS step: ENU[%d][%d] = %v, a fresh rotation's %v", d, s, got[d][s], want[d][s])
			}
		}
	}
}

// TestBasisContext: the finite-difference basis through BasisContext
// gives, uncancelled, the angles its Basis gives, and with a done context
// returns the context's error having written nothing.
func TestBasisContext(t *testing.T) {
	rng := sharedtest.RNG(t, 3)
	const n = 1<<16 + 7
	ra, dec := make([]float64, n), make([]float64, n)
	for s := range n {
		ra[s], dec[s] = 2*math.Pi*rng.Float64(), math.Asin(1.98*rng.Float64()-0.99)
	}
	mk := func(ra, dec []float64) (matvis.Coordinates, error) {
		return astro.New(astro.Config{Method: astro.MethodERFA, Site: astro.Site{LatDeg: -30.72, LonDeg: 21.43, HeightM: 1073}, TimesJD: []float64{2459845.0}, EOP: []astro.EOP{{}}}, ra, dec)
	}
	b, err := matvis.NewFDBasis(mk, ra, dec, 0)
	if err != nil {
		t.Fatal(err)
	}
	wc, ws := make([]float64, n), make([]float64, n)
	if err := b.Basis(0, wc, ws); err != nil {
		t.Fatal(err)
	}
	gc, gs := make([]float64, n), make([]float64, n)
	if err := matvis.BasisContext(context.Background(), b, 0, gc, gs); err != nil {
		t.Fatal(err)
	}
	for s := range n {
		if gc[s] != wc[s] || gs[s] != ws[s] {
			t.Fatalf("source %d: BasisContext (%v, %v), Basis (%v, %v)", s, gc[s], gs[s], wc[s], ws[s])
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	gc, gs = make([]float64, n), make([]float64, n)
	if err := matvis.BasisContext(ctx, b, 0, gc, gs); !errors.Is(err, context.Canceled) {
		t.Fatalf("a done context: error %v, want context.Canceled", err)
	}
	if gc[0] != 0 || gs[n-1] != 0 {
		t.Error("a done context, yet angles were written")
	}
}
