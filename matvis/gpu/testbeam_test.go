package gpu

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/gomatvis/gomatvis/matvis/beam"
)

// newTestGrid is a gridded E-field beam for tests (matvis/beam's Gridded,
// whose prepared planes both backends interpolate): 2 feeds × 2 axes of
// complex samples of a Gaussian-like pattern of width sigma (plus a small
// azimuth-dependent complex part, so the feeds and axes differ) on naz
// azimuths over the circle and nza zenith angles over [0, π], at the
// channels freqs (the width scales as 1/frequency, so frequency
// interpolation matters when a run's frequency is between channels).
// precision 1 stores the grid as float32.
func newTestGrid(t testing.TB, name string, naz, nza int, sigma float64, order, precision int, freqs []float64) *beam.Gridded {
	t.Helper()
	spec := beam.GridSpec{Name: name, Type: beam.EField, FreqsHz: freqs, Feeds: []string{"x", "y"}, NAxesVec: 2}
	for j := 0; j < naz; j++ {
		spec.AzRad = append(spec.AzRad, 2*math.Pi*float64(j)/float64(naz))
	}
	for i := 0; i < nza; i++ {
		spec.ZaRad = append(spec.ZaRad, math.Pi*float64(i)/float64(nza-1))
	}
	nf := len(freqs)
	data := make([]complex128, 4*nf*nza*naz)
	for vec := 0; vec < 2; vec++ {
		for feed := 0; feed < 2; feed++ {
			c := 2*feed + vec // component index of the planes
			for fi, f := range freqs {
				s := sigma * freqs[0] / f
				for i, za := range spec.ZaRad {
					for j, az := range spec.AzRad {
						amp := math.Exp(-za * za / (2 * s * s))
						k := (((vec*2+feed)*nf+fi)*nza+i)*naz + j
						data[k] = complex(amp*(0.7+0.1*float64(c)*math.Cos(az)), 0.05*amp*math.Sin(az+float64(c)))
					}
				}
			}
		}
	}
	g, err := beam.NewGridded(spec, data)
	if err != nil {
		t.Fatal(err)
	}
	if order != 3 {
		if g, err = g.WithOrder(order); err != nil {
			t.Fatal(err)
		}
	}
	if precision == 1 {
		if g, err = g.WithPrecision(1); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// testFreqs are the channels of the parity tests' gridded beams (the runs
// use 100 and 117.5 MHz: one channel exactly, one interpolated).
var testFreqs = []float64{80e6, 100e6, 110e6, 125e6, 140e6}

// TestGridBeamIsGridded: the beam package's gridded beams are what the GPU
// interpolates from their prepared planes.
func TestGridBeamIsGridded(t *testing.T) {
	var b beam.Beam = newTestGrid(t, "g", 8, 5, 0.5, 3, 2, testFreqs)
	if _, ok := b.(GridBeam); !ok {
		t.Fatalf("%T does not implement GridBeam", b)
	}
}

// TestBeamTablesHost checks, without a device, the tables the fused kernel
// reads: for random directions, interpolating the packed planes through
// the descriptors and geometries as kernels/vis.cu does (footprints,
// mirrored indices, node-major components) gives each beam's Eval.
func TestBeamTablesHost(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, pol := range []bool{true, false} {
		for _, order := range []int{1, 3} {
			sim := buildSim(t, rng, caseSpec{pol: pol, gridded: true, chunks: 1, nant: 5, nsrc: 50, order: order})
			tb, err := buildBeamTables(sim, 117.5e6, false)
			if err != nil {
				t.Fatal(err)
			}
			nc := sim.Mode.Components()
			const nd = 400
			az, za := make([]float64, nd), make([]float64, nd)
			for i := range az {
				az[i], za[i] = rng.Float64()*2*math.Pi, rng.Float64()*math.Pi/2
			}
			for b, bm := range sim.Beams {
				kind := int32(uint32(tb.desc[4*b+1]))
				if kind >= 0 {
					continue
				}
				resp, err := bm.At(117.5e6, sim.Mode)
				if err != nil {
					t.Fatal(err)
				}
				want := make([]complex128, nc*nd)
				resp.Eval(az, za, want)
				off := int(tb.desc[4*b])
				gi := int(uint32(tb.desc[4*b+1] >> 32))
				gw := tb.geom[6*gi : 6*gi+6]
				za0, zs, az0, as := math.Float64frombits(gw[0]), math.Float64frombits(gw[1]), math.Float64frombits(gw[2]), math.Float64frombits(gw[3])
				nza, naz := int(uint32(gw[4])), int(uint32(gw[4]>>32))
				ord, sq := int(uint32(gw[5])), gw[5]>>32 == 1
				for s := 0; s < nd; s++ {
					cz, ca := (za[s]-za0)*zs, (az[s]-az0)*as
					for c := 0; c < nc; c++ {
						var got complex128
						if cz >= 0 && cz <= float64(nza-1) && ca >= 0 && ca <= float64(naz-1) {
							var iz, ia [4]int
							var wz, wa [4]float64
							hostWeights(cz, nza, ord, &iz, &wz)
							hostWeights(ca, naz, ord, &ia, &wa)
							var re, im float64
							for i := 0; i < 4; i++ {
								for j := 0; j < 4; j++ {
									k := 2 * (off + (iz[i]*naz+ia[j])*nc + c)
									re += wz[i] * wa[j] * tb.coef64[k]
									im += wz[i] * wa[j] * tb.coef64[k+1]
								}
							}
							if sq {
								re, im = math.Sqrt(re), 0
							}
							got = complex(re, im)
						}
						if d := cmplx.Abs(got - want[c*nd+s]); d > 1e-12 {
							t.Fatalf("pol=%v order %d beam %d comp %d dir %d: tables give %v, Eval %v", pol, order, b, c, s, got, want[c*nd+s])
						}
					}
				}
			}
		}
	}
}

// hostWeights is vis.cu's axis_weights (4 entries, linear padded with 0).
func hostWeights(c float64, n, order int, idx *[4]int, w *[4]float64) {
	fl := math.Floor(c)
	x := c - fl
	start := int(fl)
	if order == 1 {
		w[0], w[1], w[2], w[3] = 1-x, x, 0, 0
	} else {
		start--
		z := 1 - x
		w[1] = (x*x*(x-2)*3 + 4) / 6
		w[2] = (z*z*(z-2)*3 + 4) / 6
		w[0] = z * z * z / 6
		w[3] = 1 - w[0] - w[1] - w[2]
	}
	mirror := func(i int) int {
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
		return i
	}
	for k := 0; k < 4; k++ {
		if k <= order {
			idx[k] = mirror(start + k)
		} else {
			idx[k] = mirror(start)
		}
	}
}
