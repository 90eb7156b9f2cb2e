package gpu

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gomatvis/gomatvis/cuda/gram"
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
	return griddedAs(t, spec, data, order, precision)
}

// griddedAs is the gridded beam of spec and data with spline order order
// and its grid stored at precision precision.
func griddedAs(t testing.TB, spec beam.GridSpec, data []complex128, order, precision int) *beam.Gridded {
	t.Helper()
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
// the descriptors and geometries as matvis/gpu/vis.cu does (footprints,
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
				if tb.desc[b].Kind >= 0 {
					continue
				}
				resp, err := bm.At(117.5e6, sim.Mode)
				if err != nil {
					t.Fatal(err)
				}
				want := make([]complex128, nc*nd)
				resp.Eval(az, za, want)
				off := int(tb.desc[b].Off)
				gw := tb.geom[tb.desc[b].Geom]
				za0, zs, az0, as := gw.Za0, gw.ZScale, gw.Az0, gw.AScale
				nza, naz := int(gw.NZa), int(gw.NAz)
				ord, sq := int(gw.Order), gw.SqrtAfter == 1
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
		*w = beam.CubicWeights(x)
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

// TestStackedTables: the fused kernel's stacked layout holds, for every
// grid node, beam b's 4 components at ((node·nbp + b)·4 + c), equal to
// the per-beam tables, zeros in the padding beams, and its largest value
// is the tables' maxAbs (no device needed).
func TestStackedTables(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	sim := buildSim(t, rng, caseSpec{pol: true, p1: true, gridded: true, gridOnly: true, chunks: 1, nant: 5, nsrc: 50, order: 3})
	tb, err := buildBeamTables(sim, 100e6, true)
	if err != nil {
		t.Fatal(err)
	}
	const nbp = 16
	st, err := tb.stack(nbp)
	if err != nil {
		t.Fatal(err)
	}
	nza, naz := int(tb.geom[0].NZa), int(tb.geom[0].NAz)
	nb := len(sim.Beams)
	if len(st) != nza*naz*nbp*8 {
		t.Fatalf("stacked length %d, want %d", len(st), nza*naz*nbp*8)
	}
	var maxAbs float64
	for node := 0; node < nza*naz; node++ {
		for b := 0; b < nbp; b++ {
			for k := 0; k < 8; k++ {
				got := st[(node*nbp+b)*8+k]
				want := float32(0)
				if b < nb {
					want = tb.coef32[2*(int(tb.desc[b].Off)+node*4)+k]
				}
				if got != want {
					t.Fatalf("node %d beam %d word %d: %g, want %g", node, b, k, got, want)
				}
				maxAbs = max(maxAbs, math.Abs(float64(got)))
			}
		}
	}
	if maxAbs != tb.maxAbs {
		t.Errorf("tables' maxAbs %g, largest stacked value %g", tb.maxAbs, maxAbs)
	}
	if _, err := tb.stack(nb - 1); err == nil {
		t.Errorf("stacking %d beams into %d slots: no error", nb, nb-1)
	}
	// Precision-2 tables cannot be stacked (the kernel reads complex64).
	sim2 := buildSim(t, rng, caseSpec{pol: true, p1: true, gridded: true, chunks: 1, nant: 5, nsrc: 50, order: 3})
	tb2, err := buildBeamTables(sim2, 100e6, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb2.stack(nbp); err == nil {
		t.Error("stacking precision-2 tables: no error")
	}
}

// TestFP16Scale: the FP16 scale is a power of two that brings
// √(max I/2)·max(beam, 1) to (1/2, 1], clamped to 2^±60.
func TestFP16Scale(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, c := range []struct {
		fluxScale, maxBeam float64
	}{{1, 1}, {1e4, 1}, {1e-6, 1}, {1, 3.7}, {1, 0.2}, {1e-40, 1}, {1e40, 1}} {
		sim := buildSim(t, rng, caseSpec{pol: true, p1: true, chunks: 1, nant: 3, nsrc: 40, fluxScale: c.fluxScale})
		flux := make([]float64, sim.NSrc())
		for fi := 0; fi < sim.NFreq(); fi++ {
			if err := sim.FluxAt(fi, flux); err != nil {
				t.Fatal(err)
			}
			s := gram.Pow2Scale(zBound(flux, nil, c.maxBeam))
			if fr, _ := math.Frexp(s); fr != 0.5 {
				t.Errorf("flux ×%g beam %g: scale %g is not a power of two", c.fluxScale, c.maxBeam, s)
			}
			maxI := 0.0
			for k := 0; k < sim.NSrc(); k++ {
				maxI = max(maxI, flux[k])
			}
			b := math.Sqrt(maxI/2) * max(c.maxBeam, 1) * s
			clamped := s == math.Ldexp(1, 60) || s == math.Ldexp(1, -60)
			if !clamped && !(b > 0.5 && b <= 1) {
				t.Errorf("flux ×%g beam %g: scaled bound %g not in (1/2, 1]", c.fluxScale, c.maxBeam, b)
			}
			if clamped && c.fluxScale > 1e-30 && c.fluxScale < 1e30 {
				t.Errorf("flux ×%g: scale %g clamped", c.fluxScale, s)
			}
		}
	}
}

// TestParseFusedMode: the three modes round-trip; anything else is an
// error naming the value.
func TestParseFusedMode(t *testing.T) {
	for _, m := range []FusedMode{FusedAuto, FusedOn, FusedOff} {
		got, err := ParseFusedMode(m.String())
		if err != nil || got != m {
			t.Errorf("%v: parsed %v, %v", m, got, err)
		}
	}
	if _, err := ParseFusedMode("yes"); err == nil || !strings.Contains(err.Error(), `"yes"`) {
		t.Errorf("ParseFusedMode(yes): %v", err)
	}
}
