package beam

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// freqWeightsBefore is freqWeights as it was before the frequency kinds
// (commit 2a376d5), kept verbatim to show that the default, cubic, did not
// change by a bit.
func freqWeightsBefore(x []float64, f, tol float64) ([]float64, error) {
	n := len(x)
	if n == 0 {
		return nil, fmt.Errorf("beam has no frequencies")
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("frequency %v Hz is not finite", f)
	}
	w := make([]float64, n)
	best, bestD := 0, math.Inf(1)
	for i, v := range x {
		if d := math.Abs(v - f); d < bestD {
			best, bestD = i, d
		}
	}
	if bestD < tol {
		w[best] = 1
		return w, nil
	}
	if n == 1 {
		return nil, fmt.Errorf("frequency %g Hz is %g Hz from the beam's only frequency %g Hz (tolerance %g Hz): cannot interpolate from one frequency", f, bestD, x[0], tol)
	}
	if f < x[0] || f > x[n-1] {
		return nil, fmt.Errorf("frequency %g Hz is outside the beam's frequency range [%g, %g] Hz", f, x[0], x[n-1])
	}
	if n < 4 {
		return nil, fmt.Errorf("frequency %g Hz is not within %g Hz of a beam frequency and cubic interpolation along frequency needs at least 4 beam frequencies, the beam has %d (%v Hz)", f, tol, n, x)
	}
	w = notAKnotWeights(x, f)
	var sum float64
	for _, v := range w {
		sum += math.Abs(v)
	}
	for j, v := range w {
		if math.Abs(v) < 1e-17*sum {
			w[j] = 0
		}
	}
	return w, nil
}

// unevenFreqs is n strictly increasing channels from 100 MHz, spaced
// 0.5–1.5 MHz at random.
func unevenFreqs(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	x[0] = 100e6
	for j := 1; j < n; j++ {
		x[j] = x[j-1] + 0.5e6 + rng.Float64()*1e6
	}
	return x
}

// TestFreqInterpDefaultBitIdentical: the default kind (and "cubic" asked
// for) gives exactly the weights and errors the code gave before the
// kinds, on random uneven grids and frequencies, channels within the
// tolerance and outside the range included; so does Gridded.FreqWeights.
func TestFreqInterpDefaultBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 1))
	checked := 0
	for trial := 0; trial < 400; trial++ {
		n := 1 + rng.IntN(40)
		x := unevenFreqs(rng, n)
		var f float64
		switch trial % 4 {
		case 0:
			f = x[rng.IntN(n)] + (rng.Float64()-0.5)*1.8 // within 1 Hz mostly
		case 1:
			f = x[0] - 1e6 + rng.Float64()*(x[n-1]-x[0]+2e6) // some outside
		default:
			f = x[0] + rng.Float64()*(x[n-1]-x[0])
		}
		want, werr := freqWeightsBefore(x, f, FreqTolHz)
		for _, kind := range []string{"", "cubic"} {
			var got []float64
			var err error
			if kind == "" {
				got, err = freqWeights(x, f, FreqTolHz)
			} else {
				got, err = freqWeightsKind(x, f, FreqTolHz, kind)
			}
			if (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) {
				t.Fatalf("n %d, f %.17g, kind %q: error %v, before %v", n, f, kind, err, werr)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("n %d, f %.17g, kind %q: weights differ from before:\n%v\n%v", n, f, kind, got, want)
			}
		}
		if werr == nil {
			checked++
		}
	}
	if checked < 200 {
		t.Errorf("only %d successful cases compared", checked)
	}
	// Through a beam: the default and WithFreqInterp("cubic").
	az, za := testGrid(8, 5, true)
	freqs := []float64{100e6, 101e6, 103e6, 104.5e6, 107e6, 108e6}
	g, _ := randomBeam(t, EField, az, za, freqs, 3)
	gc, err := g.WithFreqInterp("cubic")
	if err != nil {
		t.Fatal(err)
	}
	if g.FreqInterp() != "cubic" || gc.FreqInterp() != "cubic" || gc.freqKind != g.freqKind {
		t.Errorf("default kind %q, cubic %q, stored %q and %q: want cubic, cubic, the same", g.FreqInterp(), gc.FreqInterp(), g.freqKind, gc.freqKind)
	}
	for _, f := range []float64{100.2e6, 102e6, 105.3e6, 107.99e6} {
		want, _ := freqWeightsBefore(freqs, f, FreqTolHz)
		for _, b := range []*Gridded{g, gc} {
			got, err := b.FreqWeights(f)
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("f %g: FreqWeights %v (%v), before %v", f, got, err, want)
			}
		}
	}
}

// TestFreqInterpLinear: linear and slinear are the two-channel blend of
// the hand formula w_lo = (x_hi − f)/(x_hi − x_lo), w_hi = (f − x_lo)/(x_hi −
// x_lo), every other weight exactly 0.
func TestFreqInterpLinear(t *testing.T) {
	x := []float64{100e6, 101e6, 103e6, 104.5e6}
	tests := []struct {
		f      float64
		lo     int
		wlo    float64
		whi    float64
		tolerr float64
	}{
		{100.25e6, 0, 0.75, 0.25, 1e-15},
		{100.5e6, 0, 0.5, 0.5, 1e-15},
		{101.5e6, 1, 0.75, 0.25, 1e-15},
		{102.6e6, 1, 0.2, 0.8, 1e-15},
		{103.3e6, 2, 0.8, 0.2, 1e-15},
		{104.5e6 - 2, 2, 2 / 1.5e6, 1 - 2/1.5e6, 1e-15},
		{100e6 + 3, 0, 1 - 3/1e6, 3 / 1e6, 1e-15},
	}
	for _, kind := range []string{"linear", "slinear"} {
		for _, tc := range tests {
			t.Run(fmt.Sprintf("%s/%g", kind, tc.f), func(t *testing.T) {
				w, err := freqWeightsKind(x, tc.f, FreqTolHz, kind)
				if err != nil {
					t.Fatal(err)
				}
				for j, v := range w {
					want := 0.0
					switch j {
					case tc.lo:
						want = tc.wlo
					case tc.lo + 1:
						want = tc.whi
					}
					if j != tc.lo && j != tc.lo+1 && v != 0 {
						t.Errorf("w[%d] = %g, want exactly 0", j, v)
					}
					if math.Abs(v-want) > tc.tolerr {
						t.Errorf("w[%d] = %.17g, want %.17g", j, v, want)
					}
				}
			})
		}
	}
}

// TestFreqInterpPolynomials: a degree-k interpolating spline reproduces
// every polynomial of degree ≤ k, so Σ w_j p(x_j) = p(f) (to 1e-12 of
// the polynomial's scale), and its weights add up to 1 — linear k = 1,
// quadratic k = 2, cubic k = 3, on random uneven grids of k+1 to 30
// channels. And a degree-(k+1) polynomial is not reproduced in general:
// the kinds are what they say.
func TestFreqInterpPolynomials(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 2))
	for _, tc := range []struct {
		kind string
		k    int
	}{{"linear", 1}, {"slinear", 1}, {"quadratic", 2}, {"cubic", 3}} {
		t.Run(tc.kind, func(t *testing.T) {
			missedHigher := 0
			for trial := 0; trial < 300; trial++ {
				n := tc.k + 1 + rng.IntN(30-tc.k)
				x := unevenFreqs(rng, n)
				f := x[0] + rng.Float64()*(x[n-1]-x[0])
				w, err := freqWeightsKind(x, f, 1e-3, tc.kind)
				if err != nil {
					t.Fatal(err)
				}
				var sum float64
				for _, v := range w {
					sum += v
				}
				if math.Abs(sum-1) > 1e-12 {
					t.Errorf("n %d, f %.17g: Σw = %.17g", n, f, sum)
				}
				// p(u) = Σ c_d u^d in u = (x − x₀)/1 MHz, c_d ~ U(−1, 1).
				u := func(v float64) float64 { return (v - x[0]) / 1e6 }
				for deg := 0; deg <= tc.k+1; deg++ {
					c := make([]float64, deg+1)
					for d := range c {
						c[d] = rng.Float64()*2 - 1
					}
					p := func(v float64) float64 {
						var s float64
						for d := deg; d >= 0; d-- {
							s = s*u(v) + c[d]
						}
						return s
					}
					var got, scale float64
					for j, v := range w {
						got += v * p(x[j])
						scale = math.Max(scale, math.Abs(p(x[j])))
					}
					d := math.Abs(got - p(f))
					if deg <= tc.k && d > 1e-12*math.Max(scale, 1) {
						t.Errorf("n %d, f %.17g, degree %d: Σ w p(x) − p(f) = %.3g (scale %.3g)", n, f, deg, d, scale)
					}
					if deg == tc.k+1 && d > 1e-9*math.Max(scale, 1) {
						missedHigher++
					}
				}
			}
			if missedHigher < 100 {
				t.Errorf("degree %d reproduced in %d of 300 trials: the kind is of a higher degree than %d", tc.k+1, 300-missedHigher, tc.k)
			}
		})
	}
}

// TestFreqInterpQuadratic: with 3 channels the quadratic kind is the
// parabola through them (Lagrange weights by hand); with more, scipy's
// make_interp_spline(x, y, k=2) values (scipy 1.10+, default knots: x₀
// and x_last thrice, the midpoints of the inner intervals between).
func TestFreqInterpQuadratic(t *testing.T) {
	x3 := []float64{100e6, 101e6, 103e6}
	for _, f := range []float64{100.3e6, 101e6 + 7, 102.2e6} {
		w, err := freqWeightsKind(x3, f, FreqTolHz, "quadratic")
		if err != nil {
			t.Fatal(err)
		}
		for j := range x3 {
			l := 1.0
			for m := range x3 {
				if m != j {
					l *= (f - x3[m]) / (x3[j] - x3[m])
				}
			}
			if math.Abs(w[j]-l) > 1e-13 {
				t.Errorf("f %g: w[%d] = %.17g, Lagrange %.17g", f, j, w[j], l)
			}
		}
	}
	// The knots scipy places.
	x := []float64{100e6, 101e6, 103e6, 104.5e6, 107e6, 108e6}
	want := []float64{100e6, 100e6, 100e6, 102e6, 103.75e6, 105.75e6, 108e6, 108e6, 108e6}
	if got := quadraticKnots(x); !slices.Equal(got, want) {
		t.Errorf("quadratic knots %v, want %v", got, want)
	}
	// An interpolating spline: at the channels it gives the channel
	// (tolerance 0 so that the spline itself is evaluated there).
	for i := range x {
		w, err := freqWeightsKind(x, x[i], 0, "quadratic")
		if err != nil {
			t.Fatal(err)
		}
		for j, v := range w {
			want := 0.0
			if j == i {
				want = 1
			}
			if math.Abs(v-want) > 1e-13 {
				t.Errorf("at channel %d: w[%d] = %.3g, want %g", i, j, v, want)
			}
		}
	}
	// C¹ across each inner knot, not C²: the one-sided derivatives of
	// S(f) = Σ w_j y_j agree at a knot; the second derivatives jump.
	y := []float64{0.3, -1.2, 2.5, 0.7, -0.4, 1.9}
	S := func(f float64) float64 {
		w, err := freqWeightsKind(x, f, 0, "quadratic")
		if err != nil {
			t.Fatal(err)
		}
		var s float64
		for j := range w {
			s += w[j] * y[j]
		}
		return s
	}
	for _, kn := range want[3:6] {
		// One-sided three-point formulas, exact on each quadratic piece.
		h := 1e3
		dl := (3*S(kn) - 4*S(kn-h) + S(kn-2*h)) / (2 * h)
		dr := (-3*S(kn) + 4*S(kn+h) - S(kn+2*h)) / (2 * h)
		d2l := (S(kn) - 2*S(kn-h) + S(kn-2*h)) / (h * h)
		d2r := (S(kn+2*h) - 2*S(kn+h) + S(kn)) / (h * h)
		if math.Abs(dl-dr) > 1e-8*math.Max(math.Abs(dl), math.Abs(dr)) {
			t.Errorf("knot %g: S′ %.9g left, %.9g right: want C¹", kn, dl, dr)
		}
		if math.Abs(d2l-d2r) < 1e-3*math.Max(math.Abs(d2l), math.Abs(d2r)) {
			t.Errorf("knot %g: S″ %.6g left, %.6g right: expected a jump at a knot of a quadratic spline", kn, d2l, d2r)
		}
	}
	// Not at the channels: the inner channels x₁ … x_{n−2} are not knots
	// (there S is smooth), unlike a piecewise parabola through the points.
	for _, xc := range x[1:5] {
		h := 1e3
		d2l := (S(xc) - 2*S(xc-h) + S(xc-2*h)) / (h * h)
		d2r := (S(xc+2*h) - 2*S(xc+h) + S(xc)) / (h * h)
		if math.Abs(d2l-d2r) > 1e-6*math.Max(math.Abs(d2l), math.Abs(d2r)) {
			t.Errorf("channel %g: S″ %.9g left, %.9g right: want smooth at a channel", xc, d2l, d2r)
		}
	}
}

// TestFreqInterpStep: the one-channel kinds — nearest (pyuvdata's argmin:
// the lower one on a tie, and any frequency, outside the range too),
// nearest-up (scipy's midpoints, side "right": the upper one on a tie),
// previous and zero (the channel at or below), next (at or above).
func TestFreqInterpStep(t *testing.T) {
	x := []float64{100e6, 101e6, 103e6, 104.5e6}
	tests := []struct {
		kind string
		f    float64
		want int
	}{
		{"nearest", 100.4e6, 0},
		{"nearest", 100.5e6, 0}, // tie: lower
		{"nearest", 100.6e6, 1},
		{"nearest", 102e6, 1}, // tie: lower
		{"nearest", 103.75e6, 2},
		{"nearest", 104.4e6, 3},
		{"nearest", 90e6, 0},  // below the range: pyuvdata takes the nearest
		{"nearest", 200e6, 3}, // above
		{"nearest", 101e6 + 0.5, 1},
		{"nearest-up", 100.4e6, 0},
		{"nearest-up", 100.5e6, 1}, // tie: upper
		{"nearest-up", 102e6, 2},   // tie: upper
		{"nearest-up", 101.9e6, 1},
		{"nearest-up", 104.4e6, 3},
		{"previous", 100.9e6, 0},
		{"previous", 101e6 + 2, 1},
		{"previous", 102.99e6, 1},
		{"previous", 104.49e6, 2},
		{"zero", 100.9e6, 0},
		{"zero", 102.99e6, 1},
		{"zero", 104.49e6, 2},
		{"next", 100e6 + 2, 1},
		{"next", 101.1e6, 2},
		{"next", 103e6 + 2, 3},
		{"next", 104.49e6, 3},
		{"next", 103e6 - 2, 2},
		{"previous", 104.5e6, 3},
		{"next", 100e6, 0},
	}
	for _, tc := range tests {
		w, err := freqWeightsKind(x, tc.f, FreqTolHz, tc.kind)
		if err != nil {
			t.Errorf("%s at %g: %v", tc.kind, tc.f, err)
			continue
		}
		for j, v := range w {
			if (j == tc.want) != (v == 1) || (j != tc.want && v != 0) {
				t.Errorf("%s at %g: weights %v, want channel %d alone", tc.kind, tc.f, w, tc.want)
				break
			}
		}
	}
	// nearest and nearest-up agree with scipy's interp1d midpoint rule
	// (searchsorted(x_j/2 + x_{j+1}/2, f, side)) away from ties, and
	// previous/next with its nextafter-shifted searchsorted, on random grids
	// and frequencies at and between channels.
	rng := rand.New(rand.NewPCG(27, 3))
	for trial := 0; trial < 2000; trial++ {
		n := 2 + rng.IntN(10)
		x := unevenFreqs(rng, n)
		f := x[0] + rng.Float64()*(x[n-1]-x[0])
		if trial%5 == 0 {
			f = x[rng.IntN(n)]
		}
		bds := make([]float64, n-1)
		for j := range bds {
			bds[j] = x[j]/2 + x[j+1]/2
		}
		count := func(a []float64, pred func(float64) bool) int {
			c := 0
			for _, v := range a {
				if pred(v) {
					c++
				}
			}
			return c
		}
		prevShift := make([]float64, n)
		nextShift := make([]float64, n)
		for j := range x {
			prevShift[j] = math.Nextafter(x[j], math.Inf(-1))
			nextShift[j] = math.Nextafter(x[j], math.Inf(1))
		}
		want := map[string]int{
			"nearest":    min(count(bds, func(b float64) bool { return b < f }), n-1),
			"nearest-up": min(count(bds, func(b float64) bool { return b <= f }), n-1),
			"previous":   max(count(prevShift, func(b float64) bool { return b < f }), 1) - 1,
			"next":       min(count(nextShift, func(b float64) bool { return b <= f }), n-1),
		}
		for kind, wi := range want {
			w, err := freqWeightsKind(x, f, 0, kind)
			if err != nil {
				t.Fatal(err)
			}
			if w[wi] != 1 {
				t.Errorf("%s, x %v, f %.17g: weights %v, scipy's channel %d", kind, x, f, w, wi)
			}
		}
	}
}

// TestFreqInterpErrors: refused only where pyuvdata or scipy refuse.
func TestFreqInterpErrors(t *testing.T) {
	x1 := []float64{100e6}
	x2 := []float64{100e6, 101e6}
	x3 := []float64{100e6, 101e6, 103e6}
	tests := []struct {
		name string
		x    []float64
		f    float64
		kind string
		want string // "" = no error
	}{
		{"linear, 2 channels", x2, 100.5e6, "linear", ""},
		{"linear, 1 channel", x1, 100.5e6, "linear", "only frequency"},
		{"linear, 1 channel, within tolerance", x1, 100e6 + 0.5, "linear", ""},
		{"nearest, 1 channel", x1, 130e6, "nearest", ""},
		{"nearest, below the range", x2, 10e6, "nearest", ""},
		{"nearest-up, above the range", x2, 102e6, "nearest-up", "outside the beam's frequency range"},
		{"linear, above the range", x2, 101e6 + 2, "linear", "outside the beam's frequency range"},
		{"previous, below the range", x2, 99e6, "previous", "outside the beam's frequency range"},
		{"linear, just outside, within tolerance", x2, 101e6 + 0.5, "linear", ""},
		{"quadratic, 2 channels", x2, 100.5e6, "quadratic", "quadratic interpolation along frequency needs at least 3 beam frequencies"},
		{"quadratic, 3 channels", x3, 100.5e6, "quadratic", ""},
		{"cubic, 3 channels", x3, 100.5e6, "cubic", "cubic interpolation along frequency needs at least 4 beam frequencies"},
		{"zero, 2 channels", x2, 100.5e6, "zero", ""},
		{"next, 2 channels", x2, 100.5e6, "next", ""},
		{"unknown kind", x3, 100.5e6, "spline", `freq_interp_kind "spline"`},
		{"NaN", x3, math.NaN(), "nearest", "not finite"},
		{"no channels", nil, 100e6, "nearest", "no frequencies"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, err := freqWeightsKind(tc.x, tc.f, FreqTolHz, tc.kind)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("error %v, want none", err)
				}
				if len(w) != len(tc.x) {
					t.Fatalf("%d weights for %d channels", len(w), len(tc.x))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestGriddedFreqInterp: WithFreqInterp returns a copy with the kind
// (the original unchanged), refuses an unknown kind naming it, and a
// two-channel beam with linear interpolation gives, through Prepare (At)
// and Check, the hand-computed blend 0.7·plane₀ + 0.3·plane₁ at the grid
// nodes (E-field polarized, power unpolarized; spline orders 1 and 3),
// where the default cubic refuses.
func TestGriddedFreqInterp(t *testing.T) {
	az, za := testGrid(12, 7, true)
	freqs := []float64{100e6, 110e6}
	f := 103e6 // s = 0.3
	npix := len(az) * len(za)
	var pa, pz []float64
	for j := range za {
		for i := range az {
			pa, pz = append(pa, az[i]), append(pz, za[j])
		}
	}
	ef, edata := randomBeam(t, EField, az, za, freqs, 21)
	pw, pdata := randomBeam(t, Power, az, za, freqs, 22)

	if _, err := ef.WithFreqInterp("spline"); err == nil || !strings.Contains(err.Error(), `"spline"`) || !strings.Contains(err.Error(), "random") {
		t.Errorf("unknown kind: error %v, want one naming the beam and the kind", err)
	}
	if err := ef.Check(f, Mode{Polarized: true}); err == nil || !strings.Contains(err.Error(), "at least 4 beam frequencies") {
		t.Errorf("default cubic, 2 channels: Check gives %v", err)
	}
	for _, order := range []int{1, 3} {
		t.Run(fmt.Sprintf("order%d", order), func(t *testing.T) {
			e, err := ef.WithOrder(order)
			if err != nil {
				t.Fatal(err)
			}
			el, err := e.WithFreqInterp("linear")
			if err != nil {
				t.Fatal(err)
			}
			if el.FreqInterp() != "linear" || e.FreqInterp() != "cubic" || el.Order() != order {
				t.Fatalf("kinds %q (copy) and %q (original), order %d", el.FreqInterp(), e.FreqInterp(), el.Order())
			}
			if err := el.Check(f, Mode{Polarized: true}); err != nil {
				t.Fatalf("Check: %v", err)
			}
			w, err := el.FreqWeights(f)
			if err != nil || len(w) != 2 || math.Abs(w[0]-0.7) > 1e-15 || math.Abs(w[1]-0.3) > 1e-15 {
				t.Fatalf("FreqWeights %v (%v), want [0.7 0.3]", w, err)
			}
			r, err := el.Prepare(f, Mode{Polarized: true})
			if err != nil {
				t.Fatal(err)
			}
			out := make([]complex128, 4*npix)
			r.Eval(pa, pz, out)
			var worst float64
			for fd := 0; fd < 2; fd++ {
				for k := 0; k < 2; k++ {
					for s := 0; s < npix; s++ {
						d0 := edata[((k*2+fd)*2+0)*npix+s]
						d1 := edata[((k*2+fd)*2+1)*npix+s]
						want := 0.7*d0 + 0.3*d1
						worst = math.Max(worst, cdiff(out[(2*fd+k)*npix+s], want))
					}
				}
			}
			// Power beam, unpolarized: √ of the blended power.
			p, err := pw.WithOrder(order)
			if err != nil {
				t.Fatal(err)
			}
			if p, err = p.WithFreqInterp("slinear"); err != nil {
				t.Fatal(err)
			}
			for fd := 0; fd < 2; fd++ {
				r, err := p.Prepare(f, Mode{Feed: Feed(fd)})
				if err != nil {
					t.Fatal(err)
				}
				o := make([]complex128, npix)
				r.Eval(pa, pz, o)
				for s := 0; s < npix; s++ {
					want := math.Sqrt(0.7*real(pdata[(fd*2+0)*npix+s]) + 0.3*real(pdata[(fd*2+1)*npix+s]))
					worst = math.Max(worst, cdiff(o[s], complex(want, 0)))
				}
			}
			t.Logf("max |Δ| from the hand blend at the nodes = %.3g", worst)
			if worst > 1e-13 {
				t.Errorf("max |Δ| from the hand blend at the nodes = %.3g, want ≤ 1e-13", worst)
			}
			// nearest: channel 0 as is (103 MHz is nearer 100 MHz).
			en, err := e.WithFreqInterp("nearest")
			if err != nil {
				t.Fatal(err)
			}
			r, err = en.Prepare(f, Mode{Polarized: true})
			if err != nil {
				t.Fatal(err)
			}
			if r.Grid().NearestChannelHz != 100e6 {
				t.Errorf("nearest: NearestChannelHz %g, want 100e6", r.Grid().NearestChannelHz)
			}
			r.Eval(pa, pz, out)
			worst = 0
			for fd := 0; fd < 2; fd++ {
				for k := 0; k < 2; k++ {
					for s := 0; s < npix; s++ {
						worst = math.Max(worst, cdiff(out[(2*fd+k)*npix+s], edata[((k*2+fd)*2+0)*npix+s]))
					}
				}
			}
			if worst > 1e-13 {
				t.Errorf("nearest: max |Δ| from channel 0 = %.3g", worst)
			}
		})
	}
}

// TestFreqInterpScipy compares every kind with scipy 1.10.1's
// interp1d(x, y, kind)(f) on an uneven grid (ties of the nearest kinds at
// 100.5, 102 and 103.75 MHz), and the quadratic on 60 uneven channels and
// on 3 (the parabola).
func TestFreqInterpScipy(t *testing.T) {
	x := []float64{100e6, 101e6, 103e6, 104.5e6, 107e6, 108e6}
	y := []float64{0.3, -1.2, 2.5, 0.7, -0.4, 1.9}
	ts := []float64{100.5e6, 102e6, 104e6, 105.3e6, 107.9e6, 101.5e6, 103.75e6}
	want := map[string][]float64{
		"quadratic":  {-0.8605587063151441, 0.5844696505211526, 1.5035829245861434, -0.32028399754751696, 1.5892198957694665, -0.7183238810545676, 1.9532317213366035},
		"linear":     {-0.45, 0.6500000000000001, 1.3, 0.3479999999999999, 1.67, -0.2749999999999999, 1.6},
		"slinear":    {-0.44999999999999996, 0.65, 1.3000000000000003, 0.3479999999999999, 1.6699999999999997, -0.2749999999999999, 1.6},
		"zero":       {0.3, -1.2, 2.5, 0.7, -0.4, -1.2, 2.5},
		"previous":   {0.3, -1.2, 2.5, 0.7, -0.4, -1.2, 2.5},
		"next":       {-1.2, 2.5, 0.7, -0.4, 1.9, 2.5, 0.7},
		"nearest":    {0.3, -1.2, 0.7, 0.7, 1.9, -1.2, 2.5},
		"nearest-up": {-1.2, 2.5, 0.7, 0.7, 1.9, -1.2, 0.7},
	}
	dot := func(w, y []float64) float64 {
		var s float64
		for j := range w {
			s += w[j] * y[j]
		}
		return s
	}
	for kind, vals := range want {
		for i, f := range ts {
			w, err := freqWeightsKind(x, f, FreqTolHz, kind)
			if err != nil {
				t.Fatal(err)
			}
			if got := dot(w, y); math.Abs(got-vals[i]) > 1e-12 {
				t.Errorf("%s at %g: got %.17g, scipy %.17g", kind, f, got, vals[i])
			}
		}
	}
	var x60, y60 []float64
	for j := 0; j < 60; j++ {
		x60 = append(x60, 100e6+float64(j)*1e6+0.3e6*math.Sin(float64(j)))
		y60 = append(y60, math.Cos(0.7*float64(j))+0.1*float64(j))
	}
	for _, tc := range []struct{ f, want float64 }{
		{100.2e6, 1.0125350151940453},
		{121.37e6, 1.5011640632520211},
		{140e6 + 5, 3.069212446220031},
		{158.9e6, 4.9051973306731735},
	} {
		w, err := freqWeightsKind(x60, tc.f, FreqTolHz, "quadratic")
		if err != nil {
			t.Fatal(err)
		}
		if got := dot(w, y60); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("quadratic, 60 channels, f = %g: got %.17g, scipy %.17g", tc.f, got, tc.want)
		}
	}
	x3, y3 := x[:3], y[:3]
	for _, tc := range []struct{ f, want float64 }{{100.3e6, -0.38449999999999995}, {102.2e6, -0.0519999999999996}} {
		w, err := freqWeightsKind(x3, tc.f, FreqTolHz, "quadratic")
		if err != nil {
			t.Fatal(err)
		}
		if got := dot(w, y3); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("quadratic, 3 channels, f = %g: got %.17g, scipy %.17g", tc.f, got, tc.want)
		}
	}
}
