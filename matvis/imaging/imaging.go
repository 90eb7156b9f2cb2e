package imaging

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/gomatvis/gomatvis/matvis/nufft"
)

// SpeedOfLight is c in m/s (WSClean's and pyuvdata's value).
const SpeedOfLight = 299792458.0

// Vis is a phased visibility set of one polarization (or Stokes I).
type Vis struct {
	// UVW is each row's baseline in metres, phased (see the package
	// comment).
	UVW [][3]float64
	// Freqs are the channels' frequencies, Hz.
	Freqs []float64
	// Data is C-ordered (row, channel); a PSF needs none.
	Data []complex128
	// Weight is each sample's natural weight, C-ordered as Data; nil
	// means 1 everywhere; 0 drops the sample (a flag).
	Weight []float64
}

// samples is the number of (row, channel) samples.
func (v *Vis) samples() int { return len(v.UVW) * len(v.Freqs) }

// check refuses a set whose sizes disagree or whose numbers are not
// finite.
func (v *Vis) check(needData bool) error {
	n := v.samples()
	if n == 0 {
		return fmt.Errorf("imaging: no samples (%d rows, %d channels)", len(v.UVW), len(v.Freqs))
	}
	if needData && len(v.Data) != n {
		return fmt.Errorf("imaging: %d visibilities for %d rows × %d channels", len(v.Data), len(v.UVW), len(v.Freqs))
	}
	if v.Weight != nil && len(v.Weight) != n {
		return fmt.Errorf("imaging: %d weights for %d rows × %d channels", len(v.Weight), len(v.UVW), len(v.Freqs))
	}
	for i, f := range v.Freqs {
		if !(f > 0) || math.IsInf(f, 0) {
			return fmt.Errorf("imaging: channel %d's frequency %v Hz: must be positive and finite", i, f)
		}
	}
	for k, b := range v.UVW {
		if !finite(b[0], b[1], b[2]) {
			return fmt.Errorf("imaging: row %d's uvw %v is not finite", k, b)
		}
	}
	for j, w := range v.Weight {
		if !(w >= 0) || math.IsInf(w, 0) {
			return fmt.Errorf("imaging: sample %d's weight %v: must be finite and ≥ 0", j, w)
		}
	}
	return nil
}

// Mode is a weighting scheme.
type Mode int

// The weighting schemes.
const (
	Natural Mode = iota
	Uniform
	Briggs
)

// Weighting is a scheme and, for Briggs, its robustness.
type Weighting struct {
	Mode   Mode
	Robust float64
	// Padding is WSClean's -padding (its default is 1.2): WSClean grids
	// the weights on its padded image's uv grid, PaddedSize(N) cells a
	// side, so uniform and Briggs weights depend on it. 0 or 1: the
	// image's own grid. The image itself does not depend on it (the
	// transform here is exact, unpadded).
	Padding float64
}

// PaddedSize is WSClean 3.1's padded image side for n pixels and padding
// p: ⌈n·p⌉ rounded up to a multiple of 4 (measured: 128 at 1.2 gives the
// weights of a 156-cell grid, and 154 or 152 do not).
func PaddedSize(n int, p float64) int {
	if p <= 1 {
		return n
	}
	m := int(math.Ceil(float64(n) * p))
	return (m + 3) / 4 * 4
}

// String is the scheme as ParseWeighting reads it.
func (w Weighting) String() string {
	switch w.Mode {
	case Uniform:
		return "uniform"
	case Briggs:
		return "briggs:" + strconv.FormatFloat(w.Robust, 'g', -1, 64)
	}
	return "natural"
}

// ParseWeighting reads natural, uniform or briggs:R.
func ParseWeighting(s string) (Weighting, error) {
	switch {
	case s == "natural":
		return Weighting{Mode: Natural}, nil
	case s == "uniform":
		return Weighting{Mode: Uniform}, nil
	case strings.HasPrefix(s, "briggs:"):
		r, err := strconv.ParseFloat(strings.TrimPrefix(s, "briggs:"), 64)
		if err != nil || math.IsNaN(r) || math.Abs(r) > 10 {
			return Weighting{}, fmt.Errorf("weighting %q: the robustness must be a number in [-10, 10] (WSClean's usual range is -2 to 2)", s)
		}
		return Weighting{Mode: Briggs, Robust: r}, nil
	}
	return Weighting{}, fmt.Errorf("weighting %q: want natural, uniform or briggs:R (e.g. briggs:0.5)", s)
}

// Geometry is a square image's size and pixel.
type Geometry struct {
	N    int     // pixels per side, even
	Cell float64 // pixel size in l and m, radians
}

// check refuses an odd, empty or huge image and a cell that is not a
// positive finite angle.
func (g Geometry) check() error {
	if g.N < 2 || g.N%2 != 0 || g.N > 1<<15 {
		return fmt.Errorf("imaging: image size %d: must be even, from 2 to 32768", g.N)
	}
	if !(g.Cell > 0) || g.Cell > 0.1 || math.IsInf(g.Cell, 0) {
		return fmt.Errorf("imaging: pixel size %v rad: must be positive and at most 0.1 rad (5.7°)", g.Cell)
	}
	return nil
}

// LM is pixel (x, y)'s direction cosines (see the package comment).
func (g Geometry) LM(x, y int) (l, m float64) {
	return float64(g.N/2-x) * g.Cell, float64(y-g.N/2) * g.Cell
}

// Image is a dirty image or PSF in Jy/beam.
type Image struct {
	Geometry
	// Pix is N×N, row-major: Pix[y*N+x] (see the package comment).
	Pix []float64
	// WeightSum is Σ ω over the samples imaged (the normalisation).
	WeightSum float64
}

// At is pixel (x, y).
func (im *Image) At(x, y int) float64 { return im.Pix[y*im.N+x] }

// Options control the transform.
type Options struct {
	// Eps is the NUFFT's relative accuracy (0: 1e-8).
	Eps float64
	// Workers is the number of goroutines (0: GOMAXPROCS).
	Workers int
	// MaxGrid bounds one transform's padded grid, points (0: 2^26, 1 GiB
	// of complex128). A larger 3-D grid — a wide field of long
	// baselines, or w growing over hours of drift — is avoided by
	// splitting the samples into slabs of w, each transformed on its
	// own grid; the images add up, so the result is as exact. It also
	// bounds the w-gridder's planes and screens (16 bytes a point, all
	// workers together): past it the type-3 transform runs instead.
	MaxGrid int
	// Method chooses the algorithm (0: Auto).
	Method Method
}

// Method is the algorithm that evaluates the sum; every method computes
// the same exact sum to Options.Eps.
type Method int

// The methods.
const (
	// Auto is WGridding when its working memory fits Options.MaxGrid,
	// else Type3.
	Auto Method = iota
	// WGridding grids the samples onto planes of w, each a uv grid
	// transformed by a 2-D FFT to the image's pixels and multiplied by
	// its plane's phase screen (WSClean's w-gridder, wgrid.go).
	WGridding
	// Type3 is the 3-D type-3 NUFFT of matvis/nufft, in slabs of w past
	// the grid budget: the first design, kept as the w-gridder's twin.
	Type3
)

// defaultMaxGrid is Options.MaxGrid's default: 2^26 points.
const defaultMaxGrid = 1 << 26

// maxGrid is opt.MaxGrid or its default.
func maxGrid(opt Options) int {
	if opt.MaxGrid > 0 {
		return opt.MaxGrid
	}
	return defaultMaxGrid
}

// eps is opt.Eps or its default, 1e-8.
func eps(opt Options) float64 {
	if opt.Eps > 0 {
		return opt.Eps
	}
	return 1e-8
}

// Dirty is the dirty image of v.
func Dirty(v *Vis, g Geometry, wt Weighting, opt Options) (*Image, error) {
	return image(v, g, wt, opt, false)
}

// PSF is the image of unit visibilities on v's samples.
func PSF(v *Vis, g Geometry, wt Weighting, opt Options) (*Image, error) {
	return image(v, g, wt, opt, true)
}

// image runs the transform; psf images ones instead of v.Data.
func image(v *Vis, g Geometry, wt Weighting, opt Options, psf bool) (*Image, error) {
	pts, c, sum, err := prepare(v, g, wt, psf)
	if err != nil {
		return nil, err
	}
	im := &Image{Geometry: g, Pix: make([]float64, g.N*g.N), WeightSum: sum}
	if opt.Method != Type3 {
		wg, err := newWGrid(pts, c, g, opt)
		if err != nil {
			return nil, err
		}
		if wg != nil {
			wg.run(im.Pix, sum)
			return im, nil
		}
		if opt.Method == WGridding {
			return nil, fmt.Errorf("imaging: the w-gridder's planes need more than %d points (Options.MaxGrid): choose a smaller image (--size) or the type-3 method", maxGrid(opt))
		}
	}
	s, idx := targets(g)
	if len(idx) == 0 {
		return im, nil
	}
	f, err := transform(pts, c, s, opt)
	if err != nil {
		return nil, err
	}
	for k, p := range idx {
		im.Pix[p] = real(f[k]) / sum
	}
	return im, nil
}

// transform is Σ_j c_j exp(−i s_k·x_j) for every target, in as few
// slabs of w as keep each transform's grid within opt.MaxGrid.
func transform(pts [][]float64, c []complex128, s [][]float64, opt Options) ([]complex128, error) {
	no := nufft.Options{Eps: opt.Eps, Sign: -1, Workers: opt.Workers, MaxGrid: opt.MaxGrid}
	if no.Eps == 0 {
		no.Eps = 1e-8
	}
	if no.MaxGrid == 0 {
		no.MaxGrid = defaultMaxGrid
	}
	order := make([]int, len(c))
	for j := range order {
		order[j] = j
	}
	sort.Slice(order, func(a, b int) bool { return pts[2][order[a]] < pts[2][order[b]] })
	for slabs := 1; slabs <= len(c); slabs *= 2 {
		parts, err := splitSlabs(pts, c, s, order, slabs, no)
		if err != nil {
			return nil, err
		}
		if parts == nil {
			continue // a slab's grid is still too large
		}
		f := make([]complex128, len(s[0]))
		for _, p := range parts {
			g, err := nufft.Type3(p.pts, p.c, s, no)
			if err != nil {
				return nil, fmt.Errorf("imaging: %w", err)
			}
			for k := range f {
				f[k] += g[k]
			}
		}
		return f, nil
	}
	return nil, fmt.Errorf("imaging: no split of the samples by w fits a grid of %d points: choose a smaller field (--size, --scale)", no.MaxGrid)
}

// slab is a subset of the samples.
type slab struct {
	pts [][]float64
	c   []complex128
}

// splitSlabs cuts the samples, in w order, into n slabs of equal count;
// nil when one of them would need more than no.MaxGrid points.
func splitSlabs(pts [][]float64, c []complex128, s [][]float64, order []int, n int, no nufft.Options) ([]slab, error) {
	var out []slab
	for i := range n {
		lo, hi := i*len(order)/n, (i+1)*len(order)/n
		if lo == hi {
			continue
		}
		p := slab{pts: make([][]float64, 3), c: make([]complex128, 0, hi-lo)}
		for d := range 3 {
			p.pts[d] = make([]float64, 0, hi-lo)
		}
		for _, j := range order[lo:hi] {
			for d := range 3 {
				p.pts[d] = append(p.pts[d], pts[d][j])
			}
			p.c = append(p.c, c[j])
		}
		// The shape unbounded, compared with the budget here.
		free := no
		free.MaxGrid = math.MaxInt
		grid, _, err := nufft.Shape(p.pts, s, free)
		if err != nil {
			return nil, fmt.Errorf("imaging: %w", err)
		}
		total := 1
		for _, a := range grid {
			total *= a
		}
		if total > no.MaxGrid {
			return nil, nil
		}
		out = append(out, p)
	}
	return out, nil
}

// prepare returns the weighted samples with non-zero weight: their
// (u, v, w) in wavelengths (pts[d][j]), strengths ω·V (or ω for a PSF)
// and Σ ω.
func prepare(v *Vis, g Geometry, wt Weighting, psf bool) (pts [][]float64, c []complex128, sum float64, err error) {
	if err := v.check(!psf); err != nil {
		return nil, nil, 0, err
	}
	if err := g.check(); err != nil {
		return nil, nil, 0, err
	}
	w, err := Weights(v, g, wt)
	if err != nil {
		return nil, nil, 0, err
	}
	kept := 0
	for _, om := range w {
		if om != 0 {
			kept++
		}
	}
	pts = [][]float64{make([]float64, 0, kept), make([]float64, 0, kept), make([]float64, 0, kept)}
	c = make([]complex128, 0, kept)
	nf := len(v.Freqs)
	for j, om := range w {
		if om == 0 {
			continue
		}
		b, f := v.UVW[j/nf], v.Freqs[j%nf]/SpeedOfLight
		for d := range 3 {
			pts[d] = append(pts[d], b[d]*f)
		}
		val := complex(om, 0)
		if !psf {
			if x := v.Data[j]; cmplxFinite(x) {
				val *= x
			} else {
				return nil, nil, 0, fmt.Errorf("imaging: sample %d (row %d, channel %d) is %v with a non-zero weight: flag it (weight 0)", j, j/nf, j%nf, x)
			}
		}
		c = append(c, val)
		sum += om
	}
	if sum == 0 {
		return nil, nil, 0, errors.New("imaging: every sample has weight 0 (all flagged, or every baseline beyond the image's uv grid: use a finer pixel)")
	}
	return pts, c, sum, nil
}

// targets are 2π(l, m, n − 1) of every pixel inside the horizon, and the
// pixels' indices into Image.Pix.
func targets(g Geometry) (s [][]float64, idx []int) {
	s = make([][]float64, 3)
	for y := range g.N {
		for x := range g.N {
			l, m := g.LM(x, y)
			r2 := l*l + m*m
			if r2 >= 1 {
				continue
			}
			// n − 1 without cancellation: −r²/(1 + n).
			nm1 := -r2 / (1 + math.Sqrt(1-r2))
			s[0] = append(s[0], 2*math.Pi*l)
			s[1] = append(s[1], 2*math.Pi*m)
			s[2] = append(s[2], 2*math.Pi*nm1)
			idx = append(idx, y*g.N+x)
		}
	}
	return s, idx
}

func finite(v ...float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

func cmplxFinite(x complex128) bool { return finite(real(x), imag(x)) }
