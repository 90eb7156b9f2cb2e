package nufft

import (
	"context"
	"fmt"
	"math"
	"math/cmplx"
	"runtime"
	"time"
	"unsafe"

	"github.com/gomatvis/gomatvis/internal/blocks"
)

// sigma is the upsampling factor of both fine grids (Barnett et al. 2019
// use σ = 2 for the parameters of newKernel).
const sigma = 2

// defaultMaxGrid bounds the padded grid's points (16 bytes each) when
// Options.MaxGrid is zero: 2^28 points are 4 GiB.
const defaultMaxGrid = 1 << 28

// Options control a transform.
type Options struct {
	// Eps is the requested relative ℓ2 accuracy, in [MinEps, MaxEps].
	Eps float64
	// Sign is the exponent's sign, +1 or −1.
	Sign int
	// Workers is the number of goroutines; 0 means GOMAXPROCS.
	Workers int
	// MaxGrid bounds the padded fine grid's points; 0 means 2^28.
	MaxGrid int
	// MinGrid, where set, is the least outer-grid size of each axis
	// (the padded grid is σ times it): a caller that keeps one set of
	// grids for several plans — each channel's transform on the grids
	// of the highest channel's, whose targets reach furthest — gets the
	// same grids for all of them. A larger grid than needed is as
	// accurate: the kernel and its width depend on Eps only.
	MinGrid [3]int
	// Real prepares the plan for real strengths (ExecuteReal): the
	// targets are taken about 0 rather than their centre, so that the
	// strengths need no pre-phase and the grid stays real; its FFT is
	// then Hermitian, and ExecuteReal transforms half of it.
	Real bool
}

// Stats are the time spent in each stage of the transforms executed so
// far by a plan.
type Stats struct {
	Spread, FFT, Interp time.Duration
}

// axis holds one dimension's scaling. The derivation (per axis; the
// d-dimensional transform is the tensor product):
//
// Shift: with x = xc + x', s = sc + s', s·x = s·xc + sc·x' + s'·x', so the
// strengths are pre-phased by e^{±i sc·x'} and the results post-phased by
// e^{±i s·xc}; then |x'| ≤ X and |s'| ≤ S.
//
// Outer stage: write x' = γ·u. Spreading g(u) = Σ_j c_j ψ(u − u_j) with
// ψ(u) = φ(u/α1), α1 = w·h1/2, gives ĝ(t) = Σ_j c_j e^{±itu_j}·ψ̂(t), so
// the wanted sum at t = γ·s' is ĝ(t)/ψ̂(t), and ĝ(t) ≈ h1·Σ_l g(l·h1)
// e^{±itlh1} (trapezoid rule, grid spacing h1 = 2π/nf). The rule aliases
// frequencies nf apart; |t| ≤ γS = nf/(2σ) keeps the targets in the
// kernel's passband exactly as the modes of a type-1 transform with σ-fold
// upsampling. The points, with the kernel's half width, must stay inside
// the grid: X/γ + α1 ≤ π − h1, i.e. nf ≥ 2σXS/π + w + 2.
//
// Inner stage (type 2): Σ_l g_l e^{±ilτ} at τ = t·h1 ∈ [−π/σ, π/σ]. With
// a_l = g_l/ψ̂2(l), p(τ) = Σ_l a_l e^{±ilτ} and ψ2(y) = φ(y/α2), α2 = w·h2/2,
// h2 = 2π/n2, n2 = σ·nf: ∫p(τ')ψ2(τ−τ')dτ' = Σ_l g_l e^{±ilτ}, and the
// integral is the trapezoid sum h2·Σ_m p(m·h2)·ψ2(τ − m·h2), p(m·h2) being
// one length-n2 FFT of the zero-padded a_l.
//
// Together: f = e^{±is·xc} · Π_axes [h1·h2/ψ̂(t)] · Σ_m p_m ψ2(τ − m·h2),
// and with ψ̂(t) = α1·φ̂(t·α1), ψ̂2(l) = α2·φ̂(l·α2) (φ̂ the kernel's own
// transform) each h/α is 2/w.
type axis struct {
	active bool
	xc, sc float64 // centres of the points and the targets
	xh     float64 // the points' half-extent the grid was sized for
	nf     int     // outer grid points
	gamma  float64 // x' = γ·u
	n2     int     // padded inner grid points, σ·nf
}

// Plan is a type-3 transform for fixed points and targets, to be executed
// for any number of strength vectors. A Plan holds working storage: one
// Execute at a time.
type Plan struct {
	opt  Options
	dim  int
	n, m int
	ker  kernel
	tab  kernelTable // the kernel's weights, tabulated (table.go)
	ax   [3]axis
	// p are the points' outer-grid coordinates and q the targets'
	// padded-grid coordinates, in grid spacings, per active axis.
	p, q [3][]float64
	// The points are kept in grid-bin order (binOrder): perm[i] is the
	// caller's index of sorted point i, and p, pre and cs are in sorted
	// order, so that spreading reads them in sequence.
	perm []int32
	pre  []complex128 // per sorted point: e^{±i sc·x'} (nil: all 1)
	cs   []complex128 // the pre-phased strengths of an Execute, sorted
	raw  [3][]float64 // the points' grid coordinates before sorting
	csr  []float64    // ExecuteReal's strengths, sorted
	post []complex128 // per sorted target: e^{±i s·xc}·Π (2/w)/φ̂(t·α1)
	// deconv is, per axis and outer-grid index i (mode l = i − nf/2),
	// (−1)^l·(2/w)/φ̂(l·α2): the (−1)^l centres the FFT's output so that
	// the targets never wrap around.
	deconv [3][]float64
	slabs  slabs
	// qOrder[i] is the caller's index of sorted target i; q and post
	// are in that order, and fs holds an Execute's sorted results.
	qOrder []int32
	fs     []complex128
	grid   []complex128 // outer grid, nf0·nf1·nf2
	pad    []complex128 // the FFT's work array (fftPlan.workPoints)
	fft    fftPlan
	stats  Stats
	// ctx is the running Execute's context (nil between them).
	ctx context.Context
}

// NewPlan checks the points x (x[d][j]: coordinate d of point j, 1 ≤
// len(x) ≤ 3) and targets s (the same layout) and prepares the transform.
func NewPlan(x, s [][]float64, opt Options) (*Plan, error) {
	if err := checkOptions(&opt); err != nil {
		return nil, err
	}
	n, err := checkCoords("x", x, 0)
	if err != nil {
		return nil, err
	}
	m, err := checkCoords("s", s, len(x))
	if err != nil {
		return nil, err
	}
	pl := &Plan{opt: opt, dim: len(x), n: n, m: m, ker: newKernel(opt.Eps)}
	pl.tab = newKernelTable(pl.ker)
	total := 1
	for d := range 3 {
		pl.ax[d] = axis{nf: 1, n2: 1}
		if d >= pl.dim {
			continue
		}
		a, err := newAxis(x[d], s[d], pl.ker.w, opt.MaxGrid, opt.MinGrid[d], opt.Real)
		if err != nil {
			return nil, fmt.Errorf("nufft: axis %d: %w", d, err)
		}
		pl.ax[d] = a
		total *= a.n2
		if total > opt.MaxGrid {
			return nil, fmt.Errorf("nufft: padded grid of %d points (axes so far %v) exceeds MaxGrid %d: the points' extent times the targets' is too large", total, pl.gridShape(), opt.MaxGrid)
		}
	}
	pl.scale(x, s)
	pl.slabs = newSlabs(pl.p[0], pl.ker.w, pl.ax[0].nf, pl.ax[0].active, opt.Workers, n)
	pl.sortTargets()
	pl.fft = newFFTPlan(pl.ax, pl.q, pl.deconv, pl.ker.w, opt.Sign, opt.Workers, opt.Real)
	return pl, nil
}

// Shape returns the padded grid NewPlan would make for points x and
// targets s, and its kernel width, without making the plan: O(points +
// targets), for a caller estimating a transform's cost before paying for
// its set-up.
func Shape(x, s [][]float64, opt Options) (grid []int, w int, err error) {
	if err := checkOptions(&opt); err != nil {
		return nil, 0, err
	}
	if _, err := checkCoords("x", x, 0); err != nil {
		return nil, 0, err
	}
	if _, err := checkCoords("s", s, len(x)); err != nil {
		return nil, 0, err
	}
	k := newKernel(opt.Eps)
	total := 1
	for d := range x {
		a, err := newAxis(x[d], s[d], k.w, opt.MaxGrid, opt.MinGrid[d], opt.Real)
		if err != nil {
			return nil, 0, fmt.Errorf("nufft: axis %d: %w", d, err)
		}
		grid = append(grid, a.n2)
		if total *= a.n2; total > opt.MaxGrid {
			return nil, 0, fmt.Errorf("nufft: padded grid of %d points (axes so far %v) exceeds MaxGrid %d", total, grid, opt.MaxGrid)
		}
	}
	return grid, k.w, nil
}

// Type3 computes f_k = Σ_j c_j exp(±i s_k·x_j) (sign opt.Sign) to relative
// ℓ2 accuracy opt.Eps; see NewPlan for the layout of x and s.
func Type3(x [][]float64, c []complex128, s [][]float64, opt Options) ([]complex128, error) {
	pl, err := NewPlan(x, s, opt)
	if err != nil {
		return nil, err
	}
	f := make([]complex128, pl.m)
	if err := pl.Execute(c, f); err != nil {
		return nil, err
	}
	return f, nil
}

// gridShape lists the padded grid's axes.
func (pl *Plan) gridShape() []int {
	var sh []int
	for d := range pl.dim {
		sh = append(sh, pl.ax[d].n2)
	}
	return sh
}

// Stats returns the time spent in each stage so far.
func (pl *Plan) Stats() Stats { return pl.stats }

// Kernel returns the kernel's width in grid points and its β.
func (pl *Plan) Kernel() (w int, beta float64) { return pl.ker.w, pl.ker.beta }

// Grid returns the padded fine grid's shape, one entry per dimension.
func (pl *Plan) Grid() []int { return pl.gridShape() }

// Execute computes the transform of strengths c (one per point) into f
// (one per target).
func (pl *Plan) Execute(c, f []complex128) error {
	return pl.ExecuteContext(context.Background(), c, f)
}

// ExecuteContext is Execute that stops soon after ctx is done: the
// spreading checks it every few thousand points and the interpolation
// every few hundred targets, so that a transform of millions of points,
// seconds long, gives way within a small part of a second. It then
// returns ctx's error (wrapped) and f holds no result.
func (pl *Plan) ExecuteContext(ctx context.Context, c, f []complex128) error {
	if len(c) != pl.n {
		return fmt.Errorf("nufft: len(c) = %d, want one strength per point (%d)", len(c), pl.n)
	}
	if len(f) != pl.m {
		return fmt.Errorf("nufft: len(f) = %d, want one value per target (%d)", len(f), pl.m)
	}
	for j, v := range c {
		if cmplx.IsNaN(v) || cmplx.IsInf(v) {
			return fmt.Errorf("nufft: strength c[%d] = %v is not finite", j, v)
		}
	}
	if pl.n == 0 {
		clear(f)
		return nil
	}
	pl.allocate()
	return pl.stages(ctx, f, func() { pl.spread(c) }, func() []complex128 { return pl.fft.run(pl.grid, pl.pad) })
}

// stages runs a transform's spreading, FFT and interpolation into f, in
// that order, adding each one's time to the plan's statistics; it stops
// at the first stage that finds ctx done (pl.stopped) and returns ctx's
// error.
func (pl *Plan) stages(ctx context.Context, f []complex128, spread func(), fft func() []complex128) error {
	pl.ctx = ctx
	defer func() { pl.ctx = nil }()
	t0 := time.Now()
	spread()
	t1 := time.Now()
	pl.stats.Spread += t1.Sub(t0)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("nufft: %w", err)
	}
	out := fft()
	t2 := time.Now()
	pl.stats.FFT += t2.Sub(t1)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("nufft: %w", err)
	}
	pl.interp(out, f)
	pl.stats.Interp += time.Since(t2)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("nufft: %w", err)
	}
	return nil
}

// stopped reports whether the running Execute's context is done (the
// spreading and interpolation workers ask between blocks of work).
func (pl *Plan) stopped() bool { return pl.ctx != nil && pl.ctx.Err() != nil }

// ExecuteReal is Execute for real strengths c, on a plan made with
// Options.Real: the grid is real, so spreading writes half the memory and
// the FFT transforms two grid lines at once and computes half the
// Hermitian output (fftPlan.runReal).
func (pl *Plan) ExecuteReal(c []float64, f []complex128) error {
	return pl.ExecuteRealContext(context.Background(), c, f)
}

// ExecuteRealContext is ExecuteReal that stops soon after ctx is done, as
// ExecuteContext does.
func (pl *Plan) ExecuteRealContext(ctx context.Context, c []float64, f []complex128) error {
	if !pl.opt.Real {
		return fmt.Errorf("nufft: ExecuteReal on a plan made without Options.Real")
	}
	if len(c) != pl.n {
		return fmt.Errorf("nufft: len(c) = %d, want one strength per point (%d)", len(c), pl.n)
	}
	if len(f) != pl.m {
		return fmt.Errorf("nufft: len(f) = %d, want one value per target (%d)", len(f), pl.m)
	}
	for j, v := range c {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("nufft: strength c[%d] = %v is not finite", j, v)
		}
	}
	if pl.n == 0 {
		clear(f)
		return nil
	}
	if !pl.fft.sym {
		// The kept ranges are not symmetric (newFFTPlan kept a whole
		// axis; not seen for targets within the plan's bounds): the
		// complex path, which needs no mirror.
		cc := make([]complex128, len(c))
		for j, v := range c {
			cc[j] = complex(v, 0)
		}
		return pl.ExecuteContext(ctx, cc, f)
	}
	pl.allocate()
	grid := realView(pl.grid)
	return pl.stages(ctx, f, func() { pl.spreadReal(c, grid) }, func() []complex128 { return pl.fft.runReal(grid, pl.pad) })
}

// realView is the first half of grid's memory as float64s: the real
// path's grid, so that one allocation (UseGrids) serves both paths.
// complex128 values are pairs of float64 in memory, so the view is
// aligned and in bounds.
func realView(grid []complex128) []float64 {
	if len(grid) == 0 {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(&grid[0])), len(grid))
}

// sortTargets puts the targets' coordinates and corrections in grid-bin
// order, so that interpolation reads them in sequence.
func (pl *Plan) sortTargets() {
	pl.qOrder = binOrder(pl.q, [3]int{pl.ax[0].n2, pl.ax[1].n2, pl.ax[2].n2}, pl.m)
	for d := range pl.dim {
		sorted := make([]float64, pl.m)
		for i, k := range pl.qOrder {
			sorted[i] = pl.q[d][k]
		}
		pl.q[d] = sorted
	}
	post := make([]complex128, pl.m)
	for i, k := range pl.qOrder {
		post[i] = pl.post[k]
	}
	pl.post = post
	pl.fs = make([]complex128, pl.m)
}

// allocate makes the grids, on the first Execute: a plan made only to
// learn its Bytes holds no grid.
func (pl *Plan) allocate() {
	if pl.grid == nil {
		pl.grid = make([]complex128, pl.gridPoints())
	}
	if pl.pad == nil {
		pl.pad = make([]complex128, pl.padPoints())
	}
}

// GridPoints returns the number of points of the plan's two grids: the
// outer grid points are spread onto, and the FFT's work array (the parts
// of the padded grid it computes, see fftPlan).
func (pl *Plan) GridPoints() (outer, padded int) { return pl.gridPoints(), pl.padPoints() }

// UseGrids makes the plan work in outer and padded (at least GridPoints
// long; their contents are overwritten) instead of allocating its own: a
// caller making one plan after another, one per frequency channel, then
// allocates, and the system maps, the largest grids once.
func (pl *Plan) UseGrids(outer, padded []complex128) error {
	no, np := pl.GridPoints()
	if len(outer) < no || len(padded) < np {
		return fmt.Errorf("nufft: UseGrids: grids of %d and %d points, the plan needs %d and %d", len(outer), len(padded), no, np)
	}
	pl.grid, pl.pad = outer[:no], padded[:np]
	return nil
}

func (pl *Plan) gridPoints() int { return pl.ax[0].nf * pl.ax[1].nf * pl.ax[2].nf }
func (pl *Plan) padPoints() int  { return pl.fft.workPoints() }

// Bytes is the memory the plan holds once executed with npoints points:
// its two grids, the FFT's work lines, and its per-target and per-point
// arrays (TestBytes checks it against the slices a plan allocates).
func (pl *Plan) Bytes(npoints int) int64 {
	const c16 = 16
	grids := int64(pl.gridPoints()+pl.padPoints()) * c16
	maxLine := max(pl.ax[0].n2, pl.ax[1].n2, pl.ax[2].n2)
	work := int64(pl.opt.Workers) * 2 * maxBatch * int64(maxLine) * c16
	// Targets: q per axis, post, bin order; points: p and its unsorted
	// twin per axis, pre, strengths, permutation, and the slab lists (a
	// point on a slab boundary is listed twice).
	targets := int64(pl.m) * int64(8*pl.dim+2*c16+4)
	points := int64(npoints) * int64(16*pl.dim+2*c16+4+2*4)
	return grids + work + targets + points
}

// checkOptions validates opt and fills its defaults.
func checkOptions(opt *Options) error {
	if math.IsNaN(opt.Eps) || opt.Eps < MinEps || opt.Eps > MaxEps {
		return fmt.Errorf("nufft: Options.Eps = %g outside [%g, %g]", opt.Eps, MinEps, MaxEps)
	}
	if opt.Sign != 1 && opt.Sign != -1 {
		return fmt.Errorf("nufft: Options.Sign = %d, want +1 or -1", opt.Sign)
	}
	if opt.Workers < 0 {
		return fmt.Errorf("nufft: Options.Workers = %d is negative", opt.Workers)
	}
	if opt.Workers == 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	if opt.MaxGrid < 0 {
		return fmt.Errorf("nufft: Options.MaxGrid = %d is negative", opt.MaxGrid)
	}
	if opt.MaxGrid == 0 {
		opt.MaxGrid = defaultMaxGrid
	}
	for d, g := range opt.MinGrid {
		if g < 0 || g > opt.MaxGrid {
			return fmt.Errorf("nufft: Options.MinGrid[%d] = %d outside [0, MaxGrid %d]", d, g, opt.MaxGrid)
		}
	}
	return nil
}

// checkCoords checks a coordinate set named name: 1 to 3 axes (exactly
// want when want > 0) of equal length and finite values. It returns the
// number of points.
func checkCoords(name string, x [][]float64, want int) (int, error) {
	if len(x) < 1 || len(x) > 3 {
		return 0, fmt.Errorf("nufft: %s has %d dimensions, want 1, 2 or 3", name, len(x))
	}
	if want > 0 && len(x) != want {
		return 0, fmt.Errorf("nufft: %s has %d dimensions, the points have %d", name, len(x), want)
	}
	n := len(x[0])
	for d, xd := range x {
		if len(xd) != n {
			return 0, fmt.Errorf("nufft: %s[%d] has %d values, %s[0] has %d", name, d, len(xd), name, n)
		}
		for j, v := range xd {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, fmt.Errorf("nufft: %s[%d][%d] = %v is not finite", name, d, j, v)
			}
		}
	}
	return n, nil
}

// centre returns the midpoint and half-width of v's range (0, 0 when v is
// empty).
func centre(v []float64) (c, half float64) {
	if len(v) == 0 {
		return 0, 0
	}
	lo, hi := v[0], v[0]
	for _, x := range v[1:] {
		lo = min(lo, x)
		hi = max(hi, x)
	}
	return 0.5 * (lo + hi), 0.5 * (hi - lo)
}

// newAxis sizes one axis for points x and targets s (see axis), its
// outer grid at least minGrid points, the targets about 0 when aboutZero.
func newAxis(x, s []float64, w, maxGrid, minGrid int, aboutZero bool) (axis, error) {
	a := axis{active: true}
	var bx, bs float64
	a.xc, bx = centre(x)
	a.sc, bs = centre(s)
	if aboutZero {
		a.sc, bs = 0, math.Abs(a.sc)+bs
	}
	// A zero extent makes the product X·S meaningless; any X, S with the
	// same product ≥ 1 work (the transform is then nearly constant), and
	// X·S ≥ 1 keeps γ finite.
	switch {
	case bx == 0 && bs == 0:
		bx, bs = 1, 1
	case bx == 0:
		bx = 1 / bs
	case bs < 1/bx:
		bs = 1 / bx
	}
	need := max(2*sigma*bx*bs/math.Pi+float64(w)+2, float64(minGrid))
	if math.IsInf(need, 0) || need > float64(maxGrid) {
		return a, fmt.Errorf("points' half-extent %g times targets' %g needs a grid of %.3g points, over MaxGrid %d", bx, bs, need, maxGrid)
	}
	a.xh = bx
	a.nf = nextSmoothEven(max(int(math.Ceil(need)), 2*w))
	a.n2 = sigma * a.nf
	a.gamma = float64(a.nf) / (2 * sigma * bs)
	return a, nil
}

// nextSmoothEven is the smallest even n' ≥ n whose only prime factors
// are 2, 3 and 5 (the lengths gonum's FFT handles fastest).
func nextSmoothEven(n int) int {
	for n += n & 1; ; n += 2 {
		r := n
		for _, f := range []int{2, 3, 5} {
			for r%f == 0 {
				r /= f
			}
		}
		if r == 1 {
			return n
		}
	}
}

// scale computes the grid coordinates, phases and kernel corrections.
func (pl *Plan) scale(x, s [][]float64) {
	pl.scaleTargets(s)
	pl.scalePoints(x)
}

// scaleTargets computes the targets' padded-grid coordinates, post-phases
// and corrections, and the inner deconvolution.
func (pl *Plan) scaleTargets(s [][]float64) {
	sign := float64(pl.opt.Sign)
	w := float64(pl.ker.w)
	pl.post = make([]complex128, pl.m)
	// Every argument below is within π·w/4 (see axis); the margin
	// covers rounding, and the table falls back to the quadrature
	// beyond it.
	ft := newFTTable(pl.ker, 1.01*math.Pi*w/4).at
	for d := range pl.dim {
		pl.q[d] = make([]float64, pl.m)
	}
	// The corrections cost a Chebyshev sum a target and axis (~60 ns),
	// so the targets are split among the workers.
	parallelFor(pl.opt.Workers, pl.m, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			phase, amp := 0.0, 1.0
			for d := range pl.dim {
				a := pl.ax[d]
				h1 := 2 * math.Pi / float64(a.nf)
				h2 := 2 * math.Pi / float64(a.n2)
				v := s[d][k]
				t := a.gamma * (v - a.sc)
				phase += v * a.xc
				amp *= (2 / w) / ft(t*w*h1/2)
				pl.q[d][k] = t*h1/h2 + float64(a.n2/2)
			}
			sn, cs := math.Sincos(sign * phase)
			pl.post[k] = complex(amp*cs, amp*sn)
		}
	})
	for d := range pl.dim {
		a := pl.ax[d]
		alpha2 := w * (2 * math.Pi / float64(a.n2)) / 2
		dc := make([]float64, a.nf)
		for i := range dc {
			l := i - a.nf/2
			dc[i] = (2 / w) / ft(float64(l)*alpha2)
			if l&1 != 0 {
				dc[i] = -dc[i]
			}
		}
		pl.deconv[d] = dc
	}
}

// parallelFor runs f on contiguous parts [lo, hi) of [0, n), at most
// workers parts and none under 4096 indices (below that a goroutine costs
// more than it saves).
func parallelFor(workers, n int, f func(lo, hi int)) {
	blocks.Run(n, max(1, min(workers, n/4096)), f)
}

// scalePoints computes the points' outer-grid coordinates and pre-phases
// and sorts them into grid-bin order, reusing the previous points'
// arrays (SetPoints runs once an integration). With the targets about 0
// on every axis (Options.Real, or centred there) the pre-phases are all
// 1 and pre is left nil.
func (pl *Plan) scalePoints(x [][]float64) {
	_ = pl.scalePointsContext(context.Background(), x)
}

// scalePointsContext is scalePoints checking ctx between its passes over
// the points and every pointBlock points of its sines and cosines (the
// passes take tens of ms each at 10⁶ points); it returns ctx's error when
// it stopped early, the plan's points then being unusable.
func (pl *Plan) scalePointsContext(ctx context.Context, x [][]float64) error {
	sign := float64(pl.opt.Sign)
	phased := false
	for d := range pl.dim {
		phased = phased || pl.ax[d].sc != 0
	}
	var p [3][]float64
	for d := range pl.dim {
		a := pl.ax[d]
		h1 := 2 * math.Pi / float64(a.nf)
		pl.raw[d] = growFloats(pl.raw[d], pl.n)
		pd := pl.raw[d]
		for j, v := range x[d] {
			pd[j] = (v-a.xc)/a.gamma/h1 + float64(a.nf/2)
		}
		p[d] = pd
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	pl.perm = binOrder(p, [3]int{pl.ax[0].nf, pl.ax[1].nf, pl.ax[2].nf}, pl.n)
	if err := ctx.Err(); err != nil {
		return err
	}
	for d := range pl.dim {
		pl.p[d] = growFloats(pl.p[d], pl.n)
		sorted := pl.p[d]
		for i, j := range pl.perm {
			sorted[i] = p[d][j]
		}
	}
	pl.pre = nil
	if !phased {
		return ctx.Err()
	}
	pl.pre = make([]complex128, pl.n)
	for i, j := range pl.perm {
		if i%pointBlock == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		var phase float64
		for d := range pl.dim {
			phase += pl.ax[d].sc * (x[d][j] - pl.ax[d].xc)
		}
		sn, cs := math.Sincos(sign * phase)
		pl.pre[i] = complex(cs, sn)
	}
	return nil
}

// growFloats returns s resliced to n values, reallocated when too short.
func growFloats(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// SetPoints replaces the plan's points by x (the same number of
// dimensions, any number of points), keeping the targets and the grids:
// every coordinate must lie within the extent the plan was made for
// (NewPlan's points), which the grids are sized for. It is how a caller
// with fixed targets and moving points (a sky turning over fixed
// baselines) makes the targets' part of the plan once.
func (pl *Plan) SetPoints(x [][]float64) error {
	return pl.SetPointsContext(context.Background(), x)
}

// pointBlock is how many points SetPointsContext's longest passes handle
// between two looks at the context.
const pointBlock = 1 << 16

// SetPointsContext is SetPoints that stops soon after ctx is done (between
// its passes over the points, and every pointBlock points of the longest)
// and returns ctx's error (wrapped); the plan then has no points, and
// executing it fails until the next SetPoints.
func (pl *Plan) SetPointsContext(ctx context.Context, x [][]float64) error {
	n, err := checkCoords("x", x, pl.dim)
	if err != nil {
		return err
	}
	for d := range pl.dim {
		a := pl.ax[d]
		// The grid leaves a margin of a cell (see axis), so rounding
		// in the caller's bounds is harmless.
		tol := 1e-12 * (math.Abs(a.xc) + a.xh)
		for j, v := range x[d] {
			if math.Abs(v-a.xc) > a.xh+tol {
				return fmt.Errorf("nufft: x[%d][%d] = %g outside the plan's extent [%g, %g]", d, j, v, a.xc-a.xh, a.xc+a.xh)
			}
		}
	}
	pl.n = n
	if err := pl.scalePointsContext(ctx, x); err != nil {
		pl.n = 0
		return fmt.Errorf("nufft: %w", err)
	}
	pl.slabs = newSlabs(pl.p[0], pl.ker.w, pl.ax[0].nf, pl.ax[0].active, pl.opt.Workers, n)
	return nil
}
