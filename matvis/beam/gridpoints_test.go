package beam

import (
	"math"
	"math/rand/v2"
	"testing"
)

// evalPlanesRef is the plane-by-plane evaluator the interleaved kernels
// replaced, kept as the reference they must match bit for bit: every
// plane summed over the footprint, rows outer, as (c·wz[a])·wa[b].
func evalPlanesRef(r *GriddedResponse, az, za []float64) []complex128 {
	g := r.Grid()
	planes := r.Planes()
	n := len(az)
	out := make([]complex128, len(planes)*n)
	var iz, ia [4]int
	var wz, wa [4]float64
	for s := range n {
		cz := (za[s] - g.ZaMin) * g.ZaScale
		ca := (az[s] - g.AzMin) * g.AzScale
		if !(cz >= 0 && cz <= float64(g.NZa-1)) || !(ca >= 0 && ca <= float64(g.NAz-1)) {
			continue
		}
		axisWeights(cz, g.NZa, g.Order, &iz, &wz)
		axisWeights(ca, g.NAz, g.Order, &ia, &wa)
		for p, pl := range planes {
			val := func(im bool, k int) (float64, bool) {
				switch {
				case pl.Re32 != nil && !im:
					return float64(pl.Re32[k]), true
				case pl.Re32 != nil:
					if pl.Im32 == nil {
						return 0, false
					}
					return float64(pl.Im32[k]), true
				case !im:
					return pl.Re[k], true
				case pl.Im == nil:
					return 0, false
				}
				return pl.Im[k], true
			}
			var tr, ti float64
			for a := 0; a <= g.Order; a++ {
				for b := 0; b <= g.Order; b++ {
					k := iz[a]*g.NAz + ia[b]
					x, _ := val(false, k)
					tr += x * wz[a] * wa[b]
					if y, ok := val(true, k); ok {
						ti += y * wz[a] * wa[b]
					}
				}
			}
			if g.SqrtAfterwards {
				out[p*n+s] = complex(math.Sqrt(tr), 0)
			} else {
				out[p*n+s] = complex(tr, ti)
			}
		}
	}
	return out
}

// TestGriddedEvalMatchesPlanes: Eval and EvalPoints (directions located
// once, evaluated in uneven pieces) give bit for bit what the plane-by-
// plane evaluator gives, for complex and real E-field and power beams,
// polarized and not, orders 1 and 3, precisions 1 and 2, wrapping and
// not, directions inside, on the edges of and outside the grid.
func TestGriddedEvalMatchesPlanes(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	n := 3*locateBlock + 77
	pa, pz := make([]float64, n), make([]float64, n)
	for i := range pa {
		pa[i], pz[i] = rng.Float64()*2.2*math.Pi-0.1, rng.Float64()*1.8-0.1
	}
	pa[0], pz[0] = 0, 0
	pa[1], pz[1] = math.Pi, math.Pi/2
	pa[2], pz[2] = 2*math.Pi, math.Pi/2
	for _, wrap := range []bool{true, false} {
		az, za := testGrid(36, 19, wrap)
		cplxE, _ := randomBeam(t, EField, az, za, []float64{1e8}, 31)
		power, _ := randomBeam(t, Power, az, za, []float64{1e8}, 32)
		realE, err := NewGriddedFromAnalytic(Gaussian{DiameterM: 14}, []float64{1e8}, 36, 19)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name string
			g    *Gridded
			mode Mode
		}{
			{"complex efield polarized", cplxE, Mode{Polarized: true}},
			{"complex efield unpolarized", cplxE, Mode{Feed: FeedY}},
			{"power", power, Mode{}},
			{"real efield polarized", realE, Mode{Polarized: true}},
			{"real efield unpolarized", realE, Mode{}},
		} {
			for _, order := range []int{1, 3} {
				for _, prec := range []int{1, 2} {
					g, _ := tc.g.WithOrder(order)
					g, _ = g.WithPrecision(prec)
					r, err := g.Prepare(1e8, tc.mode)
					if err != nil {
						t.Fatal(err)
					}
					want := evalPlanesRef(r, pa, pz)
					got := make([]complex128, len(want))
					r.Eval(pa, pz, got)
					var pts GridPoints
					if err := pts.Reset(r.Grid(), n); err != nil {
						t.Fatal(err)
					}
					pts.Locate(0, pa[:100], pz[:100])
					pts.Locate(100, pa[100:], pz[100:])
					viaPts := make([]complex128, len(want))
					for _, cut := range [][2]int{{0, 1}, {1, 300}, {300, n}} {
						if err := r.EvalPoints(&pts, cut[0], cut[1], viaPts); err != nil {
							t.Fatal(err)
						}
					}
					for i := range want {
						if !same(got[i], want[i]) || !same(viaPts[i], want[i]) {
							t.Fatalf("%s wrap %v order %d precision %d: value %d: Eval %v, EvalPoints %v, planes %v",
								tc.name, wrap, order, prec, i, got[i], viaPts[i], want[i])
						}
					}
				}
			}
		}
	}
}

// same is bit-for-bit equality, NaN equal to NaN.
func same(a, b complex128) bool {
	return math.Float64bits(real(a)) == math.Float64bits(real(b)) && math.Float64bits(imag(a)) == math.Float64bits(imag(b)) ||
		cdiff(a, b) == 0 && (math.IsNaN(real(a)) || math.IsNaN(imag(a)))
}

// TestGridPointsErrors: points of another geometry, bad ranges and short
// outputs are errors.
func TestGridPointsErrors(t *testing.T) {
	az, za := testGrid(36, 19, true)
	g, _ := randomBeam(t, EField, az, za, []float64{1e8}, 5)
	r, err := g.Prepare(1e8, Mode{Polarized: true})
	if err != nil {
		t.Fatal(err)
	}
	var p GridPoints
	if err := p.Reset(r.Grid(), 10); err != nil {
		t.Fatal(err)
	}
	p.Locate(0, make([]float64, 10), make([]float64, 10))
	out := make([]complex128, 40)
	if err := r.EvalPoints(&p, 0, 10, out); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []func() error{
		func() error { return r.EvalPoints(&p, 0, 11, out) },
		func() error { return r.EvalPoints(&p, 5, 4, out) },
		func() error { return r.EvalPoints(&p, 0, 10, out[:39]) },
		func() error {
			g1, _ := g.WithOrder(1)
			r1, _ := g1.Prepare(1e8, Mode{Polarized: true})
			return r1.EvalPoints(&p, 0, 10, out)
		},
	} {
		if bad() == nil {
			t.Error("want an error")
		}
	}
	grid := r.Grid()
	grid.Order = 2
	if p.Reset(grid, 1) == nil {
		t.Error("order 2: want an error")
	}
}
