package nufft

import (
	"math"
	"math/cmplx"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/internal/sharedtest"
	"github.com/gomatvis/gomatvis/matvis/nufft/nufftest"
)

// TestEpsSweep checks every decade of ε from 1e-3 to 1e-12 in 2-D, the
// shape the visibility backend uses.
func TestEpsSweep(t *testing.T) {
	rng := sharedtest.RNG(t, 3)
	x, c, s := nufftest.Problem(rng, 2, 500, 400, 1, 80, 0, 0)
	want, err := Direct(x, c, s, -1)
	if err != nil {
		t.Fatal(err)
	}
	for p := 3; p <= 12; p++ {
		eps := math.Pow(10, -float64(p))
		got, err := Type3(x, c, s, Options{Eps: eps, Sign: -1})
		if err != nil {
			t.Fatal(err)
		}
		if e := nufftest.RelErr(got, want); e > errFactor*eps {
			t.Errorf("eps=%g: rel l2 err %.3g > %d eps", eps, e, errFactor)
		}
	}
}

// TestKernelFTConverged compares the quadrature of the kernel's transform
// with a 300-node rule over the arguments the plan uses (|κ| ≤ π·w/4): it
// must be well below ε (the rule converges algebraically, see newKernel).
func TestKernelFTConverged(t *testing.T) {
	for _, eps := range []float64{1e-3, 1e-8, 1e-12, MinEps} {
		k := newKernel(eps)
		zs, ws := gaussLegendre(300)
		kmax := math.Pi * float64(k.w) / 4
		for i := 0; i <= 50; i++ {
			kappa := kmax * float64(i) / 50
			var ref float64
			for q, z := range zs {
				ref += 2 * ws[q] * k.phi(z) * math.Cos(kappa*z)
			}
			if got := k.ft(kappa); math.Abs(got-ref) > max(eps/1000, 1e-14)*math.Abs(ref) {
				t.Errorf("eps=%g kappa=%g: ft %.17g, 300-node rule %.17g", eps, kappa, got, ref)
			}
		}
	}
}

// TestGaussLegendre checks that the n-point rule integrates z^p on [0, 1]
// exactly (1/(p+1)) for every p ≤ 2n−1, for the sizes the kernels use
// and beyond.
func TestGaussLegendre(t *testing.T) {
	for n := 1; n <= 60; n++ {
		z, w := gaussLegendre(n)
		for p := 0; p <= 2*n-1; p++ {
			var s float64
			for i := range z {
				s += w[i] * math.Pow(z[i], float64(p))
			}
			if want := 1 / float64(p+1); math.Abs(s-want) > 1e-14 {
				t.Errorf("n=%d: integral of z^%d = %.17g, want %.17g", n, p, s, want)
			}
		}
	}
}

// TestKernelParameters checks w and β against Barnett et al. 2019's rule.
func TestKernelParameters(t *testing.T) {
	for _, tc := range []struct {
		eps float64
		w   int
	}{{1e-3, 4}, {1e-6, 7}, {1e-12, 13}, {0.05, 3}} {
		k := newKernel(tc.eps)
		if k.w != tc.w || k.beta != 2.30*float64(tc.w) {
			t.Errorf("eps=%g: w=%d beta=%g, want w=%d beta=%g", tc.eps, k.w, k.beta, tc.w, 2.30*float64(tc.w))
		}
		if got := k.phi(0); got != 1 {
			t.Errorf("phi(0) = %g, want 1", got)
		}
		if got, want := k.phi(1), math.Exp(-k.beta); got != want {
			t.Errorf("phi(1) = %g, want e^-beta = %g", got, want)
		}
	}
}

// TestSpreadTwin compares the slab-parallel spreading with the serial
// one on fresh random points in each dimension.
func TestSpreadTwin(t *testing.T) {
	rng := sharedtest.RNG(t, 5)
	for d := 1; d <= 3; d++ {
		x, c, s := nufftest.Problem(rng, d, 3000, 10, 2, 30, 0.1, 0)
		pl, err := NewPlan(x, s, Options{Eps: 1e-9, Sign: 1, Workers: 3})
		if err != nil {
			t.Fatal(err)
		}
		if d > 1 && len(pl.slabs.points) < 2 {
			t.Fatalf("d=%d: %d slabs, want several to test the partition", d, len(pl.slabs.points))
		}
		pl.allocate()
		pl.spread(c)
		par := append([]complex128(nil), pl.grid...)
		clear(pl.grid)
		pl.spreadSerial(c)
		for i, v := range pl.grid {
			if cmplx.Abs(v-par[i]) > 1e-13*(1+cmplx.Abs(v)) {
				t.Fatalf("d=%d: grid[%d] parallel %v, serial %v", d, i, par[i], v)
			}
		}
	}
}

// TestFFTTwin compares the pruned, fused FFT (fftPlan.run) with the full
// FFT of the whole padded grid, the outer grid deconvolved and placed at
// its modes' indices, on every index interpolation reads; in 1-D also the
// full FFT with a direct DFT.
func TestFFTTwin(t *testing.T) {
	rng := sharedtest.RNG(t, 7)
	for d := 1; d <= 3; d++ {
		x, c, s := nufftest.Problem(rng, d, 50, 40, 1, 10, 0, 0)
		for _, sign := range []int{1, -1} {
			pl, err := NewPlan(x, s, Options{Eps: 1e-6, Sign: sign, Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			pl.allocate()
			pl.spread(c)
			fp := pl.fft
			in := paddedGrid(fp, pl.grid)
			full := fullFFT(fp, in, sign)
			out := fp.run(pl.grid, pl.pad)
			w := [3]int{fp.width(0), fp.width(1), fp.width(2)}
			for r0 := range w[0] {
				for r1 := range w[1] {
					for r2 := range w[2] {
						i := ((fp.lo[0]+r0)*fp.n[1]+fp.lo[1]+r1)*fp.n[2] + fp.lo[2] + r2
						got := out[(r0*w[1]+r1)*w[2]+r2]
						if cmplx.Abs(got-full[i]) > 1e-12*(1+cmplx.Abs(full[i])) {
							t.Fatalf("d=%d sign=%d: pruned (%d, %d, %d) %v, full %v", d, sign, r0, r1, r2, got, full[i])
						}
					}
				}
			}
			if d != 1 {
				continue
			}
			n := fp.n[0]
			for m := fp.lo[0]; m < fp.lo[0]+5; m++ {
				var want complex128
				for l, v := range in {
					want += v * cmplx.Exp(complex(0, float64(sign)*2*math.Pi*float64(l*m)/float64(n)))
				}
				if cmplx.Abs(full[m]-want) > 1e-10*(1+cmplx.Abs(want)) {
					t.Errorf("sign=%d: fft[%d] %v, DFT %v", sign, m, full[m], want)
				}
			}
		}
	}
}

// paddedGrid is the whole padded grid the fused FFT stands for: outer
// grid value (i0, i1, i2) times the axes' deconvolutions at the padded
// indices of its modes, zero elsewhere.
func paddedGrid(fp fftPlan, grid []complex128) []complex128 {
	pad := make([]complex128, fp.n[0]*fp.n[1]*fp.n[2])
	for i0 := range fp.nf[0] {
		for i1 := range fp.nf[1] {
			for i2 := range fp.nf[2] {
				f := fp.deconv[0][i0] * fp.deconv[1][i1] * fp.deconv[2][i2]
				m := (fp.mode[0][i0]*fp.n[1]+fp.mode[1][i1])*fp.n[2] + fp.mode[2][i2]
				pad[m] = complex(f, 0) * grid[(i0*fp.nf[1]+i1)*fp.nf[2]+i2]
			}
		}
	}
	return pad
}

// fullFFT transforms every line of every active axis of the padded grid
// pad with a fresh fftCore per axis.
func fullFFT(fp fftPlan, pad []complex128, sign int) []complex128 {
	out := append([]complex128(nil), pad...)
	stride := [3]int{fp.n[1] * fp.n[2], fp.n[2], 1}
	for a := range 3 {
		if !fp.active[a] {
			continue
		}
		n := fp.n[a]
		core := newFFTCore(n, sign)
		x, y := make([]complex128, n), make([]complex128, n)
		for base := range out {
			if (base/stride[a])%n != 0 {
				continue
			}
			for i := range n {
				x[i] = out[base+i*stride[a]]
			}
			res := core.run(x, y, 1)
			for i := range n {
				out[base+i*stride[a]] = res[i]
			}
		}
	}
	return out
}

// TestDegenerate covers one point, all points equal, a zero extent in one
// axis, no points and no targets.
func TestDegenerate(t *testing.T) {
	rng := sharedtest.RNG(t, 9)
	one := func(v float64, n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = v
		}
		return s
	}
	x2, c2, s2 := nufftest.Problem(rng, 2, 200, 100, 1, 40, 0, 0)
	x3, c3, s3 := nufftest.Problem(rng, 3, 200, 100, 1, 20, 0, 0)
	cases := []struct {
		name string
		x    [][]float64
		c    []complex128
		s    [][]float64
	}{
		{"one point", [][]float64{{0.3}, {-0.7}}, []complex128{2 - 1i}, s2},
		{"all points equal", [][]float64{one(0.4, 50), one(-0.2, 50)}, c2[:50], s2},
		{"all targets equal", x2, c2, [][]float64{one(13, 7), one(-5, 7)}},
		{"zero extent in x[1]", [][]float64{x2[0], one(0.25, 200)}, c2, s2},
		{"zero extent in s[2]", x3, c3, [][]float64{s3[0], s3[1], one(3, 100)}},
		{"points at zero", [][]float64{one(0, 10)}, c2[:10], [][]float64{s2[0]}},
		{"targets at zero", [][]float64{x2[0]}, c2, [][]float64{one(0, 10)}},
	}
	for _, tc := range cases {
		for _, sign := range []int{1, -1} {
			want, err := Direct(tc.x, tc.c, tc.s, sign)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Type3(tc.x, tc.c, tc.s, Options{Eps: 1e-10, Sign: sign})
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			// The bar is errFactor·ε on a well-conditioned output and
			// grows with the cancellation in it (nufftest.Condition):
			// all equal points or targets make every f_k the same sum
			// of random phasors, which can nearly cancel.
			kappa := nufftest.Condition(tc.c, want)
			if e := nufftest.RelErr(got, want); e > errFactor*1e-10*max(1, kappa) {
				t.Errorf("%s sign=%d: rel l2 err %.3g > %d eps × condition %.3g", tc.name, sign, e, errFactor, kappa)
			}
		}
	}
	f, err := Type3([][]float64{{}}, nil, [][]float64{{1, 2}}, Options{Eps: 1e-6, Sign: 1})
	if err != nil || len(f) != 2 || f[0] != 0 || f[1] != 0 {
		t.Errorf("no points: f=%v err=%v, want two zeros", f, err)
	}
	f, err = Type3([][]float64{{1, 2}}, []complex128{1, 1}, [][]float64{{}}, Options{Eps: 1e-6, Sign: 1})
	if err != nil || len(f) != 0 {
		t.Errorf("no targets: f=%v err=%v, want empty", f, err)
	}
}

// TestBadInput checks that each bad input gets an error naming it.
func TestBadInput(t *testing.T) {
	ok := Options{Eps: 1e-6, Sign: 1}
	x := [][]float64{{0, 1}}
	s := [][]float64{{0, 1, 2}}
	c := []complex128{1, 2}
	cases := []struct {
		name string
		x, s [][]float64
		c    []complex128
		opt  Options
		want string
	}{
		{"eps too small", x, s, c, Options{Eps: 1e-16, Sign: 1}, "Options.Eps = 1e-16"},
		{"eps too large", x, s, c, Options{Eps: 0.5, Sign: 1}, "Options.Eps = 0.5"},
		{"eps NaN", x, s, c, Options{Eps: math.NaN(), Sign: 1}, "Options.Eps = NaN"},
		{"sign", x, s, c, Options{Eps: 1e-6, Sign: 2}, "Options.Sign = 2"},
		{"workers", x, s, c, Options{Eps: 1e-6, Sign: 1, Workers: -1}, "Options.Workers = -1"},
		{"NaN point", [][]float64{{0, math.NaN()}}, s, c, ok, "x[0][1] = NaN"},
		{"Inf target", x, [][]float64{{0, math.Inf(1), 2}}, c, ok, "s[0][1] = +Inf"},
		{"NaN strength", x, s, []complex128{1, complex(math.NaN(), 0)}, ok, "c[1] = (NaN+0i)"},
		{"four dims", [][]float64{{0}, {0}, {0}, {0}}, s, c[:1], ok, "x has 4 dimensions"},
		{"dims differ", x, [][]float64{{0}, {1}}, c, ok, "s has 2 dimensions, the points have 1"},
		{"ragged", [][]float64{{0, 1}, {2}}, [][]float64{{0}, {1}}, c, ok, "x[1] has 1 values"},
		{"strength count", x, s, c[:1], ok, "len(c) = 1"},
		{"grid too large", [][]float64{{-1e6, 1e6}}, [][]float64{{-1e6, 1e6}}, c, ok, "MaxGrid"},
	}
	for _, tc := range cases {
		_, err := Type3(tc.x, tc.c, tc.s, tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// TestPlanReuse executes one plan for two strength vectors and checks
// each against the direct sum (the working storage must not leak between
// executions).
func TestPlanReuse(t *testing.T) {
	rng := sharedtest.RNG(t, 11)
	x, c1, s := nufftest.Problem(rng, 2, 300, 200, 1, 50, 0, 0)
	_, c2, _ := nufftest.Problem(rng, 2, 300, 0, 1, 0, 0, 0)
	pl, err := NewPlan(x, s, Options{Eps: 1e-11, Sign: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range [][]complex128{c1, c2, c1} {
		want, _ := Direct(x, c, s, 1)
		got := make([]complex128, len(want))
		if err := pl.Execute(c, got); err != nil {
			t.Fatal(err)
		}
		if e := nufftest.RelErr(got, want); e > errFactor*1e-11 {
			t.Errorf("rel l2 err %.3g", e)
		}
	}
	if st := pl.Stats(); st.Spread <= 0 || st.FFT <= 0 || st.Interp <= 0 {
		t.Errorf("stats %+v: every stage should have taken time", st)
	}
}

// TestSetPoints makes a plan for the corners of a box, then transforms
// fresh random points inside it, fewer and more than the corners, and
// checks each against the direct sum; a point outside the box is refused.
func TestSetPoints(t *testing.T) {
	rng := sharedtest.RNG(t, 13)
	box := [][]float64{{-1, 1}, {-1, 1}, {0, 1}}
	_, _, s := nufftest.Problem(rng, 3, 0, 300, 0, 25, 0, 0)
	pl, err := NewPlan(box, s, Options{Eps: 1e-10, Sign: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 700, 2000} {
		x, c, _ := nufftest.Problem(rng, 3, n, 0, 1, 0, 0, 0)
		for j := range x[2] {
			x[2][j] = 0.5 + 0.5*x[2][j]
		}
		x[0][0], x[1][0], x[2][0] = 1, -1, 0 // on the box's faces
		if err := pl.SetPoints(x); err != nil {
			t.Fatal(err)
		}
		want, _ := Direct(x, c, s, 1)
		got := make([]complex128, len(want))
		if err := pl.Execute(c, got); err != nil {
			t.Fatal(err)
		}
		if e := nufftest.RelErr(got, want); e > errFactor*1e-10 {
			t.Errorf("n=%d: rel l2 err %.3g", n, e)
		}
	}
	err = pl.SetPoints([][]float64{{0.5}, {0}, {-0.1}})
	if err == nil || !strings.Contains(err.Error(), "x[2][0] = -0.1 outside") {
		t.Errorf("point below the box: error %v", err)
	}
	if err := pl.SetPoints([][]float64{{0.5}, {0}}); err == nil {
		t.Error("2-D points for a 3-D plan: no error")
	}
}

// TestBinOrder checks that binOrder is a permutation whose bins (8 cells a
// side, row-major) never decrease, against keys computed here.
func TestBinOrder(t *testing.T) {
	rng := sharedtest.RNG(t, 15)
	const n = 5000
	var c [3][]float64
	size := [3]int{100, 37, 1}
	for d := range 2 {
		c[d] = make([]float64, n)
		for j := range c[d] {
			c[d][j] = rng.Float64() * float64(size[d]-1)
		}
	}
	order := binOrder(c, size, n)
	seen := make([]bool, n)
	last := -1
	for _, j := range order {
		if seen[j] {
			t.Fatalf("index %d twice", j)
		}
		seen[j] = true
		key := int(c[0][j]/8)*(37/8+1) + int(c[1][j]/8)
		if key < last {
			t.Fatalf("bin %d after bin %d", key, last)
		}
		last = key
	}
	if len(order) != n {
		t.Fatalf("%d indices, want %d", len(order), n)
	}
}

// TestBytes checks Plan.Bytes against the slices an executed plan holds:
// within a tenth less (the slab lists grow by appending) and a quarter
// more.
func TestBytes(t *testing.T) {
	rng := sharedtest.RNG(t, 17)
	for d := 1; d <= 3; d++ {
		x, c, s := nufftest.Problem(rng, d, 3000, 2000, 1, 40, 0, 0)
		pl, err := NewPlan(x, s, Options{Eps: 1e-9, Sign: 1, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if pl.grid != nil || pl.pad != nil {
			t.Fatal("a new plan holds its grids before an Execute")
		}
		if err := pl.Execute(c, make([]complex128, len(s[0]))); err != nil {
			t.Fatal(err)
		}
		held := int64(16 * (cap(pl.grid) + cap(pl.pad) + cap(pl.post) + cap(pl.pre) + cap(pl.cs) + cap(pl.fs)))
		held += int64(4 * (cap(pl.perm) + cap(pl.qOrder)))
		for a := range 3 {
			held += int64(8 * (cap(pl.p[a]) + cap(pl.raw[a]) + cap(pl.q[a])))
		}
		for _, l := range pl.slabs.points {
			held += int64(4 * cap(l))
		}
		// The FFT's work lines: two per worker, of the longest axis.
		longest := max(pl.ax[0].n2, pl.ax[1].n2, pl.ax[2].n2)
		held += int64(2 * 2 * maxBatch * longest * 16)
		got := pl.Bytes(len(x[0]))
		t.Logf("d=%d: Bytes %d, held %d", d, got, held)
		if got < held*9/10 || got > held*5/4 {
			t.Errorf("d=%d: Bytes %d for %d held", d, got, held)
		}
	}
}

// TestUseGrids executes a smaller plan and then a larger one in the grids
// of a larger still, against the direct sum, and refuses grids too small.
func TestUseGrids(t *testing.T) {
	rng := sharedtest.RNG(t, 18)
	x, c, big := nufftest.Problem(rng, 2, 500, 300, 1, 60, 0, 0)
	scaled := func(f float64) [][]float64 {
		s := [][]float64{make([]float64, 300), make([]float64, 300)}
		for d := range s {
			for k := range s[d] {
				s[d][k] = big[d][k] * f
			}
		}
		return s
	}
	opt := Options{Eps: 1e-10, Sign: -1}
	largest, err := NewPlan(x, scaled(1.2), opt)
	if err != nil {
		t.Fatal(err)
	}
	no, np := largest.GridPoints()
	outer, padded := make([]complex128, no), make([]complex128, np)
	for _, f := range []float64{0.5, 1} {
		s := scaled(f)
		pl, err := NewPlan(x, s, opt)
		if err != nil {
			t.Fatal(err)
		}
		if err := pl.UseGrids(outer, padded); err != nil {
			t.Fatal(err)
		}
		want, _ := Direct(x, c, s, -1)
		got := make([]complex128, len(want))
		if err := pl.Execute(c, got); err != nil {
			t.Fatal(err)
		}
		if &pl.pad[0] != &padded[0] {
			t.Error("the plan did not work in the given padded grid")
		}
		if e := nufftest.RelErr(got, want); e > errFactor*1e-10 {
			t.Errorf("scale %g: rel l2 err %.3g", f, e)
		}
	}
	pl, _ := NewPlan(x, scaled(2), opt)
	if err := pl.UseGrids(outer, padded); err == nil || !strings.Contains(err.Error(), "UseGrids") {
		t.Errorf("grids too small: error %v", err)
	}
}
