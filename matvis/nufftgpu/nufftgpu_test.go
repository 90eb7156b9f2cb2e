package nufftgpu

import (
	"math"
	"math/cmplx"
	"testing"

	"github.com/gomatvis/gomatvis/cuda"
	"github.com/gomatvis/gomatvis/internal/gputest"
	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis/nufft"
	"github.com/gomatvis/gomatvis/matvis/nufft/nufftest"
)

// Documented error factors: the device transform is the host plan's
// transform with exact kernel weights, so its error against the direct sum
// is the method's, which matvis/nufft bounds by 10 ε (two kernel stages
// and the division by the kernel's transform at the passband's edge). In
// float32 the rounding of the grids, the FFT and the phases adds a few
// 1e-7 (relative ℓ2), so fp32 gets 10 ε + 2e-6.
const (
	errFactor   = 10
	fp32Rounded = 2e-6
)

// bound is the allowed relative ℓ2 error at eps in precision prec.
func bound(eps float64, prec Precision) float64 {
	if prec == Single {
		return errFactor*eps + fp32Rounded
	}
	return errFactor * eps
}

// device is a context and a stream for one test.
type device struct {
	c *cuda.Context
	s cuda.Stream
}

func openDevice(t *testing.T) device {
	t.Helper()
	c := gputest.Open(t)
	s, err := c.NewStream()
	gputest.Must(t, err)
	t.Cleanup(func() { _ = c.DestroyStream(s) })
	return device{c, s}
}

// runPoisoned runs tr on strengths c (every vector's) with its output
// buffer filled with NaN first (all bits set), and fails t if any result
// is not finite: an unwritten or wrongly indexed output shows.
func runPoisoned(t *testing.T, dv device, tr *Transform, c []complex128) []complex128 {
	t.Helper()
	return runPoisonedWith(t, dv, tr, c, tr.Execute)
}

// runPoisonedWith is runPoisoned through exec (Execute or
// ExecuteInterleaved) from a device copy of c into the output buffer.
func runPoisonedWith(t *testing.T, dv device, tr *Transform, c []complex128, exec func(in, out cuda.DevicePtr) error) []complex128 {
	t.Helper()
	np, nq := tr.pts.n*tr.nv, tr.tgt.n*tr.nv
	cb := 2 * tr.prec.realBytes()
	in, err := dv.c.Alloc(int64(np) * cb)
	gputest.Must(t, err)
	defer dv.c.Free(in)
	out, err := dv.c.Alloc(int64(nq) * cb)
	gputest.Must(t, err)
	defer dv.c.Free(out)
	gputest.Must(t, tr.putComplex(in, c))
	gputest.Must(t, dv.c.Memset8(out, 0xff, int64(nq)*cb, dv.s))
	gputest.Must(t, exec(in, out))
	gputest.Must(t, dv.c.SyncStream(dv.s))
	f := make([]complex128, nq)
	if tr.prec == Double {
		gputest.Must(t, cuda.Download(dv.c, f, out, dv.s))
	} else {
		f32 := make([]complex64, nq)
		gputest.Must(t, cuda.Download(dv.c, f32, out, dv.s))
		for i, v := range f32 {
			f[i] = complex128(v)
		}
	}
	bad := 0
	for _, v := range f {
		if cmplx.IsNaN(v) || cmplx.IsInf(v) {
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d results not finite (unwritten: the output was poisoned with NaN)", bad, nq)
	}
	return f
}

// newTransform plans on the host and uploads to the device.
func newTransform(t *testing.T, dv device, x, s [][]float64, eps float64, sign int, prec Precision) (*nufft.Plan, *Transform) {
	t.Helper()
	return newBatch(t, dv, x, s, eps, sign, prec, 1)
}

// newBatch is newTransform for nv vectors.
func newBatch(t *testing.T, dv device, x, s [][]float64, eps float64, sign int, prec Precision, nv int) (*nufft.Plan, *Transform) {
	t.Helper()
	pl, err := nufft.NewPlan(x, s, nufft.Options{Eps: eps, Sign: sign})
	gputest.Must(t, err)
	tr, err := NewBatch(dv.c, pl, prec, nv, dv.s)
	gputest.Must(t, err)
	t.Cleanup(func() {
		if err := tr.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return pl, tr
}

// TestAgainstDirectAndCPU: on random points in 1-D, 2-D and 3-D (shifted
// off the origin, both signs), the device transform agrees with the
// direct sum within bound(ε) for ε = 1e-3 … 1e-12 in fp64 and ε = 1e-4,
// 1e-6 in fp32, and with matvis/nufft's CPU transform as closely.
func TestAgainstDirectAndCPU(t *testing.T) {
	dv := openDevice(t)
	rng := sharedtest.RNG(t, 29)
	cases := []struct {
		d, n, m    int
		xh, sh     float64
		xoff, soff float64
	}{
		{1, 3000, 2000, 3, 400, 0.5, -7},
		{2, 3000, 2000, 1, 300, 0, 3},
		{3, 2000, 1500, 1.2, 40, -0.3, 0},
	}
	runs := []struct {
		prec Precision
		eps  []float64
	}{{Double, []float64{1e-3, 1e-6, 1e-9, 1e-12}}, {Single, []float64{1e-4, 1e-6}}}
	for _, tc := range cases {
		x, c, s := nufftest.Problem(rng, tc.d, tc.n, tc.m, tc.xh, tc.sh, tc.xoff, tc.soff)
		for _, sign := range []int{1, -1} {
			want, err := nufft.Direct(x, c, s, sign)
			gputest.Must(t, err)
			for _, r := range runs {
				for _, eps := range r.eps {
					pl, tr := newTransform(t, dv, x, s, eps, sign, r.prec)
					got := runPoisoned(t, dv, tr, c)
					cpu := make([]complex128, tc.m)
					gputest.Must(t, pl.Execute(c, cpu))
					e, ec := nufftest.RelErr(got, want), nufftest.RelErr(got, cpu)
					w, _ := pl.Kernel()
					t.Logf("d=%d sign=%+d %v eps=%g (w=%d grid %v): vs direct %.3g (%.2f eps), vs CPU %.3g, CPU vs direct %.3g",
						tc.d, sign, r.prec, eps, w, pl.Grid(), e, e/eps, ec, nufftest.RelErr(cpu, want))
					if !(e <= bound(eps, r.prec)) {
						t.Errorf("d=%d sign=%+d %v eps=%g: rel l2 error vs direct %.3g > %.3g", tc.d, sign, r.prec, eps, e, bound(eps, r.prec))
					}
					if !(ec <= bound(eps, r.prec)) {
						t.Errorf("d=%d sign=%+d %v eps=%g: rel l2 difference from the CPU %.3g > %.3g", tc.d, sign, r.prec, eps, ec, bound(eps, r.prec))
					}
				}
			}
		}
	}
}

// TestLargeAgainstCPU: at sizes where the direct sum is too slow (10⁵–10⁶
// points), the device transform agrees with the CPU transform at ε = 1e-12
// (a reference 1e-11 close to the direct sum) within bound(ε).
func TestLargeAgainstCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPED in -short: large transforms")
	}
	dv := openDevice(t)
	rng := sharedtest.RNG(t, 30)
	cases := []struct {
		d, n, m int
		xh, sh  float64
		prec    Precision
		eps     float64
	}{
		{2, 1_000_000, 122_150, 1, 2 * math.Pi * 300, Single, 1e-6},
		{2, 1_000_000, 122_150, 1, 2 * math.Pi * 300, Double, 1e-9},
		{3, 200_000, 50_000, 1, 2 * math.Pi * 25, Single, 1e-6},
		{3, 200_000, 50_000, 1, 2 * math.Pi * 25, Double, 1e-9},
	}
	for _, tc := range cases {
		x, c, s := nufftest.Problem(rng, tc.d, tc.n, tc.m, tc.xh, tc.sh, 0, 0)
		ref, err := nufft.Type3(x, c, s, nufft.Options{Eps: 1e-12, Sign: 1})
		gputest.Must(t, err)
		pl, tr := newTransform(t, dv, x, s, tc.eps, 1, tc.prec)
		got := runPoisoned(t, dv, tr, c)
		e := nufftest.RelErr(got, ref)
		t.Logf("d=%d n=%d m=%d %v eps=%g grid %v: vs CPU(1e-12) %.3g (%.2f eps)", tc.d, tc.n, tc.m, tc.prec, tc.eps, pl.Grid(), e, e/tc.eps)
		if !(e <= bound(tc.eps, tc.prec)) {
			t.Errorf("d=%d %v eps=%g: rel l2 error %.3g > %.3g", tc.d, tc.prec, tc.eps, e, bound(tc.eps, tc.prec))
		}
	}
}

// TestBatch: four strength vectors transformed together give, vector by
// vector, the direct sum within bound(ε) and the single transform of that
// vector to rounding (the same grids, weights and FFT).
func TestBatch(t *testing.T) {
	dv := openDevice(t)
	rng := sharedtest.RNG(t, 32)
	const nv = 4
	for _, tc := range []struct {
		d    int
		sh   float64
		prec Precision
		eps  float64
	}{{2, 300, Double, 1e-9}, {2, 300, Single, 1e-6}, {3, 40, Double, 1e-12}, {3, 40, Single, 1e-6}} {
		x, c0, s := nufftest.Problem(rng, tc.d, 1500, 1000, 1, tc.sh, 0.2, -1)
		c := make([]complex128, 0, nv*len(c0))
		for range nv {
			c = append(c, c0...)
			rng.Shuffle(len(c0), func(i, j int) { c0[i], c0[j] = c0[j], c0[i] })
		}
		_, tb := newBatch(t, dv, x, s, tc.eps, -1, tc.prec, nv)
		_, t1 := newTransform(t, dv, x, s, tc.eps, -1, tc.prec)
		got := runPoisoned(t, dv, tb, c)
		n, m := len(c0), len(s[0])
		for v := range nv {
			cv := c[v*n : (v+1)*n]
			want, err := nufft.Direct(x, cv, s, -1)
			gputest.Must(t, err)
			one := runPoisoned(t, dv, t1, cv)
			gv := got[v*m : (v+1)*m]
			e, e1 := nufftest.RelErr(gv, want), nufftest.RelErr(gv, one)
			t.Logf("d=%d %v eps=%g vector %d: vs direct %.3g (%.2f eps), vs single transform %.3g", tc.d, tc.prec, tc.eps, v, e, e/tc.eps, e1)
			if !(e <= bound(tc.eps, tc.prec)) {
				t.Errorf("d=%d %v eps=%g vector %d: vs direct %.3g > %.3g", tc.d, tc.prec, tc.eps, v, e, bound(tc.eps, tc.prec))
			}
			roundoff := 1e-13
			if tc.prec == Single {
				roundoff = 1e-5
			}
			if !(e1 <= roundoff) {
				t.Errorf("d=%d %v eps=%g vector %d: differs from its single transform by %.3g > %g", tc.d, tc.prec, tc.eps, v, e1, roundoff)
			}
		}
	}
}

// TestSetPoints: a plan made for the box of directions and given new
// points (more, then fewer, than the transform's buffers hold) transforms
// them on the device as the direct sum does, within bound(ε); the first
// through ExecuteHost, the others through poisoned output buffers.
func TestSetPoints(t *testing.T) {
	dv := openDevice(t)
	rng := sharedtest.RNG(t, 33)
	box := [][]float64{{-1, 1}, {-1, 1}}
	for _, tc := range []struct {
		prec Precision
		eps  float64
	}{{Double, 1e-9}, {Single, 1e-6}} {
		_, _, s := nufftest.Problem(rng, 2, 1, 1500, 1, 300, 0, 0)
		pl, tr := newTransform(t, dv, box, s, tc.eps, 1, tc.prec)
		for step, n := range []int{2000, 5000, 500} {
			x, c, _ := nufftest.Problem(rng, 2, n, 1, 1, 1, 0, 0)
			gputest.Must(t, pl.SetPoints(x))
			gputest.Must(t, tr.SetPoints(pl))
			var got []complex128
			if step == 0 {
				got = make([]complex128, len(s[0]))
				gputest.Must(t, tr.ExecuteHost(c, got))
			} else {
				got = runPoisoned(t, dv, tr, c)
			}
			want, err := nufft.Direct(x, c, s, 1)
			gputest.Must(t, err)
			e := nufftest.RelErr(got, want)
			t.Logf("%v eps=%g, %d points set: vs direct %.3g (%.2f eps)", tc.prec, tc.eps, n, e, e/tc.eps)
			if !(e <= bound(tc.eps, tc.prec)) {
				t.Errorf("%v eps=%g, %d points set: vs direct %.3g > %.3g", tc.prec, tc.eps, n, e, bound(tc.eps, tc.prec))
			}
		}
	}
}
