package gpu

import (
	"math"

	"github.com/gomatvis/gomatvis/matvis/beam"
)

// testGrid is a gridded E-field beam for tests: NComp=2 feeds × 2 axes of
// complex samples on a regular (za, az) grid, with a host interpolator that
// follows the same rules as the CPU backend's gridded beams (azimuth
// extension, mirror-boundary prefilter, spline footprints, 0 outside).
type testGrid struct {
	name  string
	az    []float64
	za    []float64
	data  [4][]complex128 // comp = 2·feed + axis, [iza*naz + iaz]
	order int
}

func (g *testGrid) String() string { return g.name }
func (g *testGrid) Az() []float64  { return g.az }
func (g *testGrid) Za() []float64  { return g.za }
func (g *testGrid) Order() int     { return g.order }
func (g *testGrid) Wraps() bool {
	d := g.az[1] - g.az[0]
	return math.Abs(math.Abs(g.az[0]-g.az[len(g.az)-1])+d-2*math.Pi) < d
}

type testResp struct {
	g      *testGrid
	mode   beam.Mode
	planes [][]float64 // re/im (or power) planes on the extended grid, prefiltered for order 3
	nazExt int
	az0    float64
	ascale float64
	zscale float64
}

func (g *testGrid) At(f float64, mode beam.Mode) (beam.Response, error) {
	nza, naz := len(g.za), len(g.az)
	ext := 0
	if g.Wraps() {
		ext = 3
	}
	r := &testResp{g: g, mode: mode, nazExt: naz + 2*ext}
	daz := (g.az[naz-1] - g.az[0]) / float64(naz-1)
	r.az0 = g.az[0] - float64(ext)*daz
	r.ascale = float64(r.nazExt-1) / (g.az[naz-1] + float64(ext)*daz - r.az0)
	r.zscale = float64(nza-1) / (g.za[nza-1] - g.za[0])
	mk := func(val func(i, j int) float64) []float64 {
		p := make([]float64, nza*r.nazExt)
		for i := 0; i < nza; i++ {
			for jx := 0; jx < r.nazExt; jx++ {
				j := ((jx-ext)%naz + naz) % naz
				p[i*r.nazExt+jx] = val(i, j)
			}
		}
		if g.order == 3 {
			prefilter2D(p, nza, r.nazExt)
		}
		return p
	}
	if mode.Polarized {
		for c := 0; c < 4; c++ {
			r.planes = append(r.planes, mk(func(i, j int) float64 { return real(g.data[c][i*naz+j]) }),
				mk(func(i, j int) float64 { return imag(g.data[c][i*naz+j]) }))
		}
	} else {
		f := int(mode.Feed)
		r.planes = append(r.planes, mk(func(i, j int) float64 {
			a, b := g.data[2*f][i*naz+j], g.data[2*f+1][i*naz+j]
			return real(a)*real(a) + imag(a)*imag(a) + real(b)*real(b) + imag(b)*imag(b)
		}))
	}
	return r, nil
}

func (r *testResp) weights(c float64, n int, idx *[4]int, w *[4]float64) {
	fl := math.Floor(c)
	x := c - fl
	start := int(fl)
	if r.g.order == 1 {
		w[0], w[1] = 1-x, x
	} else {
		start--
		z := 1 - x
		w[1] = (x*x*(x-2)*3 + 4) / 6
		w[2] = (z*z*(z-2)*3 + 4) / 6
		w[0] = z * z * z / 6
		w[3] = 1 - w[0] - w[1] - w[2]
	}
	for k := 0; k <= r.g.order; k++ {
		i := start + k
		sz2 := 2*n - 2
		if i < 0 {
			i += sz2 * (-i / sz2)
			if i <= 1-n {
				i += sz2
			} else {
				i = -i
			}
		} else if i > n-1 {
			i -= sz2 * (i / sz2)
			if i >= n {
				i = sz2 - i
			}
		}
		idx[k] = i
	}
}

func (r *testResp) Eval(az, za []float64, out []complex128) {
	n := len(az)
	nza := len(r.g.za)
	for s := range az {
		cz := (za[s] - r.g.za[0]) * r.zscale
		ca := (az[s] - r.az0) * r.ascale
		ok := cz >= 0 && cz <= float64(nza-1) && ca >= 0 && ca <= float64(r.nazExt-1)
		var iz, ia [4]int
		var wz, wa [4]float64
		if ok {
			r.weights(cz, nza, &iz, &wz)
			r.weights(ca, r.nazExt, &ia, &wa)
		}
		val := func(p []float64) float64 {
			if !ok {
				return 0
			}
			var v float64
			for a := 0; a <= r.g.order; a++ {
				for b := 0; b <= r.g.order; b++ {
					v += wz[a] * wa[b] * p[iz[a]*r.nazExt+ia[b]]
				}
			}
			return v
		}
		if r.mode.Polarized {
			for c := 0; c < 4; c++ {
				out[c*n+s] = complex(val(r.planes[2*c]), val(r.planes[2*c+1]))
			}
		} else {
			out[s] = complex(math.Sqrt(val(r.planes[0])), 0)
		}
	}
}

// newTestGrid samples a Gaussian-like polarized pattern of width sigma
// (plus a small azimuth-dependent complex part, so the feeds and axes
// differ) on naz azimuths over the circle and nza zenith angles over [0, π].
func newTestGrid(name string, naz, nza int, sigma float64, order int) *testGrid {
	g := &testGrid{name: name, order: order}
	for j := 0; j < naz; j++ {
		g.az = append(g.az, 2*math.Pi*float64(j)/float64(naz))
	}
	for i := 0; i < nza; i++ {
		g.za = append(g.za, math.Pi*float64(i)/float64(nza-1))
	}
	for c := 0; c < 4; c++ {
		g.data[c] = make([]complex128, naz*nza)
		for i, za := range g.za {
			for j, az := range g.az {
				amp := math.Exp(-za * za / (2 * sigma * sigma))
				g.data[c][i*naz+j] = complex(amp*(0.7+0.1*float64(c)*math.Cos(az)), 0.05*amp*math.Sin(az+float64(c)))
			}
		}
	}
	return g
}
