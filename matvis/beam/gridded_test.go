package beam

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"strings"
	"testing"
)

// cdiff is |a − b|, 0 when both are NaN and +Inf when only one is (so
// that a NaN never passes a bound unnoticed).
func cdiff(a, b complex128) float64 {
	na, nb := cmplx.IsNaN(a), cmplx.IsNaN(b)
	switch {
	case na && nb:
		return 0
	case na || nb:
		return math.Inf(1)
	}
	return cmplx.Abs(a - b)
}

// testGrid returns az (wrapping: N samples over exactly 2π, or not: 0…π)
// and za (0…π/2) axes.
func testGrid(naz, nza int, wrap bool) (az, za []float64) {
	if wrap {
		az = linspace(0, 2*math.Pi, naz+1)[:naz]
	} else {
		az = linspace(0, math.Pi, naz)
	}
	return az, linspace(0, math.Pi/2, nza)
}

// randomBeam builds a beam with random data.
func randomBeam(t *testing.T, typ GridType, az, za, freqs []float64, seed uint64) (*Gridded, []complex128) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	spec := GridSpec{Name: "random", Type: typ, AzRad: az, ZaRad: za, FreqsHz: freqs}
	if typ == EField {
		spec.Feeds, spec.NAxesVec = []string{"x", "y"}, 2
	} else {
		spec.Pols, spec.NAxesVec = []int{PolXX, PolYY}, 1
	}
	n := spec.NAxesVec * 2 * len(freqs) * len(az) * len(za)
	data := make([]complex128, n)
	for i := range data {
		if typ == EField {
			data[i] = complex(rng.Float64()*2-1, rng.Float64()*2-1)
		} else {
			data[i] = complex(0.5+rng.Float64(), 0)
		}
	}
	g, err := NewGridded(spec, data)
	if err != nil {
		t.Fatal(err)
	}
	return g, data
}

// TestGriddedNodes: at the grid nodes the interpolant returns the node
// values, for E-field (polarized) and power (unpolarized, sqrt applied)
// beams, orders 1 and 3, wrapping and non-wrapping grids.
func TestGriddedNodes(t *testing.T) {
	for _, typ := range []GridType{EField, Power} {
		for _, wrap := range []bool{true, false} {
			for _, order := range []int{1, 3} {
				name := typ.String() + map[bool]string{true: "/wrap", false: "/nowrap"}[wrap] + map[int]string{1: "/linear", 3: "/cubic"}[order]
				t.Run(name, func(t *testing.T) {
					az, za := testGrid(24, 11, wrap)
					g0, data := randomBeam(t, typ, az, za, []float64{1e8}, 1)
					g, err := g0.WithOrder(order)
					if err != nil {
						t.Fatal(err)
					}
					naz, nza := len(az), len(za)
					var pa, pz []float64
					for j := 0; j < nza; j++ {
						for i := 0; i < naz; i++ {
							pa, pz = append(pa, az[i]), append(pz, za[j])
						}
					}
					n := len(pa)
					var worst float64
					if typ == EField {
						r, err := g.At(1e8, Mode{Polarized: true})
						if err != nil {
							t.Fatal(err)
						}
						out := make([]complex128, 4*n)
						r.Eval(pa, pz, out)
						for f := 0; f < 2; f++ {
							for k := 0; k < 2; k++ {
								for s := 0; s < n; s++ {
									want := data[(k*2+f)*n+s]
									worst = math.Max(worst, cdiff(out[(2*f+k)*n+s], want))
								}
							}
						}
						// Unpolarized: sqrt(|E0|² + |E1|²) of each feed.
						for f := 0; f < 2; f++ {
							r, err := g.At(1e8, Mode{Feed: Feed(f)})
							if err != nil {
								t.Fatal(err)
							}
							out := make([]complex128, n)
							r.Eval(pa, pz, out)
							for s := 0; s < n; s++ {
								e0, e1 := data[(0*2+f)*n+s], data[(1*2+f)*n+s]
								want := math.Sqrt(real(e0)*real(e0) + imag(e0)*imag(e0) + real(e1)*real(e1) + imag(e1)*imag(e1))
								worst = math.Max(worst, cdiff(out[s], complex(want, 0)))
							}
						}
					} else {
						for f := 0; f < 2; f++ {
							r, err := g.At(1e8, Mode{Feed: Feed(f)})
							if err != nil {
								t.Fatal(err)
							}
							out := make([]complex128, n)
							r.Eval(pa, pz, out)
							for s := 0; s < n; s++ {
								want := math.Sqrt(real(data[f*n+s]))
								worst = math.Max(worst, cdiff(out[s], complex(want, 0)))
							}
						}
					}
					t.Logf("max |Δ| at nodes = %.3g", worst)
					if worst > 1e-13 {
						t.Errorf("max |Δ| at nodes = %.3g, want ≤ 1e-13", worst)
					}
				})
			}
		}
	}
}

// TestGriddedConstant: a beam constant on the grid interpolates to that
// constant everywhere inside, including az = 0, 2π and the grid edges.
func TestGriddedConstant(t *testing.T) {
	const c = 0.37 - 0.21i
	for _, order := range []int{1, 3} {
		for _, wrap := range []bool{true, false} {
			az, za := testGrid(36, 19, wrap)
			data := make([]complex128, 2*2*1*len(az)*len(za))
			for i := range data {
				data[i] = c
			}
			g0, err := NewGridded(GridSpec{Type: EField, AzRad: az, ZaRad: za, FreqsHz: []float64{1e8},
				Feeds: []string{"x", "y"}, NAxesVec: 2}, data)
			if err != nil {
				t.Fatal(err)
			}
			g, _ := g0.WithOrder(order)
			rng := rand.New(rand.NewPCG(3, 4))
			azMax := az[len(az)-1]
			if wrap {
				azMax = 2 * math.Pi
			}
			pa := []float64{0, azMax, 0, azMax}
			pz := []float64{0, 0, math.Pi / 2, math.Pi / 2}
			for range 500 {
				pa = append(pa, rng.Float64()*azMax)
				pz = append(pz, rng.Float64()*math.Pi/2)
			}
			n := len(pa)
			r, err := g.At(1e8, Mode{Polarized: true})
			if err != nil {
				t.Fatal(err)
			}
			out := make([]complex128, 4*n)
			r.Eval(pa, pz, out)
			var worst float64
			for _, v := range out {
				worst = math.Max(worst, cdiff(v, c))
			}
			ru, err := g.At(1e8, Mode{})
			if err != nil {
				t.Fatal(err)
			}
			outU := make([]complex128, n)
			ru.Eval(pa, pz, outU)
			want := cmplx.Abs(c) * math.Sqrt2
			for _, v := range outU {
				worst = math.Max(worst, cdiff(v, complex(want, 0)))
			}
			t.Logf("order %d wrap %v: max |Δ| from the constant = %.3g", order, wrap, worst)
			if worst > 1e-14 {
				t.Errorf("order %d wrap %v: max |Δ| from the constant = %.3g", order, wrap, worst)
			}
		}
	}
}

// TestGriddedAzimuthWrap: on a grid spanning exactly 2π, az = 0 and 2π
// give the same value, and values just either side of az = 0 agree.
func TestGriddedAzimuthWrap(t *testing.T) {
	az, za := testGrid(36, 19, true)
	g0, _ := randomBeam(t, EField, az, za, []float64{1e8}, 5)
	if !g0.Wraps() {
		t.Fatal("grid should wrap")
	}
	for _, order := range []int{1, 3} {
		g, _ := g0.WithOrder(order)
		r, err := g.At(1e8, Mode{Polarized: true})
		if err != nil {
			t.Fatal(err)
		}
		pz := []float64{0.1, 0.7, 1.3, 0.1, 0.7, 1.3}
		pa := []float64{0, 0, 0, 2 * math.Pi, 2 * math.Pi, 2 * math.Pi}
		out := make([]complex128, 4*6)
		r.Eval(pa, pz, out)
		for c := 0; c < 4; c++ {
			for s := 0; s < 3; s++ {
				a, b := out[c*6+s], out[c*6+s+3]
				if d := cdiff(a, b); d > 1e-12 {
					t.Errorf("order %d component %d za %g: az=0 gives %v, az=2π gives %v (|Δ| %.3g)", order, c, pz[s], a, b, d)
				}
			}
		}
		// Continuity across the seam.
		eps := 1e-9
		pa = []float64{eps, 2*math.Pi - eps}
		pz = []float64{0.5, 0.5}
		out = make([]complex128, 8)
		r.Eval(pa, pz, out)
		for c := 0; c < 4; c++ {
			if d := cdiff(out[2*c], out[2*c+1]); d > 1e-6 {
				t.Errorf("order %d component %d: az=±%g differ by %.3g", order, c, eps, d)
			}
		}
	}
}

// TestGriddedOutsideIsZero: beyond the grid (az or za outside the sampled
// range, NaN) the response is 0, as map_coordinates' mode="constant".
func TestGriddedOutsideIsZero(t *testing.T) {
	az, za := testGrid(12, 7, false) // az 0…π, za 0…π/2
	g, _ := randomBeam(t, EField, az, za, []float64{1e8}, 9)
	r, err := g.At(1e8, Mode{Polarized: true})
	if err != nil {
		t.Fatal(err)
	}
	pa := []float64{-1e-9, math.Pi + 1e-9, 1, 1, math.NaN()}
	pz := []float64{0.2, 0.2, -1e-9, math.Pi/2 + 1e-6, 0.2}
	out := make([]complex128, 4*len(pa))
	for i := range out {
		out[i] = 99
	}
	r.Eval(pa, pz, out)
	for i, v := range out {
		if v != 0 {
			t.Errorf("out[%d] = %v, want 0 outside the grid", i, v)
		}
	}
}

// TestGriddedPrecision: float32 storage agrees with float64 to float32
// rounding.
func TestGriddedPrecision(t *testing.T) {
	az, za := testGrid(72, 31, true)
	g64, _ := randomBeam(t, EField, az, za, []float64{1e8, 1.01e8, 1.02e8, 1.03e8, 1.04e8}, 11)
	g32, err := g64.WithPrecision(1)
	if err != nil {
		t.Fatal(err)
	}
	if g32.Precision() != 1 || g32.StoredBytes()*2 != g64.StoredBytes() {
		t.Fatalf("precision %d, %d bytes vs %d: want half the float64 storage", g32.Precision(), g32.StoredBytes(), g64.StoredBytes())
	}
	rng := rand.New(rand.NewPCG(1, 2))
	n := 2000
	pa, pz := make([]float64, n), make([]float64, n)
	for i := range pa {
		pa[i], pz[i] = rng.Float64()*2*math.Pi, rng.Float64()*math.Pi/2
	}
	for _, order := range []int{1, 3} {
		for _, f := range []float64{1e8, 1.015e8} {
			for _, mode := range []Mode{{Polarized: true}, {Feed: FeedY}} {
				a, _ := g64.WithOrder(order)
				b, _ := g32.WithOrder(order)
				ra, err := a.At(f, mode)
				if err != nil {
					t.Fatal(err)
				}
				rb, err := b.At(f, mode)
				if err != nil {
					t.Fatal(err)
				}
				if got := rb.(*GriddedResponse).Planes()[0].Re32; got == nil {
					t.Fatal("precision 1 planes should be float32")
				}
				oa := make([]complex128, mode.Components()*n)
				ob := make([]complex128, len(oa))
				ra.Eval(pa, pz, oa)
				rb.Eval(pa, pz, ob)
				var d, m float64
				for i := range oa {
					d = math.Max(d, cdiff(oa[i], ob[i]))
					if !cmplx.IsNaN(oa[i]) {
						m = math.Max(m, cmplx.Abs(oa[i]))
					}
				}
				t.Logf("order %d, %g Hz, %+v: fp32 vs fp64 max|Δ|/max = %.3g", order, f, mode, d/m)
				if d/m > 1e-6 {
					t.Errorf("order %d, %g Hz, %+v: fp32 vs fp64 max|Δ|/max = %.3g, want ≤ 1e-6", order, f, mode, d/m)
				}
			}
		}
	}
}

// TestFreqWeightsScipy compares the cubic frequency interpolation with
// scipy.interpolate.interp1d(kind="cubic") on an uneven grid.
func TestFreqWeightsScipy(t *testing.T) {
	x := []float64{100e6, 101e6, 103e6, 104.5e6, 107e6, 108e6}
	y := []float64{0.3, -1.2, 2.5, 0.7, -0.4, 1.9}
	tests := []struct{ t, want float64 }{
		{100e6, 0.3},
		{100.5e6, -1.1029896530502348},
		{102e6, 0.7295668897607511},
		{104e6, 1.6168235163388638},
		{105.3e6, -0.45702144472651757},
		{107.9e6, 1.5779041680129242},
		{108e6, 1.9},
		{103e6 + 0.5, 2.5}, // within 1 Hz: the channel as is (scipy: 2.500000247315864)
	}
	for _, tc := range tests {
		w, err := freqWeights(x, tc.t, FreqTolHz)
		if err != nil {
			t.Fatal(err)
		}
		var got float64
		for j := range w {
			got += w[j] * y[j]
		}
		if math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("f = %g: got %.17g, scipy %.17g", tc.t, got, tc.want)
		}
	}
	// 60 uneven channels (x_j = 100 MHz + j MHz + 0.3 MHz·sin j, y_j =
	// cos 0.7j + 0.1j), values from scipy 1.10.1.
	var x60, y60 []float64
	for j := 0; j < 60; j++ {
		x60 = append(x60, 100e6+float64(j)*1e6+0.3e6*math.Sin(float64(j)))
		y60 = append(y60, math.Cos(0.7*float64(j))+0.1*float64(j))
	}
	for _, tc := range []struct{ t, want float64 }{
		{100.2e6, 1.0058736788399583},
		{121.37e6, 1.497958417363803},
		{140e6 + 5, 3.0730806789354084},
		{158.9e6, 4.894816504490313},
	} {
		w, err := freqWeights(x60, tc.t, FreqTolHz)
		if err != nil {
			t.Fatal(err)
		}
		var got float64
		nz := 0
		for j := range w {
			got += w[j] * y60[j]
			if w[j] != 0 {
				nz++
			}
		}
		if math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("60 channels, f = %g: got %.17g, scipy %.17g", tc.t, got, tc.want)
		}
		// The weights decay by ~0.27 per channel: about 30 on each side
		// of f stay above 1e-17 of the total.
		if tc.t == 100.2e6 && nz > 35 {
			t.Errorf("60 channels, f = %g: %d nonzero weights, want the negligible ones dropped", tc.t, nz)
		}
	}
	// 4 channels: the cubic through them; a cubic is reproduced exactly.
	x4 := []float64{1, 2, 4, 7}
	cube := func(v float64) float64 { return 0.5*v*v*v - 2*v*v + v - 3 }
	for _, tt := range []float64{1.5, 3, 6.9} {
		w, err := freqWeights(x4, tt, 1e-3)
		if err != nil {
			t.Fatal(err)
		}
		var got float64
		for j := range w {
			got += w[j] * cube(x4[j])
		}
		if math.Abs(got-cube(tt)) > 1e-12 {
			t.Errorf("cubic at %g: got %g want %g", tt, got, cube(tt))
		}
	}
}

// TestGriddedFrequencyInterpolation: between channels the beam is the
// cubic-in-frequency combination of the channel planes, channel by channel.
func TestGriddedFrequencyInterpolation(t *testing.T) {
	az, za := testGrid(12, 7, true)
	freqs := []float64{100e6, 101e6, 103e6, 104.5e6, 107e6, 108e6}
	g, data := randomBeam(t, EField, az, za, freqs, 13)
	f := 102e6
	w, err := freqWeights(freqs, f, FreqTolHz)
	if err != nil {
		t.Fatal(err)
	}
	npix := len(az) * len(za)
	var pa, pz []float64
	for j := range za {
		for i := range az {
			pa, pz = append(pa, az[i]), append(pz, za[j])
		}
	}
	r, err := g.At(f, Mode{Polarized: true})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]complex128, 4*npix)
	r.Eval(pa, pz, out)
	nf := len(freqs)
	var worst float64
	for fd := 0; fd < 2; fd++ {
		for k := 0; k < 2; k++ {
			for s := 0; s < npix; s++ {
				var want complex128
				for j := range freqs {
					want += complex(w[j], 0) * data[((k*2+fd)*nf+j)*npix+s]
				}
				worst = math.Max(worst, cdiff(out[(2*fd+k)*npix+s], want))
			}
		}
	}
	if worst > 1e-13 {
		t.Errorf("max |Δ| = %.3g", worst)
	}
}

func TestGriddedErrors(t *testing.T) {
	az, za := testGrid(12, 7, true)
	pw, _ := randomBeam(t, Power, az, za, []float64{1e8}, 1)
	ef, _ := randomBeam(t, EField, az, za, []float64{1e8, 2e8}, 1)
	tests := []struct {
		name string
		run  func() error
		want string
	}{
		{"polarized with a power beam", func() error { _, err := pw.At(1e8, Mode{Polarized: true}); return err }, "needs an E-field beam"},
		{"outside the frequency range", func() error { _, err := ef.At(3e8, Mode{Polarized: true}); return err }, "outside the beam's frequency range"},
		{"cubic with 2 channels", func() error { _, err := ef.At(1.5e8, Mode{}); return err }, "at least 4 beam frequencies"},
		{"one channel", func() error { _, err := pw.At(1.5e8, Mode{}); return err }, "only frequency"},
		{"bad order", func() error { _, err := ef.WithOrder(2); return err }, "spline order 2"},
		{"bad precision", func() error { _, err := ef.WithPrecision(3); return err }, "precision 3"},
		{"wrong data length", func() error {
			_, err := NewGridded(GridSpec{Type: Power, AzRad: az, ZaRad: za, FreqsHz: []float64{1}, Pols: []int{PolXX}, NAxesVec: 1}, make([]complex128, 5))
			return err
		}, "data has 5 values"},
		{"uneven grid", func() error {
			_, err := NewGridded(GridSpec{Type: Power, AzRad: []float64{0, 1, 3}, ZaRad: za, FreqsHz: []float64{1}, Pols: []int{PolXX}, NAxesVec: 1}, make([]complex128, 3*len(za)))
			return err
		}, "evenly spaced"},
		{"decreasing axis", func() error {
			_, err := NewGridded(GridSpec{Type: Power, AzRad: []float64{2, 1, 0}, ZaRad: za, FreqsHz: []float64{1}, Pols: []int{PolXX}, NAxesVec: 1}, make([]complex128, 3*len(za)))
			return err
		}, "strictly increasing"},
		{"NaN data", func() error {
			d := make([]complex128, len(az)*len(za))
			d[3] = complex(math.NaN(), 0)
			_, err := NewGridded(GridSpec{Type: Power, AzRad: az, ZaRad: za, FreqsHz: []float64{1}, Pols: []int{PolXX}, NAxesVec: 1}, d)
			return err
		}, "must be finite"},
		{"missing pol", func() error {
			d := make([]complex128, 2*len(az)*len(za))
			g, err := NewGridded(GridSpec{Type: Power, AzRad: az, ZaRad: za, FreqsHz: []float64{1}, Pols: []int{PolXX, PolXY}, NAxesVec: 1}, d)
			if err != nil {
				return err
			}
			_, err = g.At(1, Mode{Feed: FeedY})
			return err
		}, "no yy polarisation"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
			t.Log(err)
		})
	}
}

// TestNewGriddedFromAnalytic samples matvis's profiler beam (14 m Gaussian,
// 360 × 181) and checks nodes and in-between points against the analytic
// beam.
func TestNewGriddedFromAnalytic(t *testing.T) {
	b := Gaussian{DiameterM: 14}
	freqs := []float64{100e6, 150e6, 175e6, 200e6}
	g, err := NewGriddedFromAnalytic(b, freqs, 360, 181)
	if err != nil {
		t.Fatal(err)
	}
	if !g.Wraps() || g.GridPixels() != 360*181 {
		t.Fatalf("wraps %v, pixels %d", g.Wraps(), g.GridPixels())
	}
	if got, want := RawGridBytes(2, 2, g.GridPixels(), 2), int64(2*2*360*181*16); got != want {
		t.Errorf("RawGridBytes = %d, want %d", got, want)
	}
	if got, want := RawGridBytes(2, 2, g.GridPixels(), 1), int64(2*2*360*181*8); got != want {
		t.Errorf("RawGridBytes fp32 = %d, want %d", got, want)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	n := 1000
	pa, pz := make([]float64, n), make([]float64, n)
	for i := range pa {
		pa[i] = rng.Float64() * 2 * math.Pi
		pz[i] = rng.Float64() * math.Pi / 2
		if i < 100 { // nodes
			pa[i] = float64(rng.IntN(360)) * 2 * math.Pi / 360
			pz[i] = float64(rng.IntN(91)) * math.Pi / 180
		}
	}
	tests := []struct {
		f       float64
		mode    Mode
		nodeBar float64
	}{
		{100e6, Mode{Polarized: true}, 1e-13},
		{100e6, Mode{}, 1e-13},
		{175e6, Mode{Polarized: true}, 1e-13},
		{175e6, Mode{Feed: FeedY}, 1e-13},
		// Between channels the frequency is interpolated (cubic, from 4
		// channels 25–50 MHz apart), so the nodes are only as good as that.
		{160e6, Mode{Polarized: true}, 1e-3},
	}
	for _, tc := range tests {
		f, mode := tc.f, tc.mode
		ra, err := b.At(f, mode)
		if err != nil {
			t.Fatal(err)
		}
		rg, err := g.At(f, mode)
		if err != nil {
			t.Fatal(err)
		}
		oa := make([]complex128, mode.Components()*n)
		og := make([]complex128, len(oa))
		ra.Eval(pa, pz, oa)
		rg.Eval(pa, pz, og)
		var dNode, dAll float64
		for c := 0; c < mode.Components(); c++ {
			for s := 0; s < n; s++ {
				if !mode.Polarized && pz[s] > 0.25 {
					// Far from the main lobe the power is ~0 and the
					// cubic spline may overshoot below 0: sqrt gives
					// NaN there, as in matvis (TestGriddedNegativePowerIsNaN).
					continue
				}
				d := cdiff(oa[c*n+s], og[c*n+s])
				dAll = math.Max(dAll, d)
				if s < 100 {
					dNode = math.Max(dNode, d)
				}
			}
		}
		t.Logf("%g Hz %+v: max |Δ| at nodes %.3g, anywhere %.3g", f, mode, dNode, dAll)
		if dNode > tc.nodeBar || dAll > 2e-3 {
			t.Errorf("%g Hz %+v: max |Δ| at nodes %.3g (bar %g), anywhere %.3g (bar 2e-3)", f, mode, dNode, tc.nodeBar, dAll)
		}
	}
	if _, err := NewGriddedFromAnalytic(b, freqs, 1, 181); err == nil {
		t.Error("want an error for a 1-sample azimuth axis")
	}
}

// TestGriddedNegativePowerIsNaN: an unpolarized response is the square
// root of the interpolated power; where the cubic spline rings below 0
// (next to a sharp drop) that is NaN, as numpy's sqrt in matvis. Bilinear
// interpolation of a non-negative grid never goes negative.
func TestGriddedNegativePowerIsNaN(t *testing.T) {
	az, za := testGrid(16, 9, false)
	data := make([]complex128, len(az)*len(za))
	data[4*len(az)+8] = 1 // a lone spike
	g3, err := NewGridded(GridSpec{Type: Power, AzRad: az, ZaRad: za, FreqsHz: []float64{1e8}, Pols: []int{PolXX}, NAxesVec: 1}, data)
	if err != nil {
		t.Fatal(err)
	}
	g1, _ := g3.WithOrder(1)
	// Between the spike's neighbours' neighbours the cubic B-spline
	// interpolant of a unit spike is negative.
	daz := az[1] - az[0]
	pa := []float64{az[8] + 1.5*daz}
	pz := []float64{za[4]}
	out := make([]complex128, 1)
	r3, _ := g3.At(1e8, Mode{})
	r3.Eval(pa, pz, out)
	if !cmplx.IsNaN(out[0]) {
		t.Errorf("cubic: got %v, want NaN (sqrt of a negative overshoot)", out[0])
	}
	r1, _ := g1.At(1e8, Mode{})
	r1.Eval(pa, pz, out)
	if cmplx.IsNaN(out[0]) || real(out[0]) != 0 {
		t.Errorf("bilinear: got %v, want 0", out[0])
	}
}

// TestGriddedPowerFromEFieldBasis: E-field → power follows pyuvdata's
// efield_to_power with basis vectors b[k, c]: Σ_c |Σ_k E_k b[k, c]|². A
// rotated orthonormal basis leaves |E₀|² + |E₁|² unchanged; a basis scaled
// by 2 quadruples it.
func TestGriddedPowerFromEFieldBasis(t *testing.T) {
	az, za := testGrid(8, 5, false)
	npix := len(az) * len(za)
	base, data := randomBeam(t, EField, az, za, []float64{1e8}, 21)
	var pa, pz []float64
	for j := range za {
		for i := range az {
			pa, pz = append(pa, az[i]), append(pz, za[j])
		}
	}
	eval := func(g *Gridded) []complex128 {
		r, err := g.At(1e8, Mode{Feed: FeedY})
		if err != nil {
			t.Fatal(err)
		}
		out := make([]complex128, npix)
		r.Eval(pa, pz, out)
		return out
	}
	ref := eval(base)
	for _, tc := range []struct {
		name  string
		basis func(k, c, s int) float64
		scale float64
	}{
		{"rotated", func(k, c, s int) float64 {
			a := 0.3 + 0.1*float64(s)
			m := [2][2]float64{{math.Cos(a), -math.Sin(a)}, {math.Sin(a), math.Cos(a)}}
			return m[k][c]
		}, 1},
		{"doubled", func(k, c, s int) float64 {
			if k == c {
				return 2
			}
			return 0
		}, 2},
	} {
		spec := base.spec
		spec.Basis = make([]float64, 2*2*npix)
		for k := 0; k < 2; k++ {
			for c := 0; c < 2; c++ {
				for s := 0; s < npix; s++ {
					spec.Basis[(k*2+c)*npix+s] = tc.basis(k, c, s)
				}
			}
		}
		g, err := NewGridded(spec, data)
		if err != nil {
			t.Fatal(err)
		}
		got := eval(g)
		for s := range got {
			if d := cdiff(got[s], ref[s]*complex(tc.scale, 0)); d > 1e-12 {
				t.Fatalf("%s basis, node %d: got %v, want %v", tc.name, s, got[s], ref[s]*complex(tc.scale, 0))
			}
		}
	}
}

// TestGriddedEvalSplit: a large Eval (split over goroutines) equals the
// same directions evaluated in small pieces.
func TestGriddedEvalSplit(t *testing.T) {
	az, za := testGrid(36, 19, true)
	g, _ := randomBeam(t, EField, az, za, []float64{1e8}, 17)
	r, err := g.At(1e8, Mode{Polarized: true})
	if err != nil {
		t.Fatal(err)
	}
	n := 5*evalChunk + 123
	rng := rand.New(rand.NewPCG(8, 9))
	pa, pz := make([]float64, n), make([]float64, n)
	for i := range pa {
		pa[i], pz[i] = rng.Float64()*2*math.Pi, rng.Float64()*math.Pi/2
	}
	whole := make([]complex128, 4*n)
	r.Eval(pa, pz, whole)
	const m = 1000
	piece := make([]complex128, 4*m)
	for lo := 0; lo < n; lo += m {
		hi := min(lo+m, n)
		k := hi - lo
		r.Eval(pa[lo:hi], pz[lo:hi], piece[:4*k])
		for c := 0; c < 4; c++ {
			for s := 0; s < k; s++ {
				if whole[c*n+lo+s] != piece[c*k+s] {
					t.Fatalf("component %d direction %d: %v whole, %v in pieces", c, lo+s, whole[c*n+lo+s], piece[c*k+s])
				}
			}
		}
	}
}
