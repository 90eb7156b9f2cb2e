package beam

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
)

// TestEvalContextMatchesEval: EvalContext, cut into blocks over workers,
// writes what its slower twin Eval writes over the whole range, bit for
// bit (each direction's value depends on that direction alone), for a
// gridded beam (evaluated in place) and analytic ones (evaluated a block
// apart and scattered), polarized and not, across more than one block.
func TestEvalContextMatchesEval(t *testing.T) {
	rng := sharedtest.RNG(t, 1)
	g, err := NewGriddedFromAnalytic(Airy{DiameterM: 14}, []float64{150e6}, 72, 37)
	if err != nil {
		t.Fatal(err)
	}
	n := 3<<16 + 123
	az, za := make([]float64, n), make([]float64, n)
	for i := range n {
		az[i], za[i] = 2*math.Pi*rng.Float64(), math.Pi/2*rng.Float64()
	}
	for _, b := range []Beam{g, Gaussian{DiameterM: 14}, ShortDipole{}, DiagonalJones{Beam: Airy{DiameterM: 14}}} {
		for _, m := range []Mode{{Polarized: true}, {Feed: FeedY}} {
			rb, err := b.At(150e6, m)
			if err != nil {
				t.Fatal(err)
			}
			ncomp := m.NFeed() * m.NFeed()
			want := make([]complex128, ncomp*n)
			rb.Eval(az, za, want)
			for _, workers := range []int{1, 3} {
				got := make([]complex128, ncomp*n)
				if err := EvalContext(context.Background(), rb, az, za, got, ncomp, workers); err != nil {
					t.Fatal(err)
				}
				for i := range want {
					if got[i] != want[i] && !(isNaN(got[i]) && isNaN(want[i])) {
						t.Fatalf("%v %+v, %d workers: value %d (component %d, direction %d) = %v, Eval gives %v", b, m, workers, i, i/n, i%n, got[i], want[i])
					}
				}
			}
		}
	}
}

func isNaN(v complex128) bool { return math.IsNaN(real(v)) || math.IsNaN(imag(v)) }

// TestEvalContextStops: a done context stops EvalContext before it
// evaluates anything, with the context's error.
func TestEvalContextStops(t *testing.T) {
	rb, err := Gaussian{DiameterM: 14}.At(150e6, Mode{Polarized: true})
	if err != nil {
		t.Fatal(err)
	}
	n := 1 << 17
	az, za := make([]float64, n), make([]float64, n)
	out := make([]complex128, 4*n)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := EvalContext(ctx, rb, az, za, out, 4, 2); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	for i, v := range out {
		if v != 0 {
			t.Fatalf("value %d written (%v) after the cancel", i, v)
		}
	}
}
