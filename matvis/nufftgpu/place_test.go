package nufftgpu

import (
	"math/rand/v2"
	"testing"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/internal/gputest"
	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis/nufft"
	"github.com/gomatvis/gomatvis/matvis/nufft/nufftest"
)

// uploadAxes copies each axis of x to the device in the transform's
// precision.
func uploadAxes(t *testing.T, dv device, tr *Transform, x [][]float64) [3]cuda.DevicePtr {
	t.Helper()
	var p [3]cuda.DevicePtr
	for d, v := range x {
		var err error
		p[d], err = dv.c.Alloc(int64(len(v)) * tr.prec.realBytes())
		gputest.Must(t, err)
		t.Cleanup(func() { _ = dv.c.Free(p[d]) })
		gputest.Must(t, tr.putReals(p[d], v))
	}
	return p
}

// boxProblem is n random points in box (one a float32 rounding past its
// east edge, as a unit vector rounded to float32 can be) and nv vectors of
// random strengths for them.
func boxProblem(rng *rand.Rand, box [][]float64, n, nv int) (x [][]float64, c []complex128) {
	x = make([][]float64, len(box))
	for d := range x {
		x[d] = make([]float64, n)
		for i := range x[d] {
			x[d][i] = box[d][0] + (box[d][1]-box[d][0])*rng.Float64()
		}
	}
	x[0][3] = 1 + 6e-8
	c = make([]complex128, nv*n)
	for i := range c {
		c[i] = complex(rng.NormFloat64(), rng.NormFloat64())
	}
	return x, c
}

// scaled returns s times f.
func scaled(s [][]float64, f float64) [][]float64 {
	o := make([][]float64, len(s))
	for d := range s {
		o[d] = make([]float64, len(s[d]))
		for k, v := range s[d] {
			o[d][k] = f * v
		}
	}
	return o
}

// TestPlaceRetarget: points placed on the device by Place (directions in
// the box a plan was made for, one just past its edge by a rounding, as
// a float32 unit vector can be) transform as the direct sum does within
// bound(ε), in 2-D and 3-D, fp64 and fp32, for the plan's targets and,
// after Retarget, for a lower channel's (targets × 0.6, planned on the
// same grids with MinGrid: Execute refuses until the points are placed
// again under its point map); ExecuteInterleaved gives each target's
// vectors together, equal to Execute's blocks up to the spread's
// rounding (sameSpread); a plan whose targets are off centre is refused
// by Place and Retarget.
func TestPlaceRetarget(t *testing.T) {
	dv := openDevice(t)
	rng := sharedtest.RNG(t, 41)
	for _, tc := range []struct {
		dim  int
		prec Precision
		eps  float64
	}{{2, Double, 1e-9}, {2, Single, 1e-6}, {3, Double, 1e-9}, {3, Single, 1e-6}} {
		box := [][]float64{{-1, 1}, {-1, 1}, {0, 1}}[:tc.dim]
		_, _, s := nufftest.Problem(rng, tc.dim, 1, 900, 1, 250, 0, 0)
		opt := nufft.Options{Eps: tc.eps, Sign: 1, Real: true}
		top, err := nufft.NewPlan(box, s, opt)
		gputest.Must(t, err)
		const nv = 2
		tr, err := NewBatch(dv.c, top, tc.prec, nv, dv.s)
		gputest.Must(t, err)
		t.Cleanup(func() { _ = tr.Close() })
		const n = 3000
		x, c := boxProblem(rng, box, n, nv)
		gputest.Must(t, tr.Place(n, uploadAxes(t, dv, tr, x)))
		lowOpt := opt
		lowOpt.MinGrid = [3]int{top.Layout().NF[0], top.Layout().NF[1], top.Layout().NF[2]}
		low, err := nufft.NewPlan(box, scaled(s, 0.6), lowOpt)
		gputest.Must(t, err)
		for step, targets := range [][][]float64{s, scaled(s, 0.6)} {
			if step == 1 {
				gputest.Must(t, tr.Retarget(low))
				if err := tr.Execute(0, 0); err == nil {
					t.Fatalf("%d-D %v: Execute ran after Retarget moved the point map, with the points placed under the old one", tc.dim, tc.prec)
				}
				gputest.Must(t, tr.Place(n, uploadAxes(t, dv, tr, x)))
			}
			got := runPoisoned(t, dv, tr, c)
			inter := runInterleaved(t, dv, tr, c)
			m := len(targets[0])
			for v := range nv {
				want, err := nufft.Direct(x, c[v*n:(v+1)*n], targets, 1)
				gputest.Must(t, err)
				e := nufftest.RelErr(got[v*m:(v+1)*m], want)
				t.Logf("%d-D %v eps=%g step %d vector %d: vs direct %.3g (%.2f eps)", tc.dim, tc.prec, tc.eps, step, v, e, e/tc.eps)
				if !(e <= bound(tc.eps, tc.prec)) {
					t.Errorf("%d-D %v eps=%g step %d vector %d: vs direct %.3g > %.3g", tc.dim, tc.prec, tc.eps, step, v, e, bound(tc.eps, tc.prec))
				}
				col := make([]complex128, m)
				for k := range col {
					col[k] = inter[k*nv+v]
				}
				if e := nufftest.RelErr(col, got[v*m:(v+1)*m]); !(e <= sameSpread[tc.prec]) {
					t.Errorf("%d-D %v step %d vector %d: interleaved results differ from Execute's by %.3g of the peak (over %.3g: more than the atomic spread's rounding)", tc.dim, tc.prec, step, v, e, sameSpread[tc.prec])
				}
			}
		}
	}
	_, _, s := nufftest.Problem(rng, 2, 1, 50, 1, 40, 0, 9)
	off, err := nufft.NewPlan([][]float64{{-1, 1}, {-1, 1}}, s, nufft.Options{Eps: 1e-6, Sign: 1})
	gputest.Must(t, err)
	tr, err := New(dv.c, off, Double, dv.s)
	gputest.Must(t, err)
	defer tr.Close()
	if err := tr.Place(1, [3]cuda.DevicePtr{}); err == nil {
		t.Errorf("Place accepted a plan whose points need pre-phases")
	}
	if err := tr.Retarget(off); err == nil {
		t.Errorf("Retarget accepted a plan whose points need pre-phases")
	}
}

// sameSpread bounds the difference of two executions of one transform
// relative to its peak: the spread adds its points to the grid with
// atomics, in an order that changes from run to run, so two runs agree
// to rounding, not bit for bit (seen on the H200, 2026-12-02: one ulp in
// fp64). A layout error (a target's vectors mixed up) is of order 1.
var sameSpread = map[Precision]float64{Double: 1e-13, Single: 1e-5}

// runInterleaved is runPoisoned through ExecuteInterleaved: the results
// target-major.
func runInterleaved(t *testing.T, dv device, tr *Transform, c []complex128) []complex128 {
	t.Helper()
	ev, err := dv.c.NewEvent()
	gputest.Must(t, err)
	defer dv.c.DestroyEvent(ev)
	f := runPoisonedWith(t, dv, tr, c, func(in, out cuda.DevicePtr) error { return tr.ExecuteInterleaved(in, out, ev) })
	if _, err := dv.c.Elapsed(ev, ev); err != nil {
		t.Errorf("the after-spread event was not recorded: %v", err)
	}
	return f
}
